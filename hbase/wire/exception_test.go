package wire

import "testing"

// Every class name of §4.2's table, spelled out rather than via the
// constants, so a typo in a constant fails here.
func TestClassify(t *testing.T) {
	want := map[string]Group{
		"org.apache.hadoop.hbase.CallQueueTooBigException":                  Retryable,
		"org.apache.hadoop.hbase.exceptions.RegionOpeningException":         Retryable,
		"org.apache.hadoop.hbase.quotas.RpcThrottlingException":             Retryable,
		"org.apache.hadoop.hbase.RetryImmediatelyException":                 Retryable,
		"org.apache.hadoop.hbase.RegionTooBusyException":                    Retryable,
		"org.apache.hadoop.hbase.PleaseHoldException":                       Retryable,
		"org.apache.hadoop.hbase.NotServingRegionException":                 Relocate,
		"org.apache.hadoop.hbase.exceptions.RegionMovedException":           Relocate,
		"org.apache.hadoop.hbase.regionserver.RegionServerAbortedException": ServerBroken,
		"org.apache.hadoop.hbase.regionserver.RegionServerStoppedException": ServerBroken,
		"org.apache.hadoop.hbase.exceptions.MasterStoppedException":         ServerBroken,
		"org.apache.hadoop.hbase.ipc.ServerNotRunningYetException":          ServerBroken,
		"org.apache.hadoop.hbase.TableNotFoundException":                    Surface,
		"org.apache.hadoop.hbase.regionserver.NoSuchColumnFamilyException":  Surface,
		"org.apache.hadoop.hbase.UnknownScannerException":                   Surface,
		"org.apache.hadoop.hbase.regionserver.WrongRegionException":         Surface,
		"org.apache.hadoop.hbase.DoNotRetryIOException":                     Surface,
		"org.apache.hadoop.hbase.TableExistsException":                      Surface,
		"org.apache.hadoop.hbase.TableNotEnabledException":                  Surface,
		"org.apache.hadoop.hbase.TableNotDisabledException":                 Surface,
		"org.apache.hadoop.hbase.exceptions.ScannerResetException":          Surface,
		"org.apache.hadoop.hbase.exceptions.OutOfOrderScannerNextException": Surface,
		"org.apache.hadoop.hbase.exceptions.FailedSanityCheckException":     Surface,
		"org.apache.hadoop.hbase.regionserver.LeaseException":               Surface,
		"java.io.IOException":                               Surface,
		"org.apache.hadoop.hbase.notservingregionexception": Surface, // exact match only
		"NotServingRegionException":                         Surface,
		"":                                                  Surface,
	}
	for class, g := range want {
		if got := Classify(class, "some trace"); got != g {
			t.Errorf("%s: %v, want %v", class, got, g)
		}
	}
	trace := "java.io.IOException: Cannot append; log is closed\n\tat org.apache..."
	if got := Classify("java.io.IOException", trace); got != Relocate {
		t.Errorf("closed-log IOException: %v, want relocate", got)
	}
	if got := Classify("org.apache.hadoop.hbase.DoNotRetryIOException", trace); got != Surface {
		t.Errorf("closed-log marker on another class: %v, want surface", got)
	}
	// The constants match the table.
	for _, c := range []string{ExcCallQueueTooBig, ExcRegionOpening, ExcRpcThrottling, ExcRetryImmediately,
		ExcRegionTooBusy, ExcPleaseHold, ExcNotServingRegion, ExcRegionMoved, ExcRegionServerAborted,
		ExcRegionServerStopped, ExcMasterStopped, ExcServerNotRunningYet, ExcTableNotFound,
		ExcNoSuchColumnFamily, ExcUnknownScanner, ExcWrongRegion, ExcDoNotRetryIO, ExcTableExists,
		ExcTableNotEnabled, ExcTableNotDisabled, ExcScannerReset, ExcOutOfOrderScannerNext,
		ExcFailedSanityCheck, ExcLease, ExcIO} {
		if _, ok := want[c]; !ok {
			t.Errorf("constant %q is not in §4.2's table", c)
		}
	}
	if Group(0) != Surface || Relocate.String() != "relocate" || Group(9).String() != "Group(9)" {
		t.Error("group zero value or names changed")
	}
}
