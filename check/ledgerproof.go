package check

import (
	"context"
	"fmt"
	"math"

	"commentbench/keys"
	"commentbench/results"
)

// ledgerProof reconciles a run's ledger with no sort where the two agree,
// as sums prove an index (see sums): the ledger's acknowledged comment
// keys are summed before the comment pass, and each comment's key as the
// pass reads it. A bucket whose sums agree holds exactly the comments
// acknowledged there: none lost, none unknown, none twice. On a million
// comments the sort and walk this spares were a sixth of verify's time.
// A bucket whose sums differ is reconciled record by record: its records
// sorted and walked alongside a second read of its comments, as runLedger
// walks them all; so is one whose writes started (pending) and ended
// (outcomes) do not agree: a write was in flight there.
type ledgerProof struct {
	want *sums // every acknowledged record's key; an unknown outcome's bucket open
	have *sums // every comment's key
	// started and ended sum the pending records' keys and the outcomes';
	// nil for a ledger from before pending records.
	started, ended *sums
	r              *RunReport
}

// ledgerBuckets is how many buckets a ledger is summed in: 24 KiB a sums,
// which a core's cache keeps beside the indexes' (a fault costs the
// walk a second read of the comments however few buckets it fails).
const ledgerBuckets = 1 << 10

// proveLedger sums the run's ledger up for a proof.
func (c *checker) proveLedger(r *RunReport) (*ledgerProof, error) {
	buckets := func() *sums { return newSumsOf(math.MaxInt, ledgerBuckets) }
	l := &ledgerProof{want: buckets(), have: buckets(), started: buckets(), ended: buckets(), r: r}
	pending := false
	torn, err := results.ReadLedger(c.o.RunDir, func(rec results.LedgerRecord) error {
		switch rec.Status {
		case results.Pending:
			l.started.add(rec.Key, nil)
			pending = true
			return nil
		case results.Acked:
			l.want.add(rec.Key, nil)
		case results.Unknown:
			l.want.leaveOpen(rec.Key)
		}
		l.ended.add(rec.Key, nil)
		return nil
	})
	r.TornTails = int64(torn)
	if err != nil {
		return nil, fmt.Errorf("--run: %w", err)
	}
	if !pending {
		l.started, l.ended = nil, nil
	}
	return l, nil
}

// at sums the comment up. A bad comment is summed too: its presence is
// all the run's report says of it.
func (l *ledgerProof) at(_ *checker, ck []byte) { l.have.add(ck, nil) }

// finish counts the proved buckets' records acknowledged and present, and
// walks the others'.
func (l *ledgerProof) finish(ctx context.Context, c *checker) (*RunReport, error) {
	if l.started != nil {
		l.want.openWhereDiffer(l.started, l.ended)
	}
	join, proved := l.want.unproved(l.have)
	l.r.Acked += proved
	if join != nil {
		if err := l.walkUnproved(ctx, c, join); err != nil {
			return nil, err
		}
	}
	return l.r, nil
}

// walkUnproved reconciles the records of the buckets the sums did not
// prove, walking them sorted alongside a second read of the comments.
func (l *ledgerProof) walkUnproved(ctx context.Context, c *checker, join []bool) error {
	unproved := func(key []byte) bool { return join[l.want.bucket(key)] }
	walk, err := c.sortLedger(l.r, unproved)
	if err != nil {
		return err
	}
	defer walk.close()
	for row, err := range c.wholeTable(ctx, keys.Comment) {
		if err != nil {
			return err
		}
		if unproved(row.Key) {
			walk.at(c, row.Key)
		}
	}
	_, err = walk.finish(ctx, c)
	return err
}

func (l *ledgerProof) close() error { return nil }
