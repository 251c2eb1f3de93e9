package keys

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// ErrBadID is wrapped by every error about an id, so a caller can tell "the
// request named a malformed entity" (a client error) from a storage failure
// with errors.Is, whatever the message says.
var ErrBadID = errors.New("keys: bad id")

// ErrBadKey is wrapped by every error about a row key that cannot be built or
// decoded (wrong length, separator or table), so a checker reading a table
// can count garbage rows instead of crashing on them.
var ErrBadKey = errors.New("keys: bad key")

// ErrOutOfRange is wrapped when a timestamp, content length or rank cannot be
// encoded without overflowing its field, which would silently break the
// newest-first or longest-first order.
var ErrOutOfRange = errors.New("keys: value out of range")

// keyError carries a sentinel for errors.Is but prints only its message, so
// messages read "id "abc" is 3 bytes, want 10" rather than repeating the
// sentinel's text.
type keyError struct {
	kind error
	msg  string
}

func (e *keyError) Error() string { return e.msg }
func (e *keyError) Unwrap() error { return e.kind }

func errorf(kind error, format string, args ...any) error {
	return &keyError{kind: kind, msg: fmt.Sprintf(format, args...)}
}

// maxShown bounds how much of a bad value an error or Key.String prints, so
// one garbage megabyte does not flood a log.
const maxShown = 40

// showBytes prints b bare when it is plain printable ASCII (the common case:
// ids) and quoted with escapes otherwise, so garbage stays readable.
func showBytes(b string) string {
	cut := ""
	if len(b) > maxShown {
		b, cut = b[:maxShown], "..."
	}
	if plain(b) && b != "" {
		return b + cut
	}
	return strconv.Quote(b) + cut
}

func plain(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c <= ' ' || c > '~' || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}

// quotedKey is quoted for a key, cut before converting so a huge garbage
// key costs no more than a short one.
func quotedKey(b []byte) string {
	if len(b) > maxShown {
		return strconv.Quote(string(b[:maxShown])) + "..."
	}
	return strconv.Quote(string(b))
}

// quoted is for error messages, which always quote so an empty or
// space-padded value is visible.
func quoted(s string) string {
	if len(s) > maxShown {
		return strconv.Quote(s[:maxShown]) + "..."
	}
	return strconv.Quote(s)
}

// QuoteBytes quotes a key for people: printable ASCII as it is, every other
// byte as \xNN, so no byte is mistaken for a character it happens to
// encode.
func QuoteBytes(b []byte) string {
	var sb strings.Builder
	sb.WriteByte('"')
	for _, c := range b {
		switch {
		case c == '"' || c == '\\':
			sb.WriteByte('\\')
			sb.WriteByte(c)
		case c >= ' ' && c <= '~':
			sb.WriteByte(c)
		default:
			fmt.Fprintf(&sb, "\\x%02x", c)
		}
	}
	sb.WriteByte('"')
	return sb.String()
}
