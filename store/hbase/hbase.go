// Package hbasestore is store.Store over an HBase cluster, through the
// project's native client (commentbench/hbase).
//
// It owns what the harness may do to a cluster it does not own: its tables
// live under a prefix, each table instance it creates is marked in a
// registry table of its own and in an owner row inside it, and it refuses
// to write into or drop a table it did not create, or cannot tell. It also attributes every request to the region and server that
// served it, so the region spread comes from the client side. It must not
// know the comment schema.
package hbasestore

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"commentbench/hbase"
	"commentbench/store"
)

// Options configure a Store.
type Options struct {
	Client hbase.Options
	// Prefix names the harness's tables in the cluster: store table t is
	// HBase table Prefix+t.
	Prefix string
	// ReuseTables lets the harness write into existing tables it did not
	// create (it never drops them).
	ReuseTables bool
	// Family is the column family of tables the harness did not create
	// itself (its own tables record theirs).
	Family string
	// ReadOnly refuses every create, write and drop before it reaches the
	// cluster: a check must not change what it checks.
	ReadOnly bool
	// Expect names the tables the caller is about to create or write. Open
	// decides who owns each first and fails when one is not the harness's
	// (unless ReuseTables), so a refused run has created nothing.
	Expect []string
}

// Registry is the table, under the prefix, that marks the tables the
// harness created: one row per table, with its column family and the
// instance id of the table it made.
const Registry = "harness-tables"

var (
	registryFamily = "m"
	registryQual   = []byte("family")
	instanceQual   = []byte("instance")
)

// ownerRow is the row, inside every table the harness creates, holding the
// instance id its mark names: a table dropped and made again under the same
// name lacks it, so a mark by name alone never adopts someone else's table.
// It sorts after any key the harness writes, so only scans reaching a
// table's end meet it, and the row methods hide it.
var ownerRow = []byte("\xff\xff\xff\xff\xff\xff\xff\xffcommentbench-owner")

var (
	// ErrRefused is the harness being unable to make or use its tables: one
	// is not its own, who owns one cannot be told, or the cluster denies a
	// change. Commands treat it as an unusable cluster (exit 2).
	ErrRefused = errors.New("refused")
	// ErrForeignTable is an existing table the harness did not create; it
	// is an ErrRefused.
	ErrForeignTable = errors.New("table not created by commentbench")
	// ErrReadOnly is a change asked of a store opened ReadOnly.
	ErrReadOnly = errors.New("the store is open read-only")
)

// refusal is an error that is an ErrRefused, its text unchanged.
type refusal struct{ error }

func (r refusal) Unwrap() error        { return r.error }
func (r refusal) Is(target error) bool { return target == ErrRefused }

// refused wraps a failure that leaves the harness unable to make or use
// its tables, giving its context.
func refused(format string, args ...any) error { return refusal{fmt.Errorf(format, args...)} }

// denied says what a change the cluster denied needs; other failures stay
// as they are.
func denied(err error) string {
	if errors.Is(err, hbase.ErrAccessDenied) {
		return "the cluster denies it (the harness needs create, write and admin rights on the tables under its prefix)"
	}
	return "failed"
}

// Store is store.Store over one HBase cluster.
type Store struct {
	c    *hbase.Client
	o    Options
	attr *attribution
	mu   sync.Mutex
	// marks are the registry's families by table, for ListTables.
	marks map[string]string
	// owners are settled verdicts (ours or foreign) by table; an absent
	// table is asked about again.
	owners map[string]verdict
}

var _ store.Store = (*Store)(nil)

// Open dials the cluster, reads the registry and, with Expect, decides who
// owns each expected table.
func Open(ctx context.Context, o Options) (*Store, error) {
	if o.Family == "" {
		o.Family = "cf"
	}
	c, err := hbase.Dial(ctx, o.Client)
	if err != nil {
		return nil, err
	}
	s := &Store{c: c, o: o, marks: map[string]string{}, owners: map[string]verdict{}, attr: newAttribution()}
	if err := s.loadRegistry(ctx); err != nil {
		c.Close()
		return nil, err
	}
	if len(o.Expect) > 0 && !o.ReadOnly {
		if err := s.preflight(ctx, o.Expect); err != nil {
			c.Close()
			return nil, err
		}
	}
	return s, nil
}

func (s *Store) name(table string) string { return s.o.Prefix + table }

// loadRegistry reads the marks' families; a cluster the harness never used
// has no registry.
func (s *Store) loadRegistry(ctx context.Context) error {
	_, err := s.c.Scan(ctx, s.name(Registry), hbase.Scan{}, func(r hbase.Result) bool {
		fam := s.o.Family
		if v, ok := cellValue(r, registryQual); ok {
			fam = string(v)
		}
		s.marks[string(r.Row)] = fam
		return true
	})
	if errors.Is(err, hbase.ErrTableNotFound) {
		return nil
	}
	if err != nil {
		return refused("read %s: %w", s.name(Registry), err)
	}
	return nil
}

