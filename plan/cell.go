package plan

// Fixed parts of an HBase KeyValue, the unit a store file and the memstore
// hold for every cell (org.apache.hadoop.hbase.KeyValue: its layout is
// <keylength:int><valuelength:int><key><value>, the key being
// <rowlength:short><row><familylength:byte><family><qualifier>
// <timestamp:long><type:byte>):
//
//	cell = 4 (key length) + 4 (value length)
//	     + 2 (row length) + row + 1 (family length) + family + qualifier
//	     + 8 (timestamp) + 1 (type)
//	     + value
//
// So every cell repeats its row key, family and qualifier: why seed 004 asks
// for short keys and names.
const (
	lengthsBytes   = 4 + 4 // key length, value length
	rowLenBytes    = 2
	familyLenBytes = 1
	timestampBytes = 8
	typeBytes      = 1
	// CellOverhead is what a cell costs beyond its row, family, qualifier
	// and value.
	CellOverhead = lengthsBytes + rowLenBytes + familyLenBytes + timestampBytes + typeBytes
)

// CellBytes is the size of one cell as a KeyValue, in bytes.
func CellBytes(row, family, qualifier, value int) int {
	return CellOverhead + row + family + qualifier + value
}

// CellFormula is the formula as the plan prints it.
const CellFormula = "4 key length + 4 value length + 2 row length + row + 1 family length + family + qualifier + 8 timestamp + 1 type + value"
