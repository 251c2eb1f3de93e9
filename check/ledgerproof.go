package check

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"hash/maphash"
	"math"

	"commentbench/extsort"
	"commentbench/keys"
	"commentbench/model"
	"commentbench/results"
)

// ledgerProof reconciles a run's ledger with no sort where the two agree,
// as sums prove an index (see sums): the ledger's acknowledged records
// are summed by comment key and length before the comment pass, and each
// comment's key and the length its index keys are made from as the pass
// reads it. A bucket whose sums agree holds exactly the comments
// acknowledged there, each with the length it was written with: none
// lost, none unknown, none twice, and every index row the pass expected
// made from the right length. On a million comments the sort and walk
// this spares were a sixth of verify's time.
//
// Two kinds of comment wait for the ledger:
//   - An edited comment's index rows were made from the length it had
//     before the edit, which only the ledger knows. The pass files it
//     aside; the finish reads the ledger's records of those keys alone
//     (a Bloom filter picks them), sorted, and sums its rows then.
//   - A bucket whose sums differ is reconciled record by record: its
//     records sorted and walked alongside a second read of its comments,
//     as runLedger walks them all. A comment there whose recorded length
//     is not its own had its rows summed with the wrong one; they are
//     taken out and summed again.
type ledgerProof struct {
	want *sums // key and length of every acknowledged record; an unknown outcome's bucket open
	have *sums // key and length of every comment read
	// later are the edited comments (key -> appendHead), in key order;
	// filter holds their keys.
	later  *extsort.Sorter
	filter keyFilter
	r      *RunReport
}

// ledgerBuckets is how many buckets a ledger is summed in: 24 KiB a sums,
// which a core's cache keeps beside the indexes' (a fault costs the
// walk a second read of the comments however few buckets it fails).
const ledgerBuckets = 1 << 10

// proveLedger sums the run's ledger up for a proof. It returns nil if a
// record has no length or one no key can hold (a ledger from before
// lengths, or a corrupt one): then only the sorted walk tells what the
// check must know.
func (c *checker) proveLedger(r *RunReport) (*ledgerProof, error) {
	l := &ledgerProof{want: newSumsOf(math.MaxInt, ledgerBuckets), have: newSumsOf(math.MaxInt, ledgerBuckets), later: c.sorter(), r: r}
	lengths := true
	torn, err := results.ReadLedger(c.o.RunDir, func(rec results.LedgerRecord) error {
		switch {
		case rec.Len < 0 || rec.Len > math.MaxInt32:
			lengths = false
		case rec.Status == results.Acked:
			l.want.add(rec.Key, lenVal(rec.Len))
		default:
			l.want.leaveOpen(rec.Key)
		}
		return nil
	})
	r.TornTails = int64(torn)
	if err != nil || !lengths {
		l.later.Close()
		if err != nil {
			return nil, fmt.Errorf("--run: %w", err)
		}
		return nil, nil
	}
	return l, nil
}

// lenVal is a length as the sums take it.
func lenVal(n int) []byte { return binary.BigEndian.AppendUint32(nil, uint32(n)) }

func (l *ledgerProof) at(_ *checker, pc *parsed) (int, error) {
	ck := pc.row.Key
	if pc.err == nil && pc.cm.IsEdited {
		l.filter.add(ck)
		return lengthLater, l.later.Add(ck, appendHead(nil, pc.cm))
	}
	// A bad comment is summed too: its presence is all the run's report
	// says of it, and its rows are none.
	l.have.add(ck, lenVal(pc.cm.ContentLen))
	return -1, nil
}

// finish sums up the edited comments, counts the proved buckets' records
// acknowledged and present, and walks the others'.
func (l *ledgerProof) finish(ctx context.Context, c *checker, p *pass) (*RunReport, error) {
	if err := l.sumLater(c, p); err != nil {
		return nil, err
	}
	join, proved := l.want.unproved(l.have)
	l.r.Acked += proved
	if join != nil {
		if err := l.walkUnproved(ctx, c, p, join); err != nil {
			return nil, err
		}
	}
	return l.r, nil
}

