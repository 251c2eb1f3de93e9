package wire

import (
	"strconv"
	"strings"
)

// Java exception class names that decide a client's reaction (§4.2). They
// are compared exactly, so both ends must use these spellings.
const (
	ExcCallQueueTooBig     = "org.apache.hadoop.hbase.CallQueueTooBigException"
	ExcRegionOpening       = "org.apache.hadoop.hbase.exceptions.RegionOpeningException"
	ExcRpcThrottling       = "org.apache.hadoop.hbase.quotas.RpcThrottlingException"
	ExcRetryImmediately    = "org.apache.hadoop.hbase.RetryImmediatelyException"
	ExcRegionTooBusy       = "org.apache.hadoop.hbase.RegionTooBusyException"
	ExcPleaseHold          = "org.apache.hadoop.hbase.PleaseHoldException"
	ExcNotServingRegion    = "org.apache.hadoop.hbase.NotServingRegionException"
	ExcRegionMoved         = "org.apache.hadoop.hbase.exceptions.RegionMovedException"
	ExcIO                  = "java.io.IOException"
	ExcRegionServerAborted = "org.apache.hadoop.hbase.regionserver.RegionServerAbortedException"
	ExcRegionServerStopped = "org.apache.hadoop.hbase.regionserver.RegionServerStoppedException"
	ExcMasterStopped       = "org.apache.hadoop.hbase.exceptions.MasterStoppedException"
	ExcServerNotRunningYet = "org.apache.hadoop.hbase.ipc.ServerNotRunningYetException"

	ExcTableNotFound         = "org.apache.hadoop.hbase.TableNotFoundException"
	ExcNoSuchColumnFamily    = "org.apache.hadoop.hbase.regionserver.NoSuchColumnFamilyException"
	ExcUnknownScanner        = "org.apache.hadoop.hbase.UnknownScannerException"
	ExcWrongRegion           = "org.apache.hadoop.hbase.regionserver.WrongRegionException"
	ExcDoNotRetryIO          = "org.apache.hadoop.hbase.DoNotRetryIOException"
	ExcTableExists           = "org.apache.hadoop.hbase.TableExistsException"
	ExcTableNotEnabled       = "org.apache.hadoop.hbase.TableNotEnabledException"
	ExcTableNotDisabled      = "org.apache.hadoop.hbase.TableNotDisabledException"
	ExcScannerReset          = "org.apache.hadoop.hbase.exceptions.ScannerResetException"
	ExcOutOfOrderScannerNext = "org.apache.hadoop.hbase.exceptions.OutOfOrderScannerNextException"
	ExcFailedSanityCheck     = "org.apache.hadoop.hbase.exceptions.FailedSanityCheckException"
	ExcLease                 = "org.apache.hadoop.hbase.regionserver.LeaseException"
	ExcUnknownRegion         = "org.apache.hadoop.hbase.UnknownRegionException"
	ExcSnapshotExists        = "org.apache.hadoop.hbase.snapshot.SnapshotExistsException"
	ExcSnapshotDoesNotExist  = "org.apache.hadoop.hbase.snapshot.SnapshotDoesNotExistException"
	ExcUnknownSnapshot       = "org.apache.hadoop.hbase.snapshot.UnknownSnapshotException"
	// ExcAccessDenied is what HBase's AccessController throws when the
	// user lacks a permission; a DoNotRetryIOException, so it surfaces.
	ExcAccessDenied = "org.apache.hadoop.hbase.security.AccessDeniedException"
	// ExcRowTooBig is what a region server's StoreScanner throws when a
	// Get or a scan call would return more of one row than
	// hbase.table.max.rowsize. Through its parent, ExcRowTooBigClient,
	// it is a DoNotRetryIOException: retrying reads the same row.
	ExcRowTooBig       = "org.apache.hadoop.hbase.regionserver.RowTooBigException"
	ExcRowTooBigClient = "org.apache.hadoop.hbase.client.RowTooBigException"
	// ExcIncompatibleFilter is what a region server throws when a limit
	// would cut a row that a filter must see whole (hasFilterRow).
	ExcIncompatibleFilter = "org.apache.hadoop.hbase.filter.IncompatibleFilterException"
)

// LogClosedMarker in a java.io.IOException's stack trace means the region's
// WAL was closed under it, i.e. the region is going away: re-locate.
const LogClosedMarker = "Cannot append; log is closed"

// Group is what a client does about an exception (§4.2).
type Group int

// The groups of §4.2. Surface is the zero value because unknown classes
// must reach the caller rather than be retried forever.
const (
	// Surface: return the error to the caller.
	Surface Group = iota
	// Retryable: back off and resend to the same region and server.
	Retryable
	// Relocate: the region moved or went away; look it up again in meta.
	Relocate
	// ServerBroken: drop the connection and re-locate all its regions.
	ServerBroken
)

// String names the group for logs and test failures.
func (g Group) String() string {
	switch g {
	case Surface:
		return "surface"
	case Retryable:
		return "retryable"
	case Relocate:
		return "relocate"
	case ServerBroken:
		return "server-broken"
	}
	return "Group(" + strconv.Itoa(int(g)) + ")"
}

var groups = map[string]Group{
	ExcCallQueueTooBig:     Retryable,
	ExcRegionOpening:       Retryable,
	ExcRpcThrottling:       Retryable,
	ExcRetryImmediately:    Retryable,
	ExcRegionTooBusy:       Retryable,
	ExcPleaseHold:          Retryable,
	ExcNotServingRegion:    Relocate,
	ExcRegionMoved:         Relocate,
	ExcRegionServerAborted: ServerBroken,
	ExcRegionServerStopped: ServerBroken,
	ExcMasterStopped:       ServerBroken,
	ExcServerNotRunningYet: ServerBroken,
}

// Classify maps an exception (call-level class name and stack trace, or a
// Multi NameBytesPair's name and value) to its group by exact class name;
// java.io.IOException is Relocate only when its trace carries
// LogClosedMarker. Transport failures are not exceptions and belong to
// ServerBroken; callers decide that without Classify.
func Classify(className, stackTrace string) Group {
	if g, ok := groups[className]; ok {
		return g
	}
	if className == ExcIO && strings.Contains(stackTrace, LogClosedMarker) {
		return Relocate
	}
	return Surface
}
