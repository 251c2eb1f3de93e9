// Command strategyfig prints what make bench's writes goal reads from a
// run's summary.json: the post-comment action's p50 (ms) and the requests
// per comment written, space-separated.
package main

import (
	"fmt"
	"os"

	"commentbench/results"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: strategyfig RUN_DIR")
		os.Exit(2)
	}
	s, err := results.ReadSummary(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, "strategyfig:", err)
		os.Exit(1)
	}
	if s.Consistency == nil {
		fmt.Fprintln(os.Stderr, "strategyfig: the run has no consistency block")
		os.Exit(1)
	}
	for _, a := range s.Actions {
		if a.Op == "post-comment" {
			fmt.Println(a.Latency.P50, s.Consistency.PerComment(s.Consistency.Requests))
			return
		}
	}
	fmt.Fprintln(os.Stderr, "strategyfig: the run has no post-comment action")
	os.Exit(1)
}
