package check

import (
	"context"
	"fmt"

	"commentbench/keys"
	"commentbench/results"
	"commentbench/store"
)

// reconcile checks the run's ledger against the comments: every comment the
// backend acknowledged must exist; outcomes that were never known are
// counted apart, present or not.
func (c *checker) reconcile(ctx context.Context) (*RunReport, error) {
	r := &RunReport{Dir: c.o.RunDir}
	ledger := c.sorter()
	defer ledger.Close()
	err := results.ReadLedger(c.o.RunDir, func(status byte, ck []byte) error { return ledger.Add(ck, []byte{status}) })
	if err != nil {
		return nil, fmt.Errorf("--run: %w", err)
	}
	comments := newCursor(c.rows(ctx, keys.Comment, store.Scan{}))
	defer comments.close()
	for rec, err := range sorted(ledger) {
		if err != nil {
			return nil, err
		}
		found := comments.seek(rec.Key)
		switch {
		case rec.Val[0] == results.Acked:
			r.Acked++
			if !found {
				ck := string(rec.Key)
				r.Lost.add(1, func() string { return c.describe(keys.Comment, []byte(ck)) + " was acknowledged and is missing" })
			}
		case found:
			r.UnknownPresent++
		default:
			r.UnknownAbsent++
		}
	}
	return r, comments.close()
}
