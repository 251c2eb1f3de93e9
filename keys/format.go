package keys

import (
	"encoding/hex"
	"fmt"
	"strings"
	"time"
)

// tsLayout is RFC 3339 with milliseconds, the keys' resolution; in UTC it
// ends in Z.
const tsLayout = "2006-01-02T15:04:05.000Z07:00"

// format prints the key's fields; with the table's parts, in key order and
// with its literals, salts and hashes, so a sample reads like the bytes.
func (k Key) format(t *TableKey) string {
	var b strings.Builder
	b.WriteString(showBytes(k.Table))
	b.WriteByte('[')
	if t == nil {
		k.formatFields(&b)
	} else {
		k.formatParts(&b, t)
	}
	b.WriteByte(']')
	return b.String()
}

func (k Key) formatFields(b *strings.Builder) {
	for _, f := range [][2]string{{"id", k.ID}, {"user", k.UserID}, {"prod", k.ProductID}, {"order", k.OrderID}} {
		if f[1] != "" {
			field(b, f[0], f[1])
		}
	}
	if k.Table == UserComment || k.Table == ProductComment || k.Table == LatestComment || k.Timestamp != 0 {
		field(b, "ts", formatTs(k.Timestamp))
	}
	if k.Table == ProductComment || k.ContentLen != 0 {
		field(b, "len", fmt.Sprint(k.ContentLen))
	}
	if k.Rank != 0 {
		field(b, "rank", fmt.Sprint(k.Rank))
	}
	if k.Opaque != "" {
		field(b, "opaque", hex.EncodeToString([]byte(k.Opaque)))
	}
}

var fieldLabels = map[string]string{FieldID: "id", FieldUserID: "user", FieldProductID: "prod", FieldOrderID: "order"}

func (k Key) formatParts(b *strings.Builder, t *TableKey) {
	key, _ := t.Append(nil, k)
	off := 0
	for _, p := range t.Parts {
		raw := key[off : off+p.Width]
		off += p.Width
		switch p.Kind {
		case PartField, PartReverse:
			field(b, fieldLabels[p.Field], k.field(p.Field))
		case PartLiteral:
			field(b, "", string(p.Literal))
		case PartTs, PartRevTs:
			field(b, "ts", formatTs(k.Timestamp))
		case PartLen, PartRevLen:
			field(b, "len", fmt.Sprint(k.ContentLen))
		case PartRank:
			field(b, "rank", fmt.Sprint(k.Rank))
		case PartSalt:
			field(b, "salt", fmt.Sprint(bucketOf(raw)))
		case PartHash:
			field(b, "hash", hex.EncodeToString(raw))
		}
	}
}

// field writes " name=value" (or " value" without a name), without the
// space when it is the first.
func field(b *strings.Builder, name, v string) {
	if !strings.HasSuffix(b.String(), "[") {
		b.WriteByte(' ')
	}
	if name != "" {
		b.WriteString(name + "=")
	}
	b.WriteString(showBytes(v))
}

func formatTs(ms int64) string {
	return time.UnixMilli(ms).UTC().Format(tsLayout)
}

// Describe decodes key for a message or a sample: its parts in key order,
// or, for bytes the design cannot decode, the table and the bytes quoted.
// table may also be a store table and key one of its row keys (a region's
// bounds, a wide row): it is then decoded as the row key of a table kept
// there.
func (d *Design) Describe(table string, key []byte) string {
	if s, ok := d.Decoded(table, key); ok {
		return s
	}
	return fmt.Sprintf("%s[%s]", table, quotedKey(key))
}

// Decoded is Describe of a key the design decodes, and whether it does.
func (d *Design) Decoded(table string, key []byte) (string, bool) {
	if k, err := d.Decode(table, key); err == nil {
		return k.format(d.Table(table)), true
	}
	for _, t := range d.InStore(table) {
		if t.Wide() && len(key) == t.RowLen {
			if k, err := t.rowKey.decode(key, d.name); err == nil {
				k.Table = table
				return k.format(t.rowKey), true
			}
		}
	}
	return "", false
}
