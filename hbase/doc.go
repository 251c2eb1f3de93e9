// Package hbase is a native HBase 2.x client. It owns talking to an HBase
// cluster: connections (one per server address and service, calls
// multiplexed by call id), region location through the RPC connection
// registry or ZooKeeper and hbase:meta, the region cache, retries and backoff, the data
// calls (Get, Mutate, Multi, RowMutations, CheckAndMutate, Scan, rows whole
// or in batches and partial results) over any column families with
// server-side filters (rows, columns, values, column ranges and pages),
// the master's admin calls (tables, snapshots,
// cluster status, region moves, the balancer switch, replication peers),
// and client-side counters.
//
// It must not know any application schema or storage interface: rows,
// families, qualifiers and values are opaque bytes here; adapters above map
// their models onto this client.
//
// Section numbers in comments refer to the shared HBASE-WIRE specification.
package hbase
