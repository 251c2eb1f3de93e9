// Package hbasestore is store.Store over an HBase cluster, through the
// project's native client (commentbench/hbase).
//
// It owns what the harness may do to a cluster it does not own: its tables
// live under a prefix, the tables it creates are marked in a registry table
// of its own, and it refuses to write into or drop a table it did not
// create. It also attributes every request to the region and server that
// served it, so the region spread comes from the client side. It must not
// know the comment schema.
package hbasestore

import (
	"bytes"
	"context"
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
}

// Registry is the table, under the prefix, that marks the tables the
// harness created: one row per table, valued with its column family.
const Registry = "harness-tables"

var (
	registryFamily = "m"
	registryQual   = []byte("family")
)

// ErrForeignTable is an existing table the harness did not create.
var ErrForeignTable = errors.New("table not created by commentbench")

// Store is store.Store over one HBase cluster.
type Store struct {
	c     *hbase.Client
	o     Options
	attr  *attribution
	mu    sync.Mutex
	owned map[string]string // store table -> family, for tables we created or may reuse
}

var _ store.Store = (*Store)(nil)

// Open dials the cluster and reads which tables the harness owns.
func Open(ctx context.Context, o Options) (*Store, error) {
	if o.Family == "" {
		o.Family = "cf"
	}
	c, err := hbase.Dial(ctx, o.Client)
	if err != nil {
		return nil, err
	}
	s := &Store{c: c, o: o, owned: map[string]string{}, attr: newAttribution()}
	if err := s.loadRegistry(ctx); err != nil {
		c.Close()
		return nil, err
	}
	return s, nil
}

func (s *Store) name(table string) string { return s.o.Prefix + table }

// loadRegistry reads the marks; a cluster the harness never used has none.
func (s *Store) loadRegistry(ctx context.Context) error {
	_, err := s.c.Scan(ctx, s.name(Registry), hbase.Scan{}, func(r hbase.Result) bool {
		fam := s.o.Family
		for _, cell := range r.Cells {
			if bytes.Equal(cell.Qualifier, registryQual) {
				fam = string(cell.Value)
			}
		}
		s.owned[string(r.Row)] = fam
		return true
	})
	if errors.Is(err, hbase.ErrTableNotFound) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read %s: %w", s.name(Registry), err)
	}
	return nil
}

// family is the column family writes to table use, or an error when the
// harness may not write there.
func (s *Store) family(ctx context.Context, table string) (string, error) {
	s.mu.Lock()
	fam, ok := s.owned[table]
	s.mu.Unlock()
	if ok {
		return fam, nil
	}
	if s.o.ReuseTables {
		return s.o.Family, nil
	}
	if s.exists(ctx, table) {
		return "", s.foreign(table, "write into")
	}
	return "", fmt.Errorf("%s: %w", s.name(table), store.ErrTableNotFound)
}

func (s *Store) foreign(table, verb string) error {
	return fmt.Errorf("refusing to %s table %s: it exists but has no mark in %s (it was not created by commentbench); --reuse-tables writes into it anyway: %w",
		verb, s.name(table), s.name(Registry), ErrForeignTable)
}

func (s *Store) exists(ctx context.Context, table string) bool {
	names, err := s.c.ListTables(ctx, quoteRegex(s.name(table)))
	return err == nil && len(names) > 0
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

// CreateTable implements store.Store. The mark is written before the table,
// so a crash between the two never leaves an unmarked table of ours.
func (s *Store) CreateTable(ctx context.Context, spec store.TableSpec) error {
	if s.exists(ctx, spec.Name) {
		s.mu.Lock()
		_, ours := s.owned[spec.Name]
		s.mu.Unlock()
		if !ours && !s.o.ReuseTables {
			return s.foreign(spec.Name, "write into")
		}
		return fmt.Errorf("%s: %w", s.name(spec.Name), store.ErrTableExists)
	}
	if spec.Family == "" && len(spec.Families) > 0 {
		spec.Family = spec.Families[0]
	}
	if err := s.mark(ctx, spec.Name, spec.Family); err != nil {
		return err
	}
	err := s.c.CreateTable(ctx, s.name(spec.Name), specFamilies(spec), spec.SplitKeys)
	if errors.Is(err, hbase.ErrTableExists) {
		return fmt.Errorf("%s: %w", s.name(spec.Name), store.ErrTableExists)
	}
	if err != nil {
		return fmt.Errorf("create %s: %w", s.name(spec.Name), err)
	}
	return nil
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

// mark records table as the harness's own.
func (s *Store) mark(ctx context.Context, table, family string) error {
	reg := s.name(Registry)
	err := s.c.CreateTable(ctx, reg, []string{registryFamily}, nil)
	if err != nil && !errors.Is(err, hbase.ErrTableExists) {
		return fmt.Errorf("create %s: %w", reg, err)
	}
	m := hbase.Mutation{Row: []byte(table), Family: registryFamily,
		Cells: []hbase.Cell{{Qualifier: registryQual, Value: []byte(family)}}}
	if err := s.c.Mutate(ctx, reg, []hbase.Mutation{m}); err != nil {
		return fmt.Errorf("mark %s in %s: %w", s.name(table), reg, err)
	}
	s.mu.Lock()
	s.owned[table] = family
	s.mu.Unlock()
	return nil
}

// DropTable implements store.Store: only the harness's own tables.
func (s *Store) DropTable(ctx context.Context, table string) error {
	s.mu.Lock()
	_, ours := s.owned[table]
	s.mu.Unlock()
	if !ours {
		if s.exists(ctx, table) {
			return s.foreign(table, "drop")
		}
		return fmt.Errorf("%s: %w", s.name(table), store.ErrTableNotFound)
	}
	name := s.name(table)
	if err := s.c.DisableTable(ctx, name); err != nil && !errors.Is(err, hbase.ErrTableNotEnabled) &&
		!errors.Is(err, hbase.ErrTableNotFound) {
		return fmt.Errorf("disable %s: %w", name, err)
	}
	if err := s.c.DeleteTable(ctx, name); err != nil && !errors.Is(err, hbase.ErrTableNotFound) {
		return fmt.Errorf("delete %s: %w", name, err)
	}
	if err := s.c.Mutate(ctx, s.name(Registry), []hbase.Mutation{{Row: []byte(table), DeleteRow: true}}); err != nil {
		return fmt.Errorf("unmark %s: %w", name, err)
	}
	s.mu.Lock()
	delete(s.owned, table)
	s.mu.Unlock()
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
		fam, ok := s.owned[t]
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

// tableErr maps the client's errors onto the store's.
func (s *Store) tableErr(op, table string, err error) error {
	if errors.Is(err, hbase.ErrTableNotFound) {
		return fmt.Errorf("%s %s: %w: %w", op, s.name(table), store.ErrTableNotFound, err)
	}
	return fmt.Errorf("%s %s: %w", op, s.name(table), err)
}
