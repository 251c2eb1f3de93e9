package results

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
)

// A Ledger records the outcome of every comment write of a run, so that a
// checker can later prove that every acknowledged comment exists. Each
// worker appends to its own file, so writing takes no shared lock.
//
// A record is one status byte, the key's length as one byte, the comment's
// row key and, for the upper-case statuses, the content's length in UTF-8
// bytes as 4 bytes big-endian: what the comment's index keys were made
// from, which an edit changes in the comment but not in its index rows.
// Ledgers written before the length was recorded read as length -1.
type Ledger struct {
	dir     string
	mu      sync.Mutex
	writers []*LedgerWriter
}

// Ledger record statuses.
const (
	Acked   byte = 'a' // the write returned success
	Unknown byte = 'u' // a put failed or timed out: the comment may or may not exist
)

// withLen marks a status whose record carries the content length.
func withLen(status byte) byte { return status - 'a' + 'A' }

// LedgerRecord is one comment write's outcome.
type LedgerRecord struct {
	Status byte   // Acked or Unknown
	Key    []byte // the comment's row key; valid only during the callback
	Len    int    // the content's length in UTF-8 bytes when written; -1 if not recorded
}

const ledgerGlob = "ledger-*.bin"

// NewLedger keeps its files in dir.
func NewLedger(dir string) *Ledger { return &Ledger{dir: dir} }

// Writer opens worker i's file.
func (l *Ledger) Writer(i int) (*LedgerWriter, error) {
	f, err := os.Create(filepath.Join(l.dir, fmt.Sprintf("ledger-%04d.bin", i)))
	if err != nil {
		return nil, fmt.Errorf("ledger: %w", err)
	}
	w := &LedgerWriter{f: f, b: bufio.NewWriterSize(f, 64<<10)}
	l.mu.Lock()
	l.writers = append(l.writers, w)
	l.mu.Unlock()
	return w, nil
}

// Close flushes and closes every worker's file.
func (l *Ledger) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	var errs []error
	for _, w := range l.writers {
		errs = append(errs, w.close())
	}
	l.writers = nil
	return errors.Join(errs...)
}

// LedgerWriter is one worker's ledger file. Not safe for concurrent use.
type LedgerWriter struct {
	f   *os.File
	b   *bufio.Writer
	err error
}

// Write records one comment write's outcome and the content length it was
// written with. The first error sticks and is returned by Close.
func (w *LedgerWriter) Write(status byte, commentKey []byte, contentLen int) {
	if w.err != nil || len(commentKey) > 255 {
		return
	}
	w.b.WriteByte(withLen(status))
	w.b.WriteByte(byte(len(commentKey)))
	w.b.Write(commentKey)
	var n [4]byte
	binary.BigEndian.PutUint32(n[:], uint32(contentLen))
	_, w.err = w.b.Write(n[:])
}

func (w *LedgerWriter) close() error {
	if err := w.b.Flush(); err != nil && w.err == nil {
		w.err = err
	}
	if err := w.f.Close(); err != nil && w.err == nil {
		w.err = err
	}
	return w.err
}

// ReadLedger calls fn for every record of the run in dir. A run without a
// ledger is an error: there is nothing to reconcile with.
func ReadLedger(dir string, fn func(LedgerRecord) error) error {
	files, err := filepath.Glob(filepath.Join(dir, ledgerGlob))
	if err != nil {
		return err
	}
	if len(files) == 0 {
		return fmt.Errorf("ledger: no %s in %s: is it a loadgen results directory?", ledgerGlob, dir)
	}
	for _, path := range files {
		if err := readLedgerFile(path, fn); err != nil {
			return err
		}
	}
	return nil
}

func readLedgerFile(path string, fn func(LedgerRecord) error) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("ledger: %w", err)
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 64<<10)
	key := make([]byte, 255)
	for {
		var head [2]byte
		if _, err := io.ReadFull(r, head[:]); err == io.EOF {
			return nil
		} else if err != nil {
			return fmt.Errorf("ledger %s: truncated record: %w", path, err)
		}
		rec := LedgerRecord{Status: head[0], Len: -1}
		hasLen := false
		switch head[0] {
		case Acked, Unknown:
		case withLen(Acked), withLen(Unknown):
			rec.Status, hasLen = head[0]-'A'+'a', true
		default:
			return fmt.Errorf("ledger %s: bad status byte %#x", path, head[0])
		}
		rec.Key = key[:head[1]]
		if _, err := io.ReadFull(r, rec.Key); err != nil {
			return fmt.Errorf("ledger %s: truncated record: %w", path, err)
		}
		if hasLen {
			var n [4]byte
			if _, err := io.ReadFull(r, n[:]); err != nil {
				return fmt.Errorf("ledger %s: truncated record: %w", path, err)
			}
			rec.Len = int(binary.BigEndian.Uint32(n[:]))
		}
		if err := fn(rec); err != nil {
			return err
		}
	}
}
