package embedded

import (
	"bytes"
	"encoding/binary"
	"errors"
	"slices"
	"testing"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/vfs"
)

// Table records: a one-family table without options writes the short
// form; anything more the extension; both decode to what was encoded, and
// a record that is neither is refused.
func TestTableRecordForms(t *testing.T) {
	for _, c := range []struct {
		rec      tableRecord
		extended bool
	}{
		{tableRecord{id: 1, families: []family{{name: "cf"}}}, false},
		{tableRecord{id: 300, families: []family{{name: "a"}, {name: "b"}}}, true},
		{tableRecord{id: 2, families: []family{{name: "a"}, {name: "b"}}, def: 1}, true},
		{tableRecord{id: 3, families: []family{{name: "cf"}}, cellTTL: true}, true},
		{tableRecord{id: 4, families: []family{{name: "cf", maxVersions: 2}}}, true},
		{tableRecord{id: 5, families: []family{{name: "a"}, {name: "b", maxVersions: 9}, {name: "c"}}, def: 2, cellTTL: true}, true},
	} {
		if got := c.rec.extended(); got != c.extended {
			t.Errorf("%+v: extended %v", c.rec, got)
		}
		enc := c.rec.encode()
		short := len(binary.AppendUvarint(nil, c.rec.id)) + 1 + len(c.rec.families[0].name)
		if (len(enc) > short) != c.extended {
			t.Errorf("%+v: %d bytes, short form %d", c.rec, len(enc), short)
		}
		back, err := decodeTableRecord(enc)
		if err != nil || back.id != c.rec.id || !slices.Equal(back.families, c.rec.families) || back.def != c.rec.def || back.cellTTL != c.rec.cellTTL {
			t.Errorf("%+v decoded as %+v, %v", c.rec, back, err)
		}
	}
	two := tableRecord{id: 1, families: []family{{name: "a"}, {name: "b"}}, def: 1}.encode()
	for name, bad := range map[string][]byte{
		"unknown extension":    append(binary.AppendUvarint(nil, 1), 1, 'a', 2),
		"default out of range": append(slices.Clone(two[:len(two)-2]), 2, 0),
		"a byte after it":      append(slices.Clone(two), 0),
		"truncated":            two[:len(two)-1],
		"empty":                nil,
		"name cut short":       append(binary.AppendUvarint(nil, 1), 3, 'a'),
	} {
		if _, err := decodeTableRecord(bad); !errors.Is(err, errCorruptMeta) {
			t.Errorf("%s: decodeTableRecord(%q) = %v", name, bad, err)
		}
	}
}

// Region records keep the end (none, empty or a key), the id, the server
// and the size (a negative size as 0); a truncated one is refused.
func TestRegionRecordForms(t *testing.T) {
	for _, rec := range []regionRecord{
		{end: nil, id: 1, server: "rs1", size: 0},
		{end: []byte{}, id: 2, server: "rs2", size: 1 << 40},
		{end: []byte("m\x00"), id: 1 << 60, server: "", size: 5},
	} {
		enc := rec.encode()
		back, err := decodeRegionRecord(enc)
		if err != nil || !bytes.Equal(back.end, rec.end) || (back.end == nil) != (rec.end == nil) || back.id != rec.id || back.server != rec.server || back.size != rec.size {
			t.Errorf("%+v decoded as %+v, %v", rec, back, err)
		}
		for n := range len(enc) {
			if _, err := decodeRegionRecord(enc[:n]); !errors.Is(err, errCorruptMeta) {
				t.Errorf("%+v cut to %d bytes: %v", rec, n, err)
			}
		}
	}
	if back, err := decodeRegionRecord(regionRecord{id: 1, size: -5}.encode()); err != nil || back.size != 0 {
		t.Errorf("negative size decoded as %d, %v", back.size, err)
	}
	d := decoder{b: appendField(nil, []byte("abc"))}
	if f := d.field(); string(f) != "abc" || d.err != nil || len(d.b) != 0 {
		t.Errorf("a field that ends the record: %q, %v", f, d.err)
	}
	d = decoder{b: []byte{4, 'a', 'b', 'c'}}
	if f := d.field(); f != nil || !errors.Is(d.err, errCorruptMeta) {
		t.Errorf("a field longer than the record: %q, %v", f, d.err)
	}
}

// corruptMeta writes an engine data dir with a table "t" split at "m", then
// lets edit change its Pebble DB directly, and reopens it.
func corruptMeta(t *testing.T, edit func(db *pebble.DB, id uint64)) error {
	t.Helper()
	fs := vfs.NewMem()
	e, err := Open(Options{FS: fs, CreateIfMissing: true, DisableSplits: true})
	if err != nil {
		t.Fatal(err)
	}
	mustCreate(t, e, "t", "m", "t")
	tb, _ := e.table("t")
	id := tb.id
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	db, err := pebble.Open("engine", pebbleOptions(fs, nil))
	if err != nil {
		t.Fatal(err)
	}
	edit(db, id)
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	e, err = Open(Options{FS: fs, DisableSplits: true})
	if err == nil {
		e.Close()
	}
	return err
}

// Open refuses metadata that does not describe a table: a counter of the
// wrong size, a bad table record, region records that leave a gap, do not
// start at the table's start or do not run to its end, or none at all.
func TestOpenRefusesCorruptMeta(t *testing.T) {
	set := func(k, v []byte) func(*pebble.DB, uint64) {
		return func(db *pebble.DB, _ uint64) { db.Set(k, v, pebble.Sync) }
	}
	region := func(id uint64, start string) []byte { return regionRecordKey(id, []byte(start)) }
	if err := corruptMeta(t, func(*pebble.DB, uint64) {}); err != nil {
		t.Fatalf("untouched: %v", err)
	}
	for name, edit := range map[string]func(*pebble.DB, uint64){
		"next table id of 7 bytes":  set(keyNextTableID, make([]byte, 7)),
		"last region id of 9 bytes": set(keyLastRegionID, make([]byte, 9)),
		"round robin of 0 bytes":    set(keyRoundRobin, []byte{}),
		"table record with a tail":  set(tableRecordKey("t"), []byte{0, 2, 'c', 'f', 9}),
		"no first region":           func(db *pebble.DB, id uint64) { db.Delete(region(id, ""), pebble.Sync) },
		"a gap": func(db *pebble.DB, id uint64) {
			db.Set(region(id, ""), regionRecord{end: []byte("k"), id: 1, server: "rs1"}.encode(), pebble.Sync)
		},
		"last region with an end": func(db *pebble.DB, id uint64) {
			db.Set(region(id, "t"), regionRecord{end: []byte("z"), id: 1, server: "rs1"}.encode(), pebble.Sync)
		},
		"middle region to the end": func(db *pebble.DB, id uint64) {
			db.Set(region(id, "m"), regionRecord{end: nil, id: 1, server: "rs1"}.encode(), pebble.Sync)
		},
		"no regions": func(db *pebble.DB, id uint64) {
			lo, hi := regionRecordBounds(id)
			db.DeleteRange(lo, hi, pebble.Sync)
		},
		"a truncated region record": func(db *pebble.DB, id uint64) {
			db.Set(region(id, "m"), []byte{1, 1}, pebble.Sync)
		},
	} {
		if err := corruptMeta(t, edit); !errors.Is(err, errCorruptMeta) {
			t.Errorf("%s: Open = %v, want corrupt metadata", name, err)
		}
	}
}
