package pb

import (
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
)

// field pins one row of the spec's section 9 tables.
type field struct {
	msg    string // full name without the "hbase.pb." prefix
	name   string
	num    protoreflect.FieldNumber
	kind   protoreflect.Kind
	label  protoreflect.Cardinality
	msgRef string // referenced message or enum, if any
}

const (
	req = protoreflect.Required
	opt = protoreflect.Optional
	rep = protoreflect.Repeated
)

var specFields = []field{
	// 9.1 RPC
	{"UserInformation", "effective_user", 1, protoreflect.StringKind, req, ""},
	{"ConnectionHeader", "user_info", 1, protoreflect.MessageKind, opt, "UserInformation"},
	{"ConnectionHeader", "service_name", 2, protoreflect.StringKind, opt, ""},
	{"ConnectionHeader", "cell_block_codec_class", 3, protoreflect.StringKind, opt, ""},
	{"ConnectionHeader", "cell_block_compressor_class", 4, protoreflect.StringKind, opt, ""},
	{"ConnectionHeader", "version_info", 5, protoreflect.MessageKind, opt, "VersionInfo"},
	{"ConnectionHeader", "rpc_crypto_cipher_transformation", 6, protoreflect.StringKind, opt, ""},
	{"ConnectionHeader", "attribute", 7, protoreflect.MessageKind, rep, "NameBytesPair"},
	{"CellBlockMeta", "length", 1, protoreflect.Uint32Kind, opt, ""},
	{"RequestHeader", "call_id", 1, protoreflect.Uint32Kind, opt, ""},
	{"RequestHeader", "method_name", 3, protoreflect.StringKind, opt, ""},
	{"RequestHeader", "request_param", 4, protoreflect.BoolKind, opt, ""},
	{"RequestHeader", "cell_block_meta", 5, protoreflect.MessageKind, opt, "CellBlockMeta"},
	{"RequestHeader", "priority", 6, protoreflect.Uint32Kind, opt, ""},
	{"RequestHeader", "timeout", 7, protoreflect.Uint32Kind, opt, ""},
	{"RequestHeader", "attribute", 8, protoreflect.MessageKind, rep, "NameBytesPair"},
	{"ResponseHeader", "call_id", 1, protoreflect.Uint32Kind, opt, ""},
	{"ResponseHeader", "exception", 2, protoreflect.MessageKind, opt, "ExceptionResponse"},
	{"ResponseHeader", "cell_block_meta", 3, protoreflect.MessageKind, opt, "CellBlockMeta"},
	{"ExceptionResponse", "exception_class_name", 1, protoreflect.StringKind, opt, ""},
	{"ExceptionResponse", "stack_trace", 2, protoreflect.StringKind, opt, ""},
	{"ExceptionResponse", "port", 4, protoreflect.Int32Kind, opt, ""},
	{"ExceptionResponse", "server_overloaded", 6, protoreflect.BoolKind, opt, ""},
	// 9.2 HBase.proto
	{"TableName", "namespace", 1, protoreflect.BytesKind, req, ""},
	{"TableName", "qualifier", 2, protoreflect.BytesKind, req, ""},
	{"RegionSpecifier", "type", 1, protoreflect.EnumKind, req, "RegionSpecifier.RegionSpecifierType"},
	{"RegionSpecifier", "value", 2, protoreflect.BytesKind, req, ""},
	{"ServerName", "host_name", 1, protoreflect.StringKind, req, ""},
	{"ServerName", "start_code", 3, protoreflect.Uint64Kind, opt, ""},
	{"RegionLocation", "region_info", 1, protoreflect.MessageKind, req, "RegionInfo"},
	{"RegionLocation", "seq_num", 3, protoreflect.Int64Kind, req, ""},
	{"NameInt64Pair", "value", 2, protoreflect.Int64Kind, opt, ""},
	{"TimeRange", "to", 2, protoreflect.Uint64Kind, opt, ""},
	{"ColumnFamilyTimeRange", "time_range", 2, protoreflect.MessageKind, req, "TimeRange"},
	{"RegionInfo", "region_id", 1, protoreflect.Uint64Kind, req, ""},
	{"RegionInfo", "split", 6, protoreflect.BoolKind, opt, ""},
	{"RegionInfo", "replica_id", 7, protoreflect.Int32Kind, opt, ""},
	{"RegionInfo", "region_encoded_name", 8, protoreflect.StringKind, opt, ""},
	{"TableSchema", "column_families", 3, protoreflect.MessageKind, rep, "ColumnFamilySchema"},
	{"ColumnFamilySchema", "name", 1, protoreflect.BytesKind, req, ""},
	// 9.3 Cell.proto
	{"Cell", "cell_type", 5, protoreflect.EnumKind, opt, "CellType"},
	{"Cell", "tags", 7, protoreflect.BytesKind, opt, ""},
	// 9.4 Client.proto
	{"Get", "row", 1, protoreflect.BytesKind, req, ""},
	{"Get", "filter", 4, protoreflect.MessageKind, opt, "Filter"},
	{"Get", "existence_only", 10, protoreflect.BoolKind, opt, ""},
	{"Get", "cf_time_range", 13, protoreflect.MessageKind, rep, "ColumnFamilyTimeRange"},
	{"Result", "associated_cell_count", 2, protoreflect.Int32Kind, opt, ""},
	{"Result", "partial", 5, protoreflect.BoolKind, opt, ""},
	{"Column", "qualifier", 2, protoreflect.BytesKind, rep, ""},
	{"GetRequest", "region", 1, protoreflect.MessageKind, req, "RegionSpecifier"},
	{"GetRequest", "get", 2, protoreflect.MessageKind, req, "Get"},
	{"GetResponse", "result", 1, protoreflect.MessageKind, opt, "Result"},
	{"Condition", "comparator", 5, protoreflect.MessageKind, opt, "Comparator"},
	{"Condition", "filter", 7, protoreflect.MessageKind, opt, "Filter"},
	{"MutationProto", "mutate_type", 2, protoreflect.EnumKind, opt, "MutationProto.MutationType"},
	{"MutationProto", "column_value", 3, protoreflect.MessageKind, rep, "MutationProto.ColumnValue"},
	{"MutationProto", "durability", 6, protoreflect.EnumKind, opt, "MutationProto.Durability"},
	{"MutationProto", "associated_cell_count", 8, protoreflect.Int32Kind, opt, ""},
	{"MutationProto", "nonce", 9, protoreflect.Uint64Kind, opt, ""},
	{"MutationProto.ColumnValue.QualifierValue", "delete_type", 4, protoreflect.EnumKind, opt, "MutationProto.DeleteType"},
	{"MutateRequest", "condition", 3, protoreflect.MessageKind, opt, "Condition"},
	{"MutateResponse", "processed", 2, protoreflect.BoolKind, opt, ""},
	{"Scan", "start_row", 3, protoreflect.BytesKind, opt, ""},
	{"Scan", "max_result_size", 10, protoreflect.Uint64Kind, opt, ""},
	{"Scan", "reversed", 15, protoreflect.BoolKind, opt, ""},
	{"Scan", "include_start_row", 21, protoreflect.BoolKind, opt, ""},
	{"Scan", "need_cursor_result", 24, protoreflect.BoolKind, opt, ""},
	{"ScanRequest", "region", 1, protoreflect.MessageKind, opt, "RegionSpecifier"},
	{"ScanRequest", "scan", 2, protoreflect.MessageKind, opt, "Scan"},
	{"ScanRequest", "scanner_id", 3, protoreflect.Uint64Kind, opt, ""},
	{"ScanRequest", "number_of_rows", 4, protoreflect.Uint32Kind, opt, ""},
	{"ScanRequest", "close_scanner", 5, protoreflect.BoolKind, opt, ""},
	{"ScanRequest", "next_call_seq", 6, protoreflect.Uint64Kind, opt, ""},
	{"ScanRequest", "client_handles_partials", 7, protoreflect.BoolKind, opt, ""},
	{"ScanRequest", "client_handles_heartbeats", 8, protoreflect.BoolKind, opt, ""},
	{"ScanRequest", "track_scan_metrics", 9, protoreflect.BoolKind, opt, ""},
	{"ScanRequest", "renew", 10, protoreflect.BoolKind, opt, ""},
	{"ScanRequest", "limit_of_rows", 11, protoreflect.Uint32Kind, opt, ""},
	{"ScanResponse", "cells_per_result", 1, protoreflect.Uint32Kind, rep, ""},
	{"ScanResponse", "results", 5, protoreflect.MessageKind, rep, "Result"},
	{"ScanResponse", "partial_flag_per_result", 7, protoreflect.BoolKind, rep, ""},
	{"ScanResponse", "more_results_in_region", 8, protoreflect.BoolKind, opt, ""},
	{"ScanResponse", "heartbeat_message", 9, protoreflect.BoolKind, opt, ""},
	{"ScanResponse", "cursor", 12, protoreflect.MessageKind, opt, "Cursor"},
	{"Action", "get", 3, protoreflect.MessageKind, opt, "Get"},
	{"RegionAction", "region", 1, protoreflect.MessageKind, req, "RegionSpecifier"},
	{"ResultOrException", "exception", 3, protoreflect.MessageKind, opt, "NameBytesPair"},
	{"ResultOrException", "loadStats", 5, protoreflect.MessageKind, opt, "RegionLoadStats"},
	{"RegionActionResult", "resultOrException", 1, protoreflect.MessageKind, rep, "ResultOrException"},
	{"MultiRequest", "regionAction", 1, protoreflect.MessageKind, rep, "RegionAction"},
	{"MultiResponse", "regionStatistics", 3, protoreflect.MessageKind, opt, "MultiRegionLoadStats"},
	{"MultiRequest", "condition", 3, protoreflect.MessageKind, opt, "Condition"},
	{"MultiResponse", "processed", 2, protoreflect.BoolKind, opt, ""},
	// HBase 2.4+ conditional RegionActions (HBASE-8458)
	{"RegionAction", "atomic", 2, protoreflect.BoolKind, opt, ""},
	{"RegionAction", "condition", 4, protoreflect.MessageKind, opt, "Condition"},
	{"RegionActionResult", "processed", 3, protoreflect.BoolKind, opt, ""},
	{"Condition", "time_range", 6, protoreflect.MessageKind, opt, "TimeRange"},
	// 9.5 Comparator.proto and the filters
	{"Comparator", "name", 1, protoreflect.StringKind, req, ""},
	{"Comparator", "serialized_comparator", 2, protoreflect.BytesKind, opt, ""},
	{"ByteArrayComparable", "value", 1, protoreflect.BytesKind, opt, ""},
	{"BinaryComparator", "comparable", 1, protoreflect.MessageKind, req, "ByteArrayComparable"},
	{"Filter", "name", 1, protoreflect.StringKind, req, ""},
	{"Filter", "serialized_filter", 2, protoreflect.BytesKind, opt, ""},
	{"CompareFilter", "compare_op", 1, protoreflect.EnumKind, req, "CompareType"},
	{"CompareFilter", "comparator", 2, protoreflect.MessageKind, opt, "Comparator"},
	{"RowFilter", "compare_filter", 1, protoreflect.MessageKind, req, "CompareFilter"},
	{"PrefixFilter", "prefix", 1, protoreflect.BytesKind, opt, ""},
	{"FamilyFilter", "compare_filter", 1, protoreflect.MessageKind, req, "CompareFilter"},
	{"QualifierFilter", "compare_filter", 1, protoreflect.MessageKind, req, "CompareFilter"},
	{"ValueFilter", "compare_filter", 1, protoreflect.MessageKind, req, "CompareFilter"},
	{"ColumnPrefixFilter", "prefix", 1, protoreflect.BytesKind, req, ""},
	{"SingleColumnValueFilter", "column_family", 1, protoreflect.BytesKind, opt, ""},
	{"SingleColumnValueFilter", "column_qualifier", 2, protoreflect.BytesKind, opt, ""},
	{"SingleColumnValueFilter", "compare_op", 3, protoreflect.EnumKind, req, "CompareType"},
	{"SingleColumnValueFilter", "comparator", 4, protoreflect.MessageKind, req, "Comparator"},
	{"SingleColumnValueFilter", "filter_if_missing", 5, protoreflect.BoolKind, opt, ""},
	{"SingleColumnValueFilter", "latest_version_only", 6, protoreflect.BoolKind, opt, ""},
	{"FilterList", "operator", 1, protoreflect.EnumKind, req, "FilterList.Operator"},
	{"FilterList", "filters", 2, protoreflect.MessageKind, rep, "Filter"},
	{"BinaryPrefixComparator", "comparable", 1, protoreflect.MessageKind, req, "ByteArrayComparable"},
	// 9.6 Master.proto, ErrorHandling.proto
	{"CreateTableRequest", "split_keys", 2, protoreflect.BytesKind, rep, ""},
	{"DisableTableRequest", "nonce", 3, protoreflect.Uint64Kind, opt, ""},
	{"GetTableNamesRequest", "namespace", 3, protoreflect.StringKind, opt, ""},
	{"GetProcedureResultRequest", "proc_id", 1, protoreflect.Uint64Kind, req, ""},
	{"GetProcedureResultResponse", "state", 1, protoreflect.EnumKind, req, "GetProcedureResultResponse.State"},
	{"GetProcedureResultResponse", "exception", 5, protoreflect.MessageKind, opt, "ForeignExceptionMessage"},
	{"GenericExceptionMessage", "trace", 4, protoreflect.MessageKind, rep, "StackTraceElementMessage"},
	{"StackTraceElementMessage", "line_number", 4, protoreflect.Int32Kind, opt, ""},
	{"GetClusterStatusRequest", "options", 1, protoreflect.EnumKind, rep, "Option"},
	{"GetClusterStatusResponse", "cluster_status", 1, protoreflect.MessageKind, req, "ClusterStatus"},
	{"MoveRegionRequest", "region", 1, protoreflect.MessageKind, req, "RegionSpecifier"},
	{"MoveRegionRequest", "dest_server_name", 2, protoreflect.MessageKind, opt, "ServerName"},
	{"SetBalancerRunningRequest", "on", 1, protoreflect.BoolKind, req, ""},
	{"SetBalancerRunningRequest", "synchronous", 2, protoreflect.BoolKind, opt, ""},
	{"SetBalancerRunningResponse", "prev_balance_value", 1, protoreflect.BoolKind, opt, ""},
	{"IsBalancerEnabledResponse", "enabled", 1, protoreflect.BoolKind, req, ""},
	{"SnapshotRequest", "snapshot", 1, protoreflect.MessageKind, req, "SnapshotDescription"},
	{"SnapshotResponse", "expected_timeout", 1, protoreflect.Int64Kind, req, ""},
	{"SnapshotResponse", "proc_id", 2, protoreflect.Int64Kind, opt, ""},
	{"IsSnapshotDoneResponse", "done", 1, protoreflect.BoolKind, opt, ""},
	{"IsSnapshotDoneResponse", "snapshot", 2, protoreflect.MessageKind, opt, "SnapshotDescription"},
	{"GetCompletedSnapshotsResponse", "snapshots", 1, protoreflect.MessageKind, rep, "SnapshotDescription"},
	{"DeleteSnapshotRequest", "snapshot", 1, protoreflect.MessageKind, req, "SnapshotDescription"},
	{"RestoreSnapshotRequest", "restoreACL", 4, protoreflect.BoolKind, opt, ""},
	{"RestoreSnapshotResponse", "proc_id", 1, protoreflect.Uint64Kind, req, ""},
	// ClusterStatus.proto
	{"ClusterStatus", "hbase_version", 1, protoreflect.MessageKind, opt, "HBaseVersionFileContent"},
	{"ClusterStatus", "live_servers", 2, protoreflect.MessageKind, rep, "LiveServerInfo"},
	{"ClusterStatus", "dead_servers", 3, protoreflect.MessageKind, rep, "ServerName"},
	{"ClusterStatus", "cluster_id", 5, protoreflect.MessageKind, opt, "ClusterId"},
	{"ClusterStatus", "master", 7, protoreflect.MessageKind, opt, "ServerName"},
	{"ClusterStatus", "balancer_on", 9, protoreflect.BoolKind, opt, ""},
	{"ClusterStatus", "servers_name", 11, protoreflect.MessageKind, rep, "ServerName"},
	{"LiveServerInfo", "server_load", 2, protoreflect.MessageKind, req, "ServerLoad"},
	{"ServerLoad", "total_number_of_requests", 2, protoreflect.Uint64Kind, opt, ""},
	{"ServerLoad", "region_loads", 5, protoreflect.MessageKind, rep, "RegionLoad"},
	{"ServerLoad", "read_requests_count", 13, protoreflect.Uint64Kind, opt, ""},
	{"ServerLoad", "write_requests_count", 14, protoreflect.Uint64Kind, opt, ""},
	{"RegionLoad", "region_specifier", 1, protoreflect.MessageKind, req, "RegionSpecifier"},
	{"RegionLoad", "read_requests_count", 8, protoreflect.Uint64Kind, opt, ""},
	{"RegionLoad", "write_requests_count", 9, protoreflect.Uint64Kind, opt, ""},
	{"RegionLoad", "filtered_read_requests_count", 19, protoreflect.Uint64Kind, opt, ""},
	{"RegionLoad", "region_size_MB", 28, protoreflect.Uint32Kind, opt, ""},
	{"ClusterId", "cluster_id", 1, protoreflect.StringKind, req, ""},
	{"HBaseVersionFileContent", "version", 1, protoreflect.StringKind, req, ""},
	// Snapshot.proto, Replication.proto, NamespaceDescriptor
	{"SnapshotDescription", "name", 1, protoreflect.StringKind, req, ""},
	{"SnapshotDescription", "table", 2, protoreflect.StringKind, opt, ""},
	{"SnapshotDescription", "creation_time", 3, protoreflect.Int64Kind, opt, ""},
	{"SnapshotDescription", "type", 4, protoreflect.EnumKind, opt, "SnapshotDescription.Type"},
	{"SnapshotDescription", "ttl", 8, protoreflect.Int64Kind, opt, ""},
	{"ListReplicationPeersRequest", "regex", 1, protoreflect.StringKind, opt, ""},
	{"ListReplicationPeersResponse", "peer_desc", 1, protoreflect.MessageKind, rep, "ReplicationPeerDescription"},
	{"ReplicationPeerDescription", "state", 2, protoreflect.MessageKind, req, "ReplicationState"},
	{"ReplicationPeer", "configuration", 4, protoreflect.MessageKind, rep, "NameStringPair"},
	{"ReplicationPeer", "namespaces", 6, protoreflect.BytesKind, rep, ""},
	{"ReplicationPeer", "bandwidth", 7, protoreflect.Int64Kind, opt, ""},
	{"ReplicationPeer", "exclude_table_cfs", 9, protoreflect.MessageKind, rep, "TableCF"},
	{"ReplicationPeer", "serial", 11, protoreflect.BoolKind, opt, ""},
	{"AddReplicationPeerRequest", "peer_id", 1, protoreflect.StringKind, req, ""},
	{"AddReplicationPeerRequest", "peer_config", 2, protoreflect.MessageKind, req, "ReplicationPeer"},
	{"AddReplicationPeerRequest", "peer_state", 3, protoreflect.MessageKind, req, "ReplicationState"},
	{"AddReplicationPeerResponse", "proc_id", 1, protoreflect.Uint64Kind, opt, ""},
	{"RemoveReplicationPeerRequest", "peer_id", 1, protoreflect.StringKind, req, ""},
	{"GetReplicationPeerConfigResponse", "peer_config", 2, protoreflect.MessageKind, req, "ReplicationPeer"},
	{"UpdateReplicationPeerConfigRequest", "peer_config", 2, protoreflect.MessageKind, req, "ReplicationPeer"},
	{"UpdateReplicationPeerConfigResponse", "proc_id", 1, protoreflect.Uint64Kind, opt, ""},
	{"ReplicationPeerDescription", "config", 3, protoreflect.MessageKind, req, "ReplicationPeer"},
	{"ReplicationPeer", "clusterkey", 1, protoreflect.StringKind, opt, ""},
	{"ReplicationPeer", "table_cfs", 5, protoreflect.MessageKind, rep, "TableCF"},
	{"NamespaceDescriptor", "name", 1, protoreflect.BytesKind, req, ""},
	{"NamespaceDescriptor", "configuration", 2, protoreflect.MessageKind, rep, "NameStringPair"},
	// 9.7 ZooKeeper.proto
	{"MetaRegionServer", "server", 1, protoreflect.MessageKind, req, "ServerName"},
	{"MetaRegionServer", "state", 3, protoreflect.EnumKind, opt, "RegionState.State"},
	{"Master", "info_port", 3, protoreflect.Uint32Kind, opt, ""},
	// 9.8 Registry.proto
	{"GetMetaRegionLocationsResponse", "meta_locations", 1, protoreflect.MessageKind, rep, "RegionLocation"},
	{"GetMastersResponseEntry", "is_active", 2, protoreflect.BoolKind, req, ""},
}

