// Package embedded is an HBase-shaped store.Store that runs in the process,
// on one Pebble database.
//
// It owns: the on-disk layout (keys.go), HBase's cell model (versions by
// timestamp; DeleteFamily, DeleteFamilyVersion, DeleteColumn and Delete
// markers, see versions.go; per-cell TTLs), tables of one or more column
// families with never-reused ids (families.go), regions as logical key
// ranges with hbase:meta-like records (meta.go, regions.go), automatic
// splits by HBase 2.x's SteppingSplitPolicy and a region-count balancer
// over simulated region servers (split.go), per-region request counters,
// the read and write paths (read.go; columns.go, which reads a row's
// named columns or a slice of them, and a scan's rows in batches;
// write.go), atomic row updates for HBase's conditional and
// read-modify-write operations (rowops.go), and table snapshots
// (snapshot.go).
//
// It must not know the comment schema: row keys, qualifiers and values are
// opaque bytes here. Anything about what rows mean belongs to the packages
// above store.
//
// Durability: data writes are not synced (pebble.NoSync) unless Options.Sync,
// so a crash can lose the most recent writes, as HBase with deferred WAL
// flush can; metadata
// changes (create, drop, split, move) are synced, and Close flushes
// everything. Only one process can open a data dir at a time (Pebble locks
// it); a reader such as the verify tool opens it after the writer closed it,
// without Options.CreateIfMissing so a wrong path fails instead of creating
// an empty store.
//
// Versions: a put at an existing (row, qualifier, timestamp) replaces the
// value; a put with a new timestamp adds a version. Older versions stay on
// disk (there is no compaction of versions) and reads skip them; a delete
// removes what it hides physically and leaves its marker, which masks later
// puts it covers, as HBase's markers do until a major compaction.
package embedded
