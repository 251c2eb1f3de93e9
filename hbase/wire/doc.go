// Package wire owns the bytes of HBase's RPC: the connection preamble and
// header, request and response frames, KeyValue cells in cellblocks, region
// names and meta row keys, and the ZooKeeper znode payload. It also names
// the Java exception classes and sorts them into the groups a client reacts
// to differently.
//
// It must not know connections, retries or regions' placement: everything
// here is a pure function of bytes (or an io.Reader/io.Writer the caller
// owns), so the RPC client and the in-process test server can share it and
// a disagreement between them is always a bug in one place.
//
// Section numbers in comments refer to the shared HBASE-WIRE specification.
package wire