func TestSpecFields(t *testing.T) {
	for _, f := range specFields {
		d, err := protoregistry.GlobalFiles.FindDescriptorByName(protoreflect.FullName("hbase.pb." + f.msg))
		if err != nil {
			t.Errorf("%s: %v", f.msg, err)
			continue
		}
		md, ok := d.(protoreflect.MessageDescriptor)
		if !ok {
			t.Errorf("%s is not a message", f.msg)
			continue
		}
		fd := md.Fields().ByNumber(f.num)
		if fd == nil {
			t.Errorf("%s: no field #%d", f.msg, f.num)
			continue
		}
		if string(fd.Name()) != f.name || fd.Kind() != f.kind || fd.Cardinality() != f.label {
			t.Errorf("%s #%d = %s %v %v, want %s %v %v", f.msg, f.num,
				fd.Name(), fd.Cardinality(), fd.Kind(), f.name, f.label, f.kind)
		}
		var ref protoreflect.FullName
		switch {
		case fd.Message() != nil:
			ref = fd.Message().FullName()
		case fd.Enum() != nil:
			ref = fd.Enum().FullName()
		}
		if want := f.msgRef; want != "" && string(ref) != "hbase.pb."+want {
			t.Errorf("%s.%s refers to %s, want hbase.pb.%s", f.msg, f.name, ref, want)
		}
	}
}

