// Package pb holds the protobuf messages of HBase 2.x's native RPC, written
// from the field tables of the shared wire specification (section 9) and,
// for what the specification leaves out (filters, cluster status,
// snapshots, replication peers, namespaces, conditional RegionActions),
// from the field numbers of HBase's own .proto files.
//
// The Go files are generated from ../proto by ../proto/gen.sh and committed,
// so building never needs protoc. All messages are proto2 because presence is
// meaningful on this wire: HBase rejects messages missing required fields,
// so required bytes fields must be set to non-nil (possibly empty) slices.
//
// The .proto files also declare ClientService, MasterService and
// ClientMetaService; no stubs are generated for them, but their descriptors
// map each method name to its request and response types, which lets a
// server or client dispatch by the method name carried in RequestHeader.
package pb

//go:generate sh ../proto/gen.sh
