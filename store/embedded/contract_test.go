package embedded

import (
	"testing"

	"commentbench/store/storetest"
)

// The store's contract on the engine.
func TestCheckAndMutateContract(t *testing.T) {
	storetest.CheckAndMutate(t, openMem(t, Options{DisableSplits: true}), "cam")
}

func TestDeleteAtContract(t *testing.T) {
	storetest.DeleteAt(t, openMem(t, Options{DisableSplits: true}), "del")
}
