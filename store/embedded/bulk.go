package embedded

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"

	"commentbench/store"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/objstorage/objstorageprovider"
	"github.com/cockroachdb/pebble/v2/sstable"
)

// Bulk load, as HBase's: rows already sorted are written into SSTables,
// one per region they fall in (HBase's HFiles, one per region), and the
// tables are handed to Pebble whole (DB.Ingest), so no write goes through
// the WAL or the memtable. The regions' counters and sizes are charged as
// the same rows put one by one would have charged them, and a region the
// load leaves over its split size is split at once at rows the load
// noted, without the scan an automatic split makes to find its middle.

// BulkStats is what a bulk load wrote.
type BulkStats struct {
	Rows, Cells int64
	Files       int
	Bytes       int64 // encoded keys and values
	Splits      int   // regions split because the load filled them
}

// bulkSampleEvery is how far apart (in encoded bytes) a region's load
// notes a row where it could be split.
const bulkSampleEvery = 256 << 10

// bulkSample is a row of the load where a region may be cut, with what
// the load wrote into the region before it.
type bulkSample struct {
	row                   []byte
	size, writes, bytesIn int64
}

// bulkRegion is what the load wrote into one region.
type bulkRegion struct {
	r                     *region
	first                 []byte // the load's first row in it
	size, writes, bytesIn int64
	samples               []bulkSample
}

// note charges one row, and notes it as a cut when the last is far enough.
func (b *bulkRegion) note(row []byte, size, bytesIn, writes int64) {
	if b.size > 0 && (len(b.samples) == 0 || b.size-b.samples[len(b.samples)-1].size >= bulkSampleEvery) {
		b.samples = append(b.samples, bulkSample{row: row, size: b.size, writes: b.writes, bytesIn: b.bytesIn})
	}
	b.size += size
	b.bytesIn += bytesIn
	b.writes += writes
}

// bulkFileSeq names a load's table files apart from any other's.
var bulkFileSeq atomic.Uint64

// BulkLoad writes rows into table's default family: each part returns
// its rows in strictly ascending key order, and false after the last,
// every row of a part sorting before every row of the next. Parts are
// written side by side, each into files of its own, and ingested
// together. The table's rows may already hold other cells (a wide
// design's listing in an entity's row): what the load writes joins them,
// and replaces a cell of the same qualifier and timestamp.
func (e *Engine) BulkLoad(ctx context.Context, tableName string, parts ...func() (store.BulkRow, bool)) (BulkStats, error) {
	t, err := e.enter(tableName)
	if err != nil {
		return BulkStats{}, err
	}
	defer e.release()
	if e.opts.ReadOnly {
		return BulkStats{}, fmt.Errorf("embedded: bulk load %q: %w: opened read-only", tableName, store.ErrInvalid)
	}
	rt, now := t.routing.Load(), e.now()
	bws := make([]*bulkWriter, len(parts))
	for i := range bws {
		bws[i] = &bulkWriter{e: e, t: t, rt: rt, now: now}
		defer bws[i].removeFiles()
	}
	st, err := writeParts(ctx, bws, parts)
	if err != nil {
		return st, fmt.Errorf("embedded: bulk load %q: %w", tableName, err)
	}
	var paths []string
	for _, bw := range bws {
		paths = append(paths, bw.paths...)
	}
	if len(paths) > 0 {
		if err := e.db.Ingest(ctx, paths); err != nil {
			e.failed(err)
			return st, fmt.Errorf("embedded: bulk load %q: ingest: %w", tableName, err)
		}
	}
	st.Splits, err = e.chargeBulk(joinRegions(bws))
	if err != nil {
		return st, fmt.Errorf("embedded: bulk load %q: %w", tableName, err)
	}
	e.kickSplitter() // what the cuts left over its split size
	return st, nil
}

// writeParts writes each part with its writer, side by side, and checks
// that each part's rows sort after the part's before.
func writeParts(ctx context.Context, bws []*bulkWriter, parts []func() (store.BulkRow, bool)) (BulkStats, error) {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	stats := make([]BulkStats, len(parts))
	var wg sync.WaitGroup
	for i, next := range parts {
		wg.Go(func() {
			var err error
			if stats[i], err = bws[i].write(ctx, next); err != nil {
				cancel(err)
			}
		})
	}
	wg.Wait()
	var st BulkStats
	for i, s := range stats {
		st.Rows, st.Cells, st.Files, st.Bytes = st.Rows+s.Rows, st.Cells+s.Cells, st.Files+s.Files, st.Bytes+s.Bytes
		if first := bws[i].first(); i > 0 && first != nil && bws[i-1].last != nil && string(first) <= string(bws[i-1].last) {
			cancel(fmt.Errorf("%w: part %d starts at row %q, not after part %d's last, %q", store.ErrInvalid, i, first, i-1, bws[i-1].last))
		}
	}
	return st, context.Cause(ctx)
}