func cellValue(r hbase.Result, qual []byte) ([]byte, bool) {
	for _, c := range r.Cells {
		if bytes.Equal(c.Qualifier, qual) {
			return c.Value, true
		}
	}
	return nil, false
}

// preflight refuses, before anything is created, a set of tables one of
// which is not the harness's, naming each with the reason.
func (s *Store) preflight(ctx context.Context, tables []string) error {
	var foreign []string
	for _, t := range tables {
		v, err := s.owner(ctx, t)
		if err != nil {
			return err
		}
		if v.state == foreignTable && !s.o.ReuseTables {
			foreign = append(foreign, s.name(t)+": "+v.why)
		}
	}
	switch len(foreign) {
	case 0:
		return nil
	case 1:
		return refused("refusing to run, before creating anything: a table of the harness's name is not commentbench's: %s; "+
			"give --reuse-tables to write into it anyway (it is never dropped), drop it by hand, or use another --table-prefix: %w",
			foreign[0], ErrForeignTable)
	}
	return refused("refusing to run, before creating anything: tables of the harness's names are not commentbench's: %s; "+
		"give --reuse-tables to write into them anyway (they are never dropped), drop them by hand, or use another --table-prefix: %w",
		strings.Join(foreign, "; "), ErrForeignTable)
}

type ownerState int

const (
	absentTable ownerState = iota
	ourTable
	foreignTable
)

// verdict is who owns a table: ours with its family, or foreign and why.
type verdict struct {
	state  ownerState
	family string
	why    string
}

// owner is the settled verdict on table, deciding it if need be.
func (s *Store) owner(ctx context.Context, table string) (verdict, error) {
	s.mu.Lock()
	v, ok := s.owners[table]
	s.mu.Unlock()
	if ok {
		return v, nil
	}
	v, err := s.decide(ctx, table)
	if err != nil {
		return v, err
	}
	if v.state != absentTable {
		s.mu.Lock()
		s.owners[table] = v
		s.mu.Unlock()
	}
	return v, nil
}

// decide asks the cluster who owns table: the harness when its mark in the
// registry and the owner row inside it name one instance. Any failure to
// tell is an error, never "absent", which would let the harness mark, and
// later drop, a table it cannot see.
func (s *Store) decide(ctx context.Context, table string) (verdict, error) {
	name, reg := s.name(table), s.name(Registry)
	found, err := s.exists(ctx, table)
	if err != nil || !found {
		return verdict{}, err
	}
	mark, err := s.c.Get(ctx, reg, []byte(table), registryFamily)
	if err != nil && !errors.Is(err, hbase.ErrTableNotFound) {
		return verdict{}, refused("cannot tell whether %s is commentbench's: read its mark in %s: %w", name, reg, err)
	}
	if !mark.Found() {
		return verdict{state: foreignTable, why: fmt.Sprintf("no mark in %s: commentbench did not create it", reg)}, nil
	}
	id, _ := cellValue(mark, instanceQual)
	if len(id) == 0 {
		return verdict{state: foreignTable, why: fmt.Sprintf("its mark in %s has no instance id: an older commentbench, "+
			"which marked tables by name alone, made it or a table since recreated under its name", reg)}, nil
	}
	row, err := s.c.Get(ctx, name, ownerRow, "")
	if err != nil {
		return verdict{}, refused("cannot tell whether %s is commentbench's: read its owner row: %w", name, err)
	}
	got, _ := cellValue(row, instanceQual)
	switch {
	case len(got) == 0:
		return verdict{state: foreignTable, why: fmt.Sprintf("it has no owner row, so it is not the table instance %s the harness made: "+
			"that one was dropped and this one created by someone else (or the harness's creation was cut short)", id)}, nil
	case !bytes.Equal(got, id):
		return verdict{state: foreignTable, why: fmt.Sprintf("its owner row names instance %s, its mark in %s instance %s", got, reg, id)}, nil
	}
	fam, _ := cellValue(mark, registryQual)
	return verdict{state: ourTable, family: string(fam)}, nil
}

// family is the column family writes to table use, or an error when the
// harness may not write there.
func (s *Store) family(ctx context.Context, table string) (string, error) {
	if s.o.ReadOnly {
		return "", s.readOnly("write into", table)
	}
	v, err := s.owner(ctx, table)
	switch {
	case err != nil:
		return "", err
	case v.state == ourTable:
		return v.family, nil
	case v.state == foreignTable && s.o.ReuseTables:
		return s.o.Family, nil
	case v.state == foreignTable:
		return "", s.foreign(table, "write into", v.why)
	}
	return "", fmt.Errorf("%s: %w", s.name(table), store.ErrTableNotFound)
}

