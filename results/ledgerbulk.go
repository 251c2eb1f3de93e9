package results

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
)

// BulkLedgerWriter is a ledger file for writes made in bulk (a bulk load):
// the same records as a LedgerWriter's, buffered, reaching the file system
// and the disk at Sync. A bulk load syncs its pending records before its
// data lands and its outcomes after, so the ledger tells, as for writes
// made one by one, what a crash left in flight. Not safe for concurrent
// use.
type BulkLedgerWriter struct {
	f   *os.File
	b   *bufio.Writer
	rec []byte
	err error
}

// Bulk opens a bulk writer's file, ledger-NAME.bin, among the ledger's.
func (l *Ledger) Bulk(name string) (*BulkLedgerWriter, error) {
	f, err := os.Create(filepath.Join(l.dir, "ledger-"+name+".bin"))
	if err != nil {
		return nil, fmt.Errorf("ledger: %w", err)
	}
	return &BulkLedgerWriter{f: f, b: bufio.NewWriterSize(f, 256<<10)}, nil
}

// Write buffers a record (see LedgerWriter.Write); the first error sticks.
func (w *BulkLedgerWriter) Write(status byte, commentKey []byte, contentLen int) {
	if w.err != nil || len(commentKey) > 255 {
		return
	}
	w.rec = appendRecord(w.rec[:0], status, commentKey, contentLen)
	if _, err := w.b.Write(w.rec); err != nil {
		w.err = fmt.Errorf("ledger: %w", err)
	}
}

// Sync writes what is buffered and makes it durable.
func (w *BulkLedgerWriter) Sync() error {
	if w.err == nil {
		if err := errors.Join(w.b.Flush(), w.f.Sync()); err != nil {
			w.err = fmt.Errorf("ledger: %w", err)
		}
	}
	return w.err
}

// Close syncs and closes the file.
func (w *BulkLedgerWriter) Close() error {
	err := w.Sync()
	if cerr := w.f.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("ledger: %w", cerr)
	}
	return err
}

// appendRecord appends one framed record (see Ledger).
func appendRecord(r []byte, status byte, commentKey []byte, contentLen int) []byte {
	start := len(r)
	r = append(r, framed(status), byte(len(commentKey)))
	r = append(r, commentKey...)
	r = binary.BigEndian.AppendUint32(r, uint32(contentLen))
	return binary.BigEndian.AppendUint32(r, crc32.ChecksumIEEE(r[start:]))
}

// Adopt copies the ledger file at path (another run's bulk load, kept
// with a base it reuses) into this ledger, under its own name: the
// comments it records are this run's to prove too.
func (l *Ledger) Adopt(path string) error {
	in, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("ledger: %w", err)
	}
	defer in.Close()
	out, err := os.OpenFile(filepath.Join(l.dir, filepath.Base(path)), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return fmt.Errorf("ledger: %w", err)
	}
	_, err = io.Copy(out, in)
	if err = errors.Join(err, out.Sync(), out.Close()); err != nil {
		return fmt.Errorf("ledger: adopt %s: %w", path, err)
	}
	return nil
}
