package hbase

import "testing"

func TestRegionCacheOverlap(t *testing.T) {
	var rc regionCache
	rc.tables = map[string][]*region{}
	mk := func(name, start, end string, id uint64, addr string) *region {
		return &region{table: "t", name: []byte(name), start: []byte(start), end: []byte(end), id: id, addr: addr}
	}
	parent := mk("p", "", "", 10, "a")
	rc.put(parent)
	if r := rc.get("t", []byte("x")); r != parent {
		t.Fatal("lookup in whole-table region")
	}
	// Daughters (newer id) evict the parent.
	da, db := mk("da", "", "m", 11, "a"), mk("db", "m", "", 11, "b")
	rc.put(da)
	if r := rc.get("t", []byte("x")); r != nil {
		t.Fatalf("parent still cached: %v", r)
	}
	rc.put(db)
	if rc.get("t", []byte("a")) != da || rc.get("t", []byte("m")) != db || rc.get("t", []byte("z")) != db {
		t.Fatal("daughters not found")
	}
	// A stale (older) overlapping region is refused.
	rc.put(mk("old", "", "", 9, "c"))
	if rc.get("t", []byte("a")) != da {
		t.Fatal("stale region replaced a newer one")
	}
	// Same name, new address (a move) replaces the entry.
	moved := mk("db", "m", "", 11, "c")
	rc.put(moved)
	if got := rc.get("t", []byte("q")); got != moved || got.addr != "c" {
		t.Fatalf("moved region %v", got)
	}
	rc.removeAddr("a")
	if rc.get("t", []byte("a")) != nil || rc.get("t", []byte("q")) == nil {
		t.Fatal("removeAddr")
	}
	rc.remove(moved)
	if rc.get("t", []byte("q")) != nil {
		t.Fatal("remove")
	}
	if rc.get("other", []byte("q")) != nil {
		t.Fatal("other table")
	}
}

func TestKeyBeforeAndBackoff(t *testing.T) {
	if got := string(keyBefore([]byte("ab\x00"))); got != "ab" {
		t.Fatalf("keyBefore = %q", got)
	}
	if got := string(keyBefore([]byte("ab"))); got != "aa\xff\xff\xff\xff\xff\xff\xff\xff" {
		t.Fatalf("keyBefore = %q", got)
	}
	if backoff(1) != 16e6 || backoff(2) != 32e6 || backoff(100) != 5e9 {
		t.Fatal("backoff")
	}
}
