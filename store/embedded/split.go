package embedded

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

	"commentbench/store"

	"github.com/cockroachdb/pebble/v2"
)

// Splits and balancing.
//
// Writers only add to a region's size and, the first time it passes the
// split threshold, poke the splitter goroutine (a non-blocking send); they
// never wait for a split. The splitter then, under adminMu:
//
//  1. finds the region's middle key by scanning its data (the first row
//     where the bytes before it reach half the region);
//  2. writes one synced meta batch: the parent's record becomes daughter A
//     (same start key), daughter B's record is added, counters advance;
//  3. publishes a new routing in which A and B replace the parent, and
//     retires the parent, so scans holding it re-locate;
//  4. runs the balancer.
//
// No data moves, so nothing a reader or writer does can race with a split in
// a way that loses or duplicates rows; only counters charged to the parent
// after step 1 are lost with it.

// grow adds written bytes to a region's size and pokes the splitter when
// the size crosses the threshold, once per crossing, so a hot region does
// not hammer the splitter's channel. (A threshold that moves is covered by
// publish, and every splitter pass looks at all regions.)
func (e *Engine) grow(r *region, n int64) {
	size := r.stats.size.Add(n)
	if at := r.splitAt.Load(); at > 0 && size > at && size-n <= at {
		e.kickSplitter()
	}
}

func (e *Engine) kickSplitter() {
	select {
	case e.splitKick <- struct{}{}:
	default: // a kick is already pending; the pass will see this region too
	}
}

// splitter is the background goroutine that performs automatic splits.
func (e *Engine) splitter() {
	defer close(e.splitterDone)
	for {
		select {
		case <-e.stop:
			return
		case <-e.splitKick:
			e.splitPass()
		case done := <-e.idleReq:
			e.splitPass()
			close(done)
		}
	}
}

func (e *Engine) stopping() bool {
	select {
	case <-e.stop:
		return true
	default:
		return false
	}
}

// splitPass splits every region over its threshold, repeating until none
// is (a daughter can itself be over the threshold).
func (e *Engine) splitPass() {
	for !e.stopping() {
		if e.acquire() != nil {
			return
		}
		n := e.splitOversized()
		e.release()
		if n == 0 {
			return
		}
	}
}

func (e *Engine) splitOversized() (splits int) {
	for _, t := range e.sortedTables() {
		for _, r := range t.routing.Load().regions {
			if e.stopping() {
				return 0
			}
			at := r.splitAt.Load()
			if at == 0 || r.stats.size.Load() <= at {
				continue
			}
			e.adminMu.Lock()
			ok, err := e.splitLocked(r, nil, true)
			e.adminMu.Unlock()
			if err != nil {
				e.noteSplitError(err)
			}
			if ok {
				splits++
			}
		}
	}
	return splits
}

// splitErrs collects background split failures for WaitIdle to report.
type splitErrs struct {
	mu   sync.Mutex
	errs []error
}

func (e *Engine) noteSplitError(err error) {
	e.bgErrs.mu.Lock()
	e.bgErrs.errs = append(e.bgErrs.errs, err)
	e.bgErrs.mu.Unlock()
}

// WaitIdle waits until the splitter has split every region over its
// threshold (and the balancer has run), then reports background split
// errors since the last call. Writes made concurrently may need another
// call. After Close it returns at once.
func (e *Engine) WaitIdle() error {
	done := make(chan struct{})
	select {
	case e.idleReq <- done:
		<-done
	case <-e.stop:
	}
	e.bgErrs.mu.Lock()
	defer e.bgErrs.mu.Unlock()
	err := errors.Join(e.bgErrs.errs...)
	e.bgErrs.errs = nil
	return err
}

// SplitRegion splits a table's region like HBase's admin split: with a
// splitKey, the region holding it splits there (splitKey must not already be
// a region start); with nil, every region that holds at least two rows
// splits at its middle key.
func (e *Engine) SplitRegion(ctx context.Context, tableName string, splitKey []byte) error {
	t, err := e.enter(tableName)
	if err != nil {
		return err
	}
	defer e.release()
	e.adminMu.Lock()
	defer e.adminMu.Unlock()
	if len(splitKey) > 0 {
		r := t.routing.Load().find(splitKey)
		if bytes.Equal(r.info.Start, splitKey) {
			return fmt.Errorf("embedded: split %q: %w: %q is already a region boundary", tableName, store.ErrInvalid, splitKey)
		}
		_, err := e.splitLocked(r, splitKey, false)
		return err
	}
	split := false
	for _, r := range t.routing.Load().regions {
		if err := ctx.Err(); err != nil {
			return err
		}
		ok, err := e.splitLocked(r, nil, false)
		if err != nil {
			return err
		}
		split = split || ok
	}
	if !split {
		return fmt.Errorf("embedded: split %q: %w: no region holds two rows to split between", tableName, store.ErrInvalid)
	}
	return nil
}