// joinRegions is what every part wrote, by region in key order: a region
// two parts wrote into is one, the second part's rows after the first's.
func joinRegions(bws []*bulkWriter) []*bulkRegion {
	var out []*bulkRegion
	for _, bw := range bws {
		for i, b := range bw.regions {
			if i == 0 && len(out) > 0 && out[len(out)-1].r == b.r {
				out[len(out)-1].join(b)
				continue
			}
			out = append(out, b)
		}
	}
	return out
}

// join adds what the load wrote into the same region after b's rows.
func (b *bulkRegion) join(next *bulkRegion) {
	b.samples = append(b.samples, bulkSample{row: next.first, size: b.size, writes: b.writes, bytesIn: b.bytesIn})
	for _, s := range next.samples {
		b.samples = append(b.samples, bulkSample{row: s.row, size: b.size + s.size, writes: b.writes + s.writes, bytesIn: b.bytesIn + s.bytesIn})
	}
	b.size += next.size
	b.writes += next.writes
	b.bytesIn += next.bytesIn
}

// bulkWriter writes one table's load, a file per region.
type bulkWriter struct {
	e       *Engine
	t       *table
	rt      *routing
	now     int64
	w       *sstable.Writer
	cur     *bulkRegion
	regions []*bulkRegion
	paths   []string
	key     []byte
	sealed  []byte
	last    []byte
}

func (bw *bulkWriter) write(ctx context.Context, next func() (store.BulkRow, bool)) (BulkStats, error) {
	var st BulkStats
	for n := 0; ; n++ {
		row, ok := next()
		if !ok {
			break
		}
		if n%4096 == 0 && ctx.Err() != nil {
			return st, ctx.Err()
		}
		if err := bw.row(row, &st); err != nil {
			return st, err
		}
	}
	st.Files = len(bw.paths)
	return st, bw.finish()
}

// row writes one row into its region's file.
func (bw *bulkWriter) row(row store.BulkRow, st *BulkStats) error {
	if len(row.Key) == 0 {
		return fmt.Errorf("%w: empty row key", store.ErrInvalid)
	}
	if bw.last != nil && string(row.Key) <= string(bw.last) {
		return fmt.Errorf("%w: row %q after %q: rows must come in ascending order", store.ErrInvalid, row.Key, bw.last)
	}
	bw.last = row.Key
	if bw.cur == nil || !bw.cur.r.info.Contains(row.Key) {
		if err := bw.startRegion(bw.rt.find(row.Key), row.Key); err != nil {
			return err
		}
	}
	var size, bytesIn int64
	for i, c := range row.Cells {
		if i > 0 && string(c.Qualifier) <= string(row.Cells[i-1].Qualifier) {
			return fmt.Errorf("%w: row %q: qualifiers must come in ascending order, once each", store.ErrInvalid, row.Key)
		}
		var v []byte
		bw.key, v = cellKV(bw.key[:0], bw.sealed[:0], bw.t, row.Key, c, bw.now)
		if bw.t.cellTTL {
			bw.sealed = v
		}
		if err := bw.w.Set(bw.key, v); err != nil {
			return err
		}
		size += int64(len(bw.key) + len(v))
		bytesIn += int64(len(row.Key) + len(c.Qualifier) + len(c.Value))
	}
	bw.cur.note(row.Key, size, bytesIn, max(row.Writes, 1))
	st.Rows++
	st.Cells += int64(len(row.Cells))
	st.Bytes += size
	return nil
}

// first is the first row written, nil before any.
func (bw *bulkWriter) first() []byte {
	if len(bw.regions) == 0 {
		return nil
	}
	return bw.regions[0].first
}

// startRegion closes the file of the region before and opens r's.
func (bw *bulkWriter) startRegion(r *region, row []byte) error {
	if err := bw.finish(); err != nil {
		return err
	}
	path := bw.e.fs.PathJoin(bw.e.dir, fmt.Sprintf("bulk-%d-%d.sst", bw.t.id, bulkFileSeq.Add(1)))
	f, err := bw.e.fs.Create(path, "")
	if err != nil {
		return err
	}
	bw.paths = append(bw.paths, path)
	bw.w = sstable.NewWriter(objstorageprovider.NewFileWritable(f), bw.e.writerOptions())
	bw.cur = &bulkRegion{r: r, first: row}
	bw.regions = append(bw.regions, bw.cur)
	return nil
}

// finish closes the file being written, if any.
func (bw *bulkWriter) finish() error {
	if bw.w == nil {
		return nil
	}
	err := bw.w.Close()
	bw.w = nil
	return err
}