// Enum numbers travel on the wire, so a wrong one is as bad as a wrong tag.
func TestSpecEnums(t *testing.T) {
	checks := []struct {
		got  protoreflect.Enum
		want int32
	}{
		{CellType_PUT, 4}, {CellType_DELETE, 8}, {CellType_DELETE_COLUMN, 12},
		{CellType_DELETE_FAMILY, 14}, {CellType_MAXIMUM, 255},
		{CompareType_EQUAL, 2}, {CompareType_NO_OP, 6}, {CompareType_GREATER, 5},
		{RegionSpecifier_REGION_NAME, 1}, {RegionSpecifier_ENCODED_REGION_NAME, 2},
		{MutationProto_PUT, 2}, {MutationProto_DELETE, 3}, {MutationProto_INCREMENT, 1},
		{MutationProto_DELETE_FAMILY_VERSION, 3}, {MutationProto_DELETE_MULTIPLE_VERSIONS, 1},
		{MutationProto_FSYNC_WAL, 4}, {Consistency_TIMELINE, 1},
		{GetProcedureResultResponse_FINISHED, 2}, {GetProcedureResultResponse_NOT_FOUND, 0},
		{RegionState_OPEN, 3}, {RegionState_MERGING_NEW, 14},
		{BitComparator_XOR, 3},
		{FilterList_MUST_PASS_ALL, 1}, {FilterList_MUST_PASS_ONE, 2},
		{Option_LIVE_SERVERS, 2}, {Option_BALANCER_ON, 8}, {Option_UNKNOWN_SERVERS, 14},
		{SnapshotDescription_FLUSH, 1}, {ReplicationState_DISABLED, 1},
	}
	for _, c := range checks {
		if n := int32(c.got.Number()); n != c.want {
			t.Errorf("%v = %d, want %d", c.got, n, c.want)
		}
	}
}

