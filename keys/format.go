package keys

import (
	"fmt"
	"strings"
	"time"
)

// tsLayout is RFC 3339 with milliseconds, the keys' resolution; in UTC it
// ends in Z.
const tsLayout = "2006-01-02T15:04:05.000Z07:00"

func (k Key) format() string {
	var b strings.Builder
	b.WriteString(showBytes(k.Table))
	b.WriteByte('[')
	switch k.Table {
	case User, Seller, Product, Order:
		field(&b, "id", k.ID)
	case Comment:
		field(&b, "order", k.OrderID)
		field(&b, "prod", k.ProductID)
	case UserComment:
		k.formatUserComment(&b)
	case ProductComment:
		k.formatProductComment(&b)
	case ProductRank:
		field(&b, "prod", k.ProductID)
		fmt.Fprintf(&b, " %s rank=%d", showBytes(string(k.Sep)), k.Rank)
	default:
		k.formatUnknown(&b)
	}
	b.WriteByte(']')
	return b.String()
}

func (k Key) formatUserComment(b *strings.Builder) {
	field(b, "user", k.UserID)
	b.WriteString(" ts=" + formatTs(k.Timestamp))
	if k.OrderID != "" || k.ProductID != "" {
		field(b, "order", k.OrderID)
		field(b, "prod", k.ProductID)
	}
}

func (k Key) formatProductComment(b *strings.Builder) {
	field(b, "prod", k.ProductID)
	fmt.Fprintf(b, " %s ts=%s len=%d", showBytes(string(k.Sep)), formatTs(k.Timestamp), k.ContentLen)
	if k.OrderID != "" {
		field(b, "order", k.OrderID)
	}
}

// formatUnknown shows whatever ids a hand-made or zero Key carries.
func (k Key) formatUnknown(b *strings.Builder) {
	for _, f := range [][2]string{{"id", k.ID}, {"user", k.UserID}, {"prod", k.ProductID}, {"order", k.OrderID}} {
		if f[1] != "" {
			field(b, f[0], f[1])
		}
	}
}

// field writes " name=value", without the space when it is the first.
func field(b *strings.Builder, name, v string) {
	if !strings.HasSuffix(b.String(), "[") {
		b.WriteByte(' ')
	}
	b.WriteString(name + "=" + showBytes(v))
}

func formatTs(ms int64) string {
	return time.UnixMilli(ms).UTC().Format(tsLayout)
}
