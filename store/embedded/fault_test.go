package embedded

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/cockroachdb/pebble/v2/vfs/errorfs"

	"commentbench/store"
)

// A disk that fills up mid-run: the write that meets it, and every
// operation after it, fails with the storage error naming the data, the
// Fault channel closes, and Close returns within its bound, never hangs.
func TestDiskFull(t *testing.T) {
	var on atomic.Bool
	inj := errorfs.InjectorFunc(func(op errorfs.Op) error {
		if on.Load() && op.Kind.ReadOrWrite() == errorfs.OpIsWrite {
			return syscall.ENOSPC
		}
		return nil
	})
	// Pebble gives up on a WAL it cannot write (its Fatalf): here that ends
	// the writing goroutine, where a process would exit with code 2.
	e, err := Open(Options{FS: errorfs.Wrap(vfs.NewMem(), inj), Dir: "data", CreateIfMissing: true, Sync: true,
		fatalExit: runtime.Goexit})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := e.CreateTable(ctx, store.TableSpec{Name: "t", Family: "cf"}); err != nil {
		t.Fatal(err)
	}
	put := func(i int) error {
		return e.Mutate(ctx, "t", store.Put([]byte{byte(i)}, store.Cell{Qualifier: []byte("q"), Value: []byte("v")}))
	}
	if err := put(1); err != nil {
		t.Fatalf("before the disk fills: %v", err)
	}
	on.Store(true)
	go func() { _ = put(2) }() // the write that meets the full disk
	select {
	case <-e.Fault():
	case <-time.After(10 * time.Second):
		t.Fatal("Fault did not close on a full disk")
	}
	if err := put(3); !errors.Is(err, store.ErrStorage) || !errors.Is(err, syscall.ENOSPC) || !strings.Contains(err.Error(), "data dir data") {
		t.Fatalf("a write after the disk filled: %v, want the storage error naming the data and ENOSPC", err)
	}
	if _, err := e.Get(ctx, "t", []byte{1}); !errors.Is(err, store.ErrStorage) {
		t.Errorf("a read after the failure: %v, want the storage error", err)
	}
	start := time.Now()
	_ = e.Close()
	if d := time.Since(start); d > CloseTimeout+5*time.Second {
		t.Errorf("Close took %v, over its bound", d)
	}
}