// Method names are matched exactly by HBase, including getProcedureResult's
// lower-case first letter.
func TestServices(t *testing.T) {
	want := map[string][]string{
		"ClientService": {"Get", "Mutate", "Scan", "Multi"},
		"MasterService": {"CreateTable", "DisableTable", "EnableTable", "DeleteTable", "GetTableNames", "getProcedureResult",
			"GetClusterStatus", "MoveRegion", "SetBalancerRunning", "IsBalancerEnabled", "Snapshot", "IsSnapshotDone",
			"GetCompletedSnapshots", "DeleteSnapshot", "RestoreSnapshot", "ListReplicationPeers",
			"AddReplicationPeer", "RemoveReplicationPeer", "EnableReplicationPeer", "DisableReplicationPeer",
			"GetReplicationPeerConfig", "UpdateReplicationPeerConfig"},
		"ClientMetaService": {"GetClusterId", "GetActiveMaster", "GetMetaRegionLocations", "GetBootstrapNodes", "GetMasters"},
	}
	for svc, methods := range want {
		d, err := protoregistry.GlobalFiles.FindDescriptorByName(protoreflect.FullName("hbase.pb." + svc))
		if err != nil {
			t.Fatalf("%s: %v", svc, err)
		}
		sd := d.(protoreflect.ServiceDescriptor)
		for _, m := range methods {
			md := sd.Methods().ByName(protoreflect.Name(m))
			if md == nil {
				t.Errorf("%s has no %s", svc, m)
				continue
			}
			in := string(md.Input().Name())
			if want := titleFirst(m) + "Request"; in != want {
				t.Errorf("%s.%s takes %s, want %s", svc, m, in, want)
			}
		}
	}
}