func (s *Store) foreign(table, verb, why string) error {
	hint := "--reuse-tables writes into it anyway; drop it by hand to let the harness create its own"
	if verb == "drop" {
		hint = "the harness drops only tables it created; drop it by hand if it should go"
	}
	return refused("refusing to %s table %s: %s; %s: %w", verb, s.name(table), why, hint, ErrForeignTable)
}

func (s *Store) readOnly(verb, table string) error {
	return fmt.Errorf("refusing to %s %s: %w", verb, s.name(table), ErrReadOnly)
}

// exists reports whether table is in the cluster; a listing that fails is
// an error, not an absent table.
func (s *Store) exists(ctx context.Context, table string) (bool, error) {
	names, err := s.c.ListTables(ctx, quoteRegex(s.name(table)))
	if err != nil {
		return false, refused("cannot tell whether %s is commentbench's: list tables: %w", s.name(table), err)
	}
	return len(names) > 0, nil
}

// quoteRegex escapes a table name for HBase's Java regex (table names use
// letters, digits, '_', '-', '.' and ':').
func quoteRegex(name string) string {
	var b strings.Builder
	for _, r := range name {
		if strings.ContainsRune(`.\+*?[^]$(){}=!<>|:-`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// CreateTable implements store.Store. The mark, with a new instance id, is
// written before the table and the owner row after it: a crash between the
// two leaves a table the harness treats as foreign, never one it adopts.
func (s *Store) CreateTable(ctx context.Context, spec store.TableSpec) error {
	if s.o.ReadOnly {
		return s.readOnly("create", spec.Name)
	}
	v, err := s.owner(ctx, spec.Name)
	if err != nil {
		return err
	}
	if v.state != absentTable {
		return s.existing(spec.Name, v)
	}
	if spec.Family == "" && len(spec.Families) > 0 {
		spec.Family = spec.Families[0]
	}
	id, err := s.mark(ctx, spec.Name, spec.Family)
	if err != nil {
		return err
	}
	name := s.name(spec.Name)
	err = s.c.CreateTable(ctx, name, specFamilies(spec), spec.SplitKeys)
	if errors.Is(err, hbase.ErrTableExists) {
		// Made by someone else since it was found absent: it has no owner
		// row of ours, so it is foreign.
		v, err := s.owner(ctx, spec.Name)
		if err != nil {
			return err
		}
		return s.existing(spec.Name, v)
	}
	if err != nil {
		return refused("create %s: %s: %w", name, denied(err), err)
	}
	owner := hbase.Mutation{Row: ownerRow, Family: spec.Family, Cells: []hbase.Cell{{Qualifier: instanceQual, Value: id}}}
	if err := s.c.Mutate(ctx, name, []hbase.Mutation{owner}); err != nil {
		// The table is ours for certain only now: drop it rather than
		// leave one nobody can claim.
		s.remove(ctx, name)
		return refused("write the owner row of %s: %s: %w", name, denied(err), err)
	}
	s.mu.Lock()
	s.owners[spec.Name] = verdict{state: ourTable, family: spec.Family}
	s.mu.Unlock()
	return nil
}

// existing is CreateTable's answer for a table that is there.
func (s *Store) existing(table string, v verdict) error {
	if v.state == foreignTable && !s.o.ReuseTables {
		return s.foreign(table, "write into", v.why)
	}
	return fmt.Errorf("%s: %w", s.name(table), store.ErrTableExists)
}

// specFamilies lists a spec's families: Families, with Family among them.
// The row methods read and write Family alone, the one the registry
// records; reads of a table with several return every family's cells.
func specFamilies(spec store.TableSpec) []string {
	if len(spec.Families) == 0 {
		return []string{spec.Family}
	}
	if spec.Family == "" || slices.Contains(spec.Families, spec.Family) {
		return spec.Families
	}
	return append(slices.Clone(spec.Families), spec.Family)
}

// mark records a new instance of table as the harness's own and returns
// its id. The mark is swapped only if it still holds what was read, so of
// two processes creating one table at once, one marks it and the other
// finds it the first one's.
func (s *Store) mark(ctx context.Context, table, family string) ([]byte, error) {
	reg := s.name(Registry)
	err := s.c.CreateTable(ctx, reg, []string{registryFamily}, nil)
	if err != nil && !errors.Is(err, hbase.ErrTableExists) {
		return nil, refused("create %s: %s: %w", reg, denied(err), err)
	}
	old, err := s.c.Get(ctx, reg, []byte(table), registryFamily)
	if err != nil {
		return nil, refused("read the mark of %s in %s: %w", s.name(table), reg, err)
	}
	// A mark left by a table since dropped names no table: replace it.
	prev, _ := cellValue(old, instanceQual)
	id := newInstanceID()
	put := hbase.Mutation{Row: []byte(table), Family: registryFamily, Cells: []hbase.Cell{
		{Qualifier: registryQual, Value: []byte(family)}, {Qualifier: instanceQual, Value: id}}}
	ok, err := s.c.CheckAndPut(ctx, reg, []byte(table), registryFamily, instanceQual, prev, put)
	if err != nil {
		return nil, refused("mark %s in %s: %s: %w", s.name(table), reg, denied(err), err)
	}
	if !ok {
		return nil, fmt.Errorf("mark %s in %s: another process marked it at the same time: %w", s.name(table), reg, store.ErrTableExists)
	}
	s.mu.Lock()
	s.marks[table] = family
	s.mu.Unlock()
	return id, nil
}

// newInstanceID names one table instance: 16 random hex digits.
func newInstanceID() []byte {
	var b [8]byte
	_, _ = rand.Read(b[:]) // never fails on Linux
	return []byte(hex.EncodeToString(b[:]))
}

// remove disables and deletes a table the harness has just made, as far as
// it can: it is cleaning up after a failure already reported.
func (s *Store) remove(ctx context.Context, name string) {
	if err := s.c.DisableTable(ctx, name); err == nil || errors.Is(err, hbase.ErrTableNotEnabled) {
		_ = s.c.DeleteTable(ctx, name)
	}
}

// Foreign says whether table is there and is not the harness's (one it
// writes into only with ReuseTables, and never drops).
func (s *Store) Foreign(ctx context.Context, table string) (bool, error) {
	v, err := s.owner(ctx, table)
	return err == nil && v.state == foreignTable, err
}

// DropTable implements store.Store: only the harness's own tables, asked
// afresh, since another process may have replaced one since it was seen.
func (s *Store) DropTable(ctx context.Context, table string) error {
	if s.o.ReadOnly {
		return s.readOnly("drop", table)
	}
	s.mu.Lock()
	delete(s.owners, table)
	s.mu.Unlock()
	v, err := s.owner(ctx, table)
	switch {
	case err != nil:
		return err
	case v.state == absentTable:
		return fmt.Errorf("%s: %w", s.name(table), store.ErrTableNotFound)
	case v.state == foreignTable:
		return s.foreign(table, "drop", v.why)
	}
	name := s.name(table)
	if err := s.c.DisableTable(ctx, name); err != nil && !errors.Is(err, hbase.ErrTableNotEnabled) &&
		!errors.Is(err, hbase.ErrTableNotFound) {
		return fmt.Errorf("disable %s: %w", name, err)
	}
	if err := s.c.DeleteTable(ctx, name); err != nil && !errors.Is(err, hbase.ErrTableNotFound) {
		return fmt.Errorf("delete %s: %w", name, err)
	}
	s.mu.Lock()
	delete(s.owners, table)
	delete(s.marks, table)
	s.mu.Unlock()
	if err := s.c.Mutate(ctx, s.name(Registry), []hbase.Mutation{{Row: []byte(table), DeleteRow: true}}); err != nil {
		return fmt.Errorf("unmark %s: %w", name, err)
	}
	return nil
}

// ListTables implements store.Store: the tables under the prefix, without
// it, the registry left out.
func (s *Store) ListTables(ctx context.Context) ([]store.TableSpec, error) {
	names, err := s.c.ListTables(ctx, quoteRegex(s.o.Prefix)+".*")
	if err != nil {
		return nil, fmt.Errorf("list tables: %w", err)
	}
	var out []store.TableSpec
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, n := range names {
		t := strings.TrimPrefix(n, s.o.Prefix)
		if t == Registry {
			continue
		}
		fam, ok := s.marks[t]
		if !ok {
			fam = s.o.Family
		}
		out = append(out, store.TableSpec{Name: t, Family: fam})
	}
	return out, nil
}

// Close implements store.Store.
func (s *Store) Close() error { return s.c.Close() }

// ClientCounters are the client's RPC, retry and meta-lookup counts.
func (s *Store) ClientCounters() hbase.Counters { return s.c.Counters() }

// tableErr maps the client's errors onto the store's; a change the cluster
// denies is a refusal.
func (s *Store) tableErr(op, table string, err error) error {
	switch {
	case errors.Is(err, hbase.ErrTableNotFound):
		return fmt.Errorf("%s %s: %w: %w", op, s.name(table), store.ErrTableNotFound, err)
	case errors.Is(err, hbase.ErrAccessDenied):
		return refused("%s %s: %s: %w", op, s.name(table), denied(err), err)
	case errors.Is(err, hbase.ErrRowTooBig):
		// The server's message names the row ("the row info: ...").
		return fmt.Errorf("%s %s: %w: %w", op, s.name(table), store.ErrRowTooBig, err)
	}
	return fmt.Errorf("%s %s: %w", op, s.name(table), err)
}
