package hbase

import (
	"errors"
	"fmt"
	"strings"

	"commentbench/hbase/wire"
)

// Sentinels for the surfaced exceptions callers commonly branch on; an
// *Error of the matching Java class satisfies errors.Is with them.
var (
	ErrTableNotFound    = errors.New("hbase: table not found")
	ErrTableExists      = errors.New("hbase: table exists")
	ErrTableNotEnabled  = errors.New("hbase: table not enabled")
	ErrTableNotDisabled = errors.New("hbase: table not disabled")
	ErrNoSuchFamily     = errors.New("hbase: no such column family")
	ErrUnknownRegion    = errors.New("hbase: unknown region")
	ErrSnapshotExists   = errors.New("hbase: snapshot exists")
	ErrNoSnapshot       = errors.New("hbase: no such snapshot")
	ErrAccessDenied     = errors.New("hbase: access denied")
	// ErrRowTooBig is a read that would return more of one row than the
	// cluster's hbase.table.max.rowsize (RowTooBigException); it is not
	// retried. Read the row in slices (a ColumnPaginationFilter) or scan
	// it in batches instead.
	ErrRowTooBig = errors.New("hbase: row too big")
	// ErrUnavailable wraps Dial failures: no bootstrap node was reachable
	// or none answered like an HBase server.
	ErrUnavailable = errors.New("hbase: cluster unavailable")
	// ErrClosed is returned by calls on a closed Client.
	ErrClosed = errors.New("hbase: client closed")
)

var classSentinel = map[string]error{
	wire.ExcTableNotFound:        ErrTableNotFound,
	wire.ExcTableExists:          ErrTableExists,
	wire.ExcTableNotEnabled:      ErrTableNotEnabled,
	wire.ExcTableNotDisabled:     ErrTableNotDisabled,
	wire.ExcNoSuchColumnFamily:   ErrNoSuchFamily,
	wire.ExcUnknownRegion:        ErrUnknownRegion,
	wire.ExcSnapshotExists:       ErrSnapshotExists,
	wire.ExcSnapshotDoesNotExist: ErrNoSnapshot,
	wire.ExcUnknownSnapshot:      ErrNoSnapshot,
	wire.ExcAccessDenied:         ErrAccessDenied,
	wire.ExcRowTooBig:            ErrRowTooBig,
	wire.ExcRowTooBigClient:      ErrRowTooBig,
}

// Error is an exception raised by the server (call level, Multi region or
// action level, or a failed procedure).
type Error struct {
	Class   string // fully qualified Java class name
	Message string // stack trace or message text
	Group   wire.Group
}

func (e *Error) Error() string {
	msg := e.Message
	if i := strings.IndexByte(msg, '\n'); i >= 0 {
		msg = msg[:i]
	}
	return fmt.Sprintf("hbase: %s: %s", e.Class, msg)
}

// Is matches the sentinel of e's class.
func (e *Error) Is(target error) bool {
	s, ok := classSentinel[e.Class]
	return ok && s == target
}

func newError(class, msg string) *Error {
	return &Error{Class: class, Message: msg, Group: wire.Classify(class, msg)}
}

// retryableError is a client-side condition worth retrying after backoff,
// such as an undecodable response or a meta row that does not cover the key.
type retryableError struct{ msg string }

func (e *retryableError) Error() string { return "hbase: " + e.msg }

// groupOf tells how the retry loops react to err.
func groupOf(err error) (wire.Group, string) {
	var he *Error
	var te *transportError
	var re *retryableError
	switch {
	case errors.As(err, &he):
		return he.Group, he.Class
	case errors.As(err, &te):
		return wire.ServerBroken, "transport"
	case errors.As(err, &re):
		return wire.Retryable, "client"
	}
	return wire.Surface, ""
}
