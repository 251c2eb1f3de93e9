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
	"sync"
)

// A Ledger records every comment write of a run, so that a checker can
// later prove that every acknowledged comment exists, and tell the writes
// a crash left in flight from comments no write of the run made. Each
// worker appends to its own file, so writing takes no shared lock.
//
// A write is recorded twice: Pending before its first put, and its outcome
// after: Acked, Unknown (a put failed or timed out: it may have landed) or
// NotWritten (refused before its first put). Each record reaches the file
// system before Write returns, so a process killed at any instant leaves
// every write it started in the ledger: one pending without an outcome was
// in flight. With Sync each outcome is also made durable (fsync) before
// Write returns, as a synced store makes the write itself: a write is
// counted acknowledged only after, so after any crash, the machine's
// included, every acknowledged write is provable.
//
// A record is a status byte, the key's length as one byte, the comment's
// row key, the content's length in UTF-8 bytes (4 bytes big-endian), and a
// CRC-32 (IEEE) of all of that, so a record torn by a crash is told from a
// whole one. Ledgers from before lengths and checksums (lower-case
// statuses, neither) still read, their lengths -1.
type Ledger struct {
	dir     string
	sync    bool
	mu      sync.Mutex
	writers []*LedgerWriter
}

// Ledger record statuses.
const (
	Acked      byte = 'a' // the write returned success
	Unknown    byte = 'u' // a put failed or timed out: the comment may or may not exist
	Pending    byte = 'p' // the write is starting: its outcome follows, unless a crash came first
	NotWritten byte = 'n' // the write was refused before its first put
)

// framed marks a status whose record carries the length and the checksum.
func framed(status byte) byte { return status - 'a' + 'A' }

// LedgerRecord is one comment write's outcome.
type LedgerRecord struct {
	Status byte   // Acked, Unknown, Pending or NotWritten
	Key    []byte // the comment's row key; valid only during the callback
	Len    int    // the content's length in UTF-8 bytes when written; -1 if not recorded
}

const ledgerGlob = "ledger-*.bin"

// NewLedger keeps its files in dir. With sync, every outcome recorded is
// durable before Write returns.
func NewLedger(dir string, sync bool) *Ledger { return &Ledger{dir: dir, sync: sync} }

// Writer opens worker i's file.
func (l *Ledger) Writer(i int) (*LedgerWriter, error) {
	f, err := os.Create(filepath.Join(l.dir, fmt.Sprintf("ledger-%04d.bin", i)))
	if err != nil {
		return nil, fmt.Errorf("ledger: %w", err)
	}
	w := &LedgerWriter{f: f, sync: l.sync}
	l.mu.Lock()
	l.writers = append(l.writers, w)
	l.mu.Unlock()
	return w, nil
}

// Err is the first error any writer met, if any: a run checks it every
// interval, so a ledger that cannot be written stops the run early.
func (l *Ledger) Err() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	var errs []error
	for _, w := range l.writers {
		w.mu.Lock()
		errs = append(errs, w.err)
		w.mu.Unlock()
	}
	return errors.Join(errs...)
}

// Close closes every writer's file.
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

// LedgerWriter is one worker's ledger file. A worker's burst writes its
// comments from several goroutines, hence the lock.
type LedgerWriter struct {
	mu   sync.Mutex
	f    *os.File
	sync bool
	err  error
	rec  []byte
}

// Write records a comment write's status and the content length it was
// written with, on the file system when it returns (and durable, for an
// outcome under Sync). The first error sticks and is returned by Err and
// Close.
func (w *LedgerWriter) Write(status byte, commentKey []byte, contentLen int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil || len(commentKey) > 255 {
		return
	}
	r := appendRecord(w.rec[:0], status, commentKey, contentLen)
	w.rec = r
	if _, w.err = w.f.Write(r); w.err == nil && w.sync && status != Pending {
		w.err = w.f.Sync()
	}
	if w.err != nil {
		w.err = fmt.Errorf("ledger: %w", w.err)
	}
}

func (w *LedgerWriter) close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if err := w.f.Close(); w.err == nil && err != nil {
		w.err = fmt.Errorf("ledger: %w", err)
	}
	return w.err
}

// ReadLedger calls fn for every whole record of the run in dir and returns
// how many files end in a torn record (a process killed mid-write): what
// follows the last whole record is unknown, not an error. A run without a
// ledger is an error: there is nothing to reconcile with.
func ReadLedger(dir string, fn func(LedgerRecord) error) (torn int, err error) {
	files, err := filepath.Glob(filepath.Join(dir, ledgerGlob))
	if err != nil {
		return 0, err
	}
	if len(files) == 0 {
		if _, err := os.Stat(filepath.Join(dir, "timeline.csv")); err == nil {
			return 0, fmt.Errorf("ledger: the run in %s stopped before its first comment write (killed while seeding?): it acknowledged nothing, and there is no %s to check", dir, ledgerGlob)
		}
		return 0, fmt.Errorf("ledger: no %s in %s: is it a loadgen results directory?", ledgerGlob, dir)
	}
	for _, path := range files {
		whole, err := readLedgerFile(path, fn)
		if err != nil {
			return torn, err
		}
		if !whole {
			torn++
		}
	}
	return torn, nil
}

// readLedgerFile reads a file's records up to its end or its first torn
// or corrupt one; whole is false for the latter.
func readLedgerFile(path string, fn func(LedgerRecord) error) (whole bool, err error) {
	f, err := os.Open(path)
	if err != nil {
		return false, fmt.Errorf("ledger: %w", err)
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 64<<10)
	buf := make([]byte, 2+255+8)
	for {
		if _, err := io.ReadFull(r, buf[:2]); err == io.EOF {
			return true, nil
		} else if err != nil {
			return false, nil
		}
		rec, ok, err := readRecord(r, buf)
		if err != nil || !ok {
			return false, err
		}
		if err := fn(rec); err != nil {
			return false, err
		}
	}
}

// readRecord reads the rest of the record whose two head bytes are in buf.
// ok is false for a torn or corrupt record.
func readRecord(r io.Reader, buf []byte) (LedgerRecord, bool, error) {
	status, n := buf[0], int(buf[1])
	switch status {
	case Acked, Unknown: // from before lengths and checksums
		key := buf[2 : 2+n]
		if _, err := io.ReadFull(r, key); err != nil {
			return LedgerRecord{}, false, nil
		}
		return LedgerRecord{Status: status, Key: key, Len: -1}, true, nil
	case framed(Acked), framed(Unknown), framed(Pending), framed(NotWritten):
		body := buf[:2+n+8]
		if _, err := io.ReadFull(r, body[2:]); err != nil {
			return LedgerRecord{}, false, nil
		}
		sum := binary.BigEndian.Uint32(body[2+n+4:])
		if crc32.ChecksumIEEE(body[:2+n+4]) != sum {
			return LedgerRecord{}, false, nil
		}
		return LedgerRecord{Status: status - 'A' + 'a', Key: body[2 : 2+n], Len: int(binary.BigEndian.Uint32(body[2+n:]))}, true, nil
	}
	return LedgerRecord{}, false, nil
}
