package results

import (
	"fmt"
	"strings"
)

// TableStorage is one table at the end of a run: its bytes measured by
// summing HBase's KeyValue size over its live cells, beside the storage
// model's bytes for as many entries (loadgen plan's model: an estimate).
// Rows are the table's entries: rows of one cell, or on a wide design
// columns, in the rows of Store when the design keeps them in another
// table's.
type TableStorage struct {
	Table         string `json:"table"`
	Store         string `json:"store,omitempty"`
	Rows          int64  `json:"rows"`
	MeasuredBytes int64  `json:"measured_bytes"`
	ModeledBytes  int64  `json:"modeled_bytes"`
}

// printStorage shows measured bytes beside the model's, for the tables
// that hold rows.
func printStorage(b *strings.Builder, ts []TableStorage) {
	if len(ts) == 0 {
		return
	}
	line(b, "storage (bytes as HBase cells)  %12s %10s %10s %6s", "entries", "measured", "modeled", "ratio")
	for _, t := range ts {
		if t.Rows == 0 {
			continue
		}
		name := t.Table
		if t.Store != "" {
			name += " (in " + t.Store + ")"
		}
		line(b, "  %-29s %12d %10s %10s %6.2f", name, t.Rows, byteSize(t.MeasuredBytes), byteSize(t.ModeledBytes),
			float64(t.ModeledBytes)/float64(max(t.MeasuredBytes, 1)))
	}
}

// byteSize writes n bytes in binary units: "812 B", "4.6 MiB".
func byteSize(n int64) string {
	const units = "KMGTPE"
	if n < 1024 {
		return fmt.Sprintf("%d B", n)
	}
	v, i := float64(n)/1024, 0
	for ; v >= 1024 && i < len(units)-1; i++ {
		v /= 1024
	}
	return fmt.Sprintf("%.1f %ciB", v, units[i])
}
