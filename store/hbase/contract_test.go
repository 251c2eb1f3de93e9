package hbasestore

import (
	"testing"

	"commentbench/store/storetest"
)

// The store's contract through HBase's protocol and the test cluster.
func TestCheckAndMutate(t *testing.T) { storetest.CheckAndMutate(t, start(t, false).st, "cam") }
func TestDeleteAt(t *testing.T)       { storetest.DeleteAt(t, start(t, false).st, "del") }
