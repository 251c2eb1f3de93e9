// Command peakrss runs a command and writes its peak resident set size,
// in KiB, to a file: what `make bench` reports of verify. It stands in for
// GNU time's `-f %M`, which a fresh machine does not have.
//
//	peakrss -o FILE COMMAND [ARGS...]
//
// The command's output passes through; peakrss exits with its status.
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"syscall"
)

func main() {
	out := flag.String("o", "", "the file to write the peak RSS (KiB) to")
	flag.Parse()
	if *out == "" || flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: peakrss -o FILE COMMAND [ARGS...]")
		os.Exit(2)
	}
	code, err := run(*out, flag.Args())
	if err != nil {
		fmt.Fprintln(os.Stderr, "peakrss:", err)
		os.Exit(2)
	}
	os.Exit(code)
}

// run runs args, writes its peak RSS to out, and returns its exit status.
func run(out string, args []string) (int, error) {
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		return 0, fmt.Errorf("run %s: %w", args[0], err)
	}
	usage, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if !ok {
		return 0, fmt.Errorf("%s: no resource usage on this system", args[0])
	}
	// Linux gives ru_maxrss in KiB.
	if err := os.WriteFile(out, []byte(fmt.Sprintf("%d\n", usage.Maxrss)), 0o644); err != nil {
		return 0, fmt.Errorf("write %s: %w", out, err)
	}
	return cmd.ProcessState.ExitCode(), nil
}