// sumLater files the edited comments' index rows, made from the first
// length the ledger recorded for each (as runLedger's walk takes it), or
// loosely for a comment the ledger does not hold.
func (l *ledgerProof) sumLater(c *checker, p *pass) error {
	if l.later.Len() == 0 {
		return nil
	}
	lens := c.sorter() // the filtered records: key -> length, in the ledger's order
	defer lens.Close()
	if _, err := results.ReadLedger(c.o.RunDir, func(rec results.LedgerRecord) error {
		if !l.filter.has(rec.Key) {
			return nil
		}
		return lens.Add(rec.Key, lenVal(rec.Len))
	}); err != nil {
		return fmt.Errorf("--run: %w", err)
	}
	recs, err := lens.Sort()
	if err != nil {
		return fmt.Errorf("--run: %w", err)
	}
	ok := recs.Next()
	for e, err := range sorted(l.later) {
		if err != nil {
			return err
		}
		for ok && bytes.Compare(recs.Record().Key, e.Key) < 0 {
			ok = recs.Next()
		}
		cm := decodeHead(e.Val)
		written, loose := cm.ContentLen, true // not the run's: matched loosely, as with no ledger
		if ok && bytes.Equal(recs.Record().Key, e.Key) {
			written, loose = int(binary.BigEndian.Uint32(recs.Record().Val)), false
			l.have.add(e.Key, lenVal(written))
			p.lengths = true
		}
		ix, err := c.recordedKeys(cm, written)
		if err != nil {
			return err
		}
		p.wantRows(e.Key, ix, loose)
	}
	return recs.Err()
}

// recordedKeys are the index keys of a comment the pass parsed, made
// with a length the ledger recorded. The pass made the comment's keys
// with its own length, and a length in range (see proveLedger) fails no
// key that another did not: an error here is the check's own.
func (c *checker) recordedKeys(cm model.CommentHead, written int) ([maxIndexes][]byte, error) {
	ix, err := c.indexKeys(cm, written)
	if err != nil {
		return ix, fmt.Errorf("check: index keys of a parsed comment with its recorded length %d: %w", written, err)
	}
	return ix, nil
}

// walkUnproved reconciles the records of the buckets the sums did not
// prove, walking them sorted alongside a second read of the comments.
func (l *ledgerProof) walkUnproved(ctx context.Context, c *checker, p *pass, join []bool) error {
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
		if !unproved(row.Key) {
			continue
		}
		written := walk.lengthAt(c, row.Key)
		if written < 0 {
			continue
		}
		pc := c.parse(row)
		if pc.err != nil || pc.cm.IsEdited || written == pc.cm.ContentLen {
			continue // bad, summed later with its recorded length, or summed right
		}
		ix, err := c.recordedKeys(pc.cm, written)
		if err != nil {
			return err
		}
		p.lengths = true
		p.unwantRows(row.Key, pc.ix)
		p.wantRows(row.Key, ix, false)
	}
	_, err = walk.finish(ctx, c, p)
	return err
}

// appendHead and decodeHead keep what an edited comment's index keys are
// made from while it waits for its length.
func appendHead(b []byte, cm model.CommentHead) []byte {
	for _, s := range [...]string{cm.OrderID, cm.ProductID, cm.UserID} {
		b = binary.AppendUvarint(b, uint64(len(s)))
		b = append(b, s...)
	}
	b = binary.BigEndian.AppendUint64(b, uint64(cm.Timestamp))
	return binary.BigEndian.AppendUint32(b, uint32(cm.ContentLen))
}

func decodeHead(b []byte) model.CommentHead {
	var ids [3]string
	for i := range ids {
		n, w := binary.Uvarint(b)
		ids[i], b = string(b[w:w+int(n)]), b[w+int(n):]
	}
	return model.CommentHead{OrderID: ids[0], ProductID: ids[1], UserID: ids[2], IsEdited: true,
		Timestamp: int64(binary.BigEndian.Uint64(b)), ContentLen: int(binary.BigEndian.Uint32(b[8:]))}
}

func (l *ledgerProof) close() error { return l.later.Close() }

// keyFilter is a Bloom filter of keys: 2 MiB, made on the first add,
// with 4 probes; at a million keys one key in 500 not added passes.
type keyFilter struct{ bits []uint64 }

const filterBits = 1 << 24

var filterSeed = maphash.MakeSeed()

func (f *keyFilter) probes(key []byte) (h1, h2 uint64) {
	h := maphash.Bytes(filterSeed, key)
	return h, h>>32 | h<<32 | 1
}

func (f *keyFilter) add(key []byte) {
	if f.bits == nil {
		f.bits = make([]uint64, filterBits/64)
	}
	h1, h2 := f.probes(key)
	for i := range uint64(4) {
		b := (h1 + i*h2) % filterBits
		f.bits[b/64] |= 1 << (b % 64)
	}
}

func (f *keyFilter) has(key []byte) bool {
	if f.bits == nil {
		return false
	}
	h1, h2 := f.probes(key)
	for i := range uint64(4) {
		b := (h1 + i*h2) % filterBits
		if f.bits[b/64]&(1<<(b%64)) == 0 {
			return false
		}
	}
	return true
}