// removeFiles removes the load's own names of its files: Pebble keeps
// what it ingested under names of its own.
func (bw *bulkWriter) removeFiles() {
	if bw.w != nil {
		_ = bw.w.Close()
	}
	for _, p := range bw.paths {
		_ = bw.e.fs.Remove(p)
	}
}

// writerOptions are the table options the DB's own flushes write with:
// its comparer (rows as bloom prefixes), filters and block format.
func (e *Engine) writerOptions() sstable.WriterOptions {
	po := pebbleOptions(e.fs, nil)
	po.EnsureDefaults()
	return po.MakeWriterOptions(0, e.db.TableFormat())
}

// chargeBulk charges each region what the load wrote into it, splitting
// one the load filled past its split size first.
func (e *Engine) chargeBulk(loaded []*bulkRegion) (splits int, err error) {
	e.adminMu.Lock()
	defer e.adminMu.Unlock()
	for _, b := range loaded {
		r := b.r
		if r.retired.Load() { // split while the load wrote: charged where its start went
			chargeRegion(r.tbl.routing.Load().find(r.info.Start), b.size, b.writes, b.bytesIn)
			continue
		}
		cuts := bulkCuts(b, r.stats.size.Load(), r.splitAt.Load(), e.opts.MaxRegionSize)
		if len(cuts) == 0 {
			chargeRegion(r, b.size, b.writes, b.bytesIn)
			continue
		}
		if err := e.splitAtCuts(r, b, cuts); err != nil {
			return splits, err
		}
		splits += len(cuts)
	}
	if splits > 0 {
		return splits, e.balanceLocked()
	}
	return 0, nil
}

func chargeRegion(r *region, size, writes, bytesIn int64) {
	r.stats.size.Add(size)
	r.stats.writeRequests.Add(uint64(writes))
	r.stats.bytesIn.Add(uint64(bytesIn))
}

// bulkCuts picks where to cut a region the load filled past splitAt: into
// the fewest halves, quarters, ... that each fit maxSize, as splits in
// halves during a put-by-put load would have left it. None when it fits,
// or splits are off (splitAt 0).
func bulkCuts(b *bulkRegion, had, splitAt, maxSize int64) []bulkSample {
	total := had + b.size
	if splitAt <= 0 || total <= splitAt || len(b.samples) == 0 {
		return nil
	}
	pieces := int64(2)
	for total/pieces > maxSize {
		pieces *= 2
	}
	var cuts []bulkSample
	at := 0
	for i := int64(1); i < pieces; i++ {
		want := i*total/pieces - had
		for at < len(b.samples) && b.samples[at].size < want {
			at++
		}
		if at == len(b.samples) {
			break
		}
		if len(cuts) == 0 || cuts[len(cuts)-1].size != b.samples[at].size {
			cuts = append(cuts, b.samples[at])
		}
	}
	return cuts
}

// splitAtCuts replaces r by daughters cut at the rows cuts name, each
// charged what the load wrote into it (the first also what r held
// before): one synced meta batch, then a new routing, as splitLocked does.
// Callers hold adminMu.
func (e *Engine) splitAtCuts(r *region, b *bulkRegion, cuts []bulkSample) error {
	t := r.tbl
	id := e.newRegionID(r.info.ID)
	bounds := append([]bulkSample{{row: r.info.Start}}, cuts...)
	bounds = append(bounds, bulkSample{size: b.size, writes: b.writes, bytesIn: b.bytesIn})
	daughters := make([]*region, len(bounds)-1)
	for i := range daughters {
		end := bounds[i+1].row
		if i == len(daughters)-1 {
			end = r.info.End
		}
		d := newRegion(t, slices.Clone(bounds[i].row), slices.Clone(end), id, r.info.Server, &regionStats{})
		from, to := bounds[i], bounds[i+1]
		chargeRegion(d, to.size-from.size, to.writes-from.writes, to.bytesIn-from.bytesIn)
		daughters[i] = d
	}
	chargeRegion(daughters[0], r.stats.size.Load(), 0, 0)
	batch := e.db.NewBatch()
	defer batch.Close()
	for _, d := range daughters {
		putRegionRecord(batch, d)
	}
	e.setCounters(batch)
	if err := batch.Commit(pebble.Sync); err != nil {
		return fmt.Errorf("split %s after the load: %w", r.info.Name, err)
	}
	regions := t.routing.Load().regions
	i := slices.Index(regions, r)
	next := make([]*region, 0, len(regions)+len(daughters)-1)
	next = append(next, regions[:i]...)
	next = append(next, daughters...)
	next = append(next, regions[i+1:]...)
	e.publish(t, next)
	return nil
}
