package hbasetest

import (
	"errors"
	"fmt"

	"commentbench/hbase/pb"
	"commentbench/store"
	"commentbench/store/embedded"

	"google.golang.org/protobuf/proto"
)

// NamespaceTable is HBase 2's system table of namespaces: one row per
// namespace, its descriptor in info:d. Clients list it among the system
// tables, find its region in hbase:meta and read it like any table.
const NamespaceTable = "hbase:namespace"

// namespaceFamily and namespaceQualifier hold a namespace's descriptor.
const (
	namespaceFamily    = "info"
	namespaceQualifier = "d"
)

// ensureNamespaceTable creates hbase:namespace with the two namespaces
// that always exist, unless the engine already has it (a reopened data
// dir).
func (c *Cluster) ensureNamespaceTable() error {
	spec := store.TableSpec{Name: NamespaceTable, Family: namespaceFamily}
	err := c.eng.CreateTableWith(c.ctx, spec, embedded.TableOptions{MaxVersions: map[string]int{namespaceFamily: 10}})
	if errors.Is(err, store.ErrTableExists) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("hbasetest: create %s: %w", NamespaceTable, err)
	}
	for _, ns := range []string{"default", "hbase"} {
		d, err := proto.Marshal(&pb.NamespaceDescriptor{Name: []byte(ns)})
		if err != nil {
			return err
		}
		err = c.eng.Mutate(c.ctx, NamespaceTable, store.Put([]byte(ns), store.Cell{Qualifier: []byte(namespaceQualifier), Value: d}))
		if err != nil {
			return fmt.Errorf("hbasetest: write %s: %w", NamespaceTable, err)
		}
	}
	return nil
}