func titleFirst(s string) string {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return s
	}
	return string(s[0]-'a'+'A') + s[1:]
}

// Known bytes: GetRequest{region{REGION_NAME, "r"}, get{row "k"}}.
func TestGetRequestBytes(t *testing.T) {
	m := &GetRequest{
		Region: &RegionSpecifier{Type: RegionSpecifier_REGION_NAME.Enum(), Value: []byte("r")},
		Get:    &Get{Row: []byte("k")},
	}
	b, err := proto.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	want := []byte{0x0a, 0x05, 0x08, 0x01, 0x12, 0x01, 'r', 0x12, 0x03, 0x0a, 0x01, 'k'}
	if string(b) != string(want) {
		t.Fatalf("got % x, want % x", b, want)
	}
	// proto2 required fields are enforced: an unset Get.row must not marshal.
	if _, err := proto.Marshal(&GetRequest{Region: m.Region, Get: &Get{}}); err == nil {
		t.Fatal("Get without row marshalled")
	}
}

// Declared defaults make getters return HBase's semantic defaults.
func TestDefaults(t *testing.T) {
	if (&Get{}).GetMaxVersions() != 1 || (&Scan{}).GetMaxVersions() != 1 {
		t.Error("max_versions default is not 1")
	}
	if !(&Scan{}).GetIncludeStartRow() || (&Scan{}).GetIncludeStopRow() {
		t.Error("include_start_row/include_stop_row defaults wrong")
	}
	if (&TimeRange{}).GetTo() != 1<<63-1 {
		t.Error("TimeRange.to default is not Long.MAX_VALUE")
	}
}