// splitLocked splits r at splitKey, or at its middle key when splitKey is
// nil. For an automatic split (auto) it first re-measures the region and
// gives up if it is not really over the threshold (overwrites and deletes
// inflate the write-side estimate). It reports whether it split. Callers
// hold adminMu.
func (e *Engine) splitLocked(r *region, splitKey []byte, auto bool) (bool, error) {
	if r.retired.Load() {
		return false, nil
	}
	t := r.tbl
	mid, left, total, err := e.measure(t, r, splitKey)
	if err != nil {
		return false, fmt.Errorf("embedded: split %s: %w", r.info.Name, err)
	}
	if mid == nil || (auto && total <= r.splitAt.Load()) {
		// Nothing to split (one row, or smaller than thought): take the
		// measured size and do not try again until the region doubles.
		r.stats.size.Store(total)
		if auto {
			r.splitAt.Store(max(r.splitAt.Load(), 2*total))
		}
		return false, nil
	}

	id := e.newRegionID(r.info.ID)
	a := newRegion(t, r.info.Start, mid, id, r.info.Server, &regionStats{})
	b := newRegion(t, mid, r.info.End, id, r.info.Server, &regionStats{})
	a.stats.size.Store(left)
	b.stats.size.Store(total - left)

	batch := e.db.NewBatch()
	defer batch.Close()
	putRegionRecord(batch, a) // same start key: replaces the parent's record
	putRegionRecord(batch, b)
	e.setCounters(batch)
	if err := batch.Commit(pebble.Sync); err != nil {
		return false, fmt.Errorf("embedded: split %s: %w", r.info.Name, err)
	}
	regions := t.routing.Load().regions
	i := slices.Index(regions, r)
	next := make([]*region, 0, len(regions)+1)
	next = append(next, regions[:i]...)
	next = append(next, a, b)
	next = append(next, regions[i+1:]...)
	e.publish(t, next)
	return true, e.balanceLocked()
}

// measure scans r's data. It returns the total bytes (encoded keys and
// values) and, for the split point mid, the bytes below it. With splitKey
// nil, mid is the middle key: the first row, other than the region's first,
// where the bytes before it reach half the total, or the last row if no
// such row comes before it; nil if the region holds fewer than two rows.
// With splitKey set, mid is splitKey.
func (e *Engine) measure(t *table, r *region, splitKey []byte) (mid []byte, left, total int64, err error) {
	lower, upper := regionDataBounds(t.id, r.info.Start, r.info.End)
	total, err = e.sumBytes(lower, upper)
	if err != nil || splitKey != nil {
		if err == nil {
			left, err = e.sumBytes(lower, rowBound(t.id, splitKey))
		}
		return bytes.Clone(splitKey), left, total, err
	}

	it, err := e.db.NewIter(&pebble.IterOptions{LowerBound: lower, UpperBound: upper})
	if err != nil {
		return nil, 0, 0, err
	}
	defer it.Close()
	var cum, lastCum int64
	var prefix, lastRow []byte
	for ok := it.First(); ok; ok = it.Next() {
		k := it.Key()
		pl, err := rowPrefixLen(k)
		if err != nil {
			return nil, 0, 0, err
		}
		if !bytes.Equal(k[:pl], prefix) {
			if prefix != nil { // a row after the region's first
				if 2*cum >= total {
					return unescape(nil, k[tablePrefixLen:pl]), cum, total, nil
				}
				lastRow, lastCum = unescape(lastRow[:0], k[tablePrefixLen:pl]), cum
			}
			prefix = append(prefix[:0], k[:pl]...)
		}
		v, err := it.ValueAndErr()
		if err != nil {
			return nil, 0, 0, err
		}
		cum += int64(len(k) + len(v))
	}
	if err := it.Error(); err != nil {
		return nil, 0, 0, err
	}
	if lastRow != nil {
		return lastRow, lastCum, total, nil
	}
	return nil, 0, total, nil
}

// sumBytes totals the encoded keys and values in [lower, upper).
func (e *Engine) sumBytes(lower, upper []byte) (int64, error) {
	it, err := e.db.NewIter(&pebble.IterOptions{LowerBound: lower, UpperBound: upper})
	if err != nil {
		return 0, err
	}
	var n int64
	for ok := it.First(); ok; ok = it.Next() {
		v, err := it.ValueAndErr()
		if err != nil {
			it.Close()
			return 0, err
		}
		n += int64(len(it.Key()) + len(v))
	}
	return n, errors.Join(it.Error(), it.Close())
}

// balanceLocked evens out region counts like HBase's balancer: while the
// busiest server holds more than one region over the idlest, move one
// region from the busiest to the idlest. Ties break by server order; the
// region moved is the busiest server's newest (highest id, then last in
// table and key order), usually a fresh daughter. Callers hold adminMu.
func (e *Engine) balanceLocked() error {
	for !e.balancerOff.Load() {
		count := make(map[string]int, len(e.servers))
		newest := map[string]*region{}
		for _, t := range e.sortedTables() {
			for _, r := range t.routing.Load().regions {
				s := r.info.Server
				count[s]++
				if n := newest[s]; n == nil || r.info.ID >= n.info.ID {
					newest[s] = r
				}
			}
		}
		busiest, idlest := e.servers[0], e.servers[0]
		for _, s := range e.servers {
			if count[s] > count[busiest] {
				busiest = s
			}
			if count[s] < count[idlest] {
				idlest = s
			}
		}
		if count[busiest]-count[idlest] <= 1 {
			return nil
		}
		if err := e.moveLocked(newest[busiest], idlest); err != nil {
			return err
		}
	}
	return nil
}

// BalancerEnabled reports whether the balancer is on.
func (e *Engine) BalancerEnabled() bool { return !e.balancerOff.Load() }

// SetBalancer turns the balancer on or off, as HBase's admin
// balanceSwitch does, and returns whether it was on. Off, splits leave
// their daughters where the parent was; turned back on, it runs.
func (e *Engine) SetBalancer(on bool) (bool, error) {
	if err := e.acquire(); err != nil {
		return false, err
	}
	defer e.release()
	e.adminMu.Lock()
	defer e.adminMu.Unlock()
	prev := !e.balancerOff.Swap(!on)
	if on {
		return prev, e.balanceLocked()
	}
	return prev, nil
}
