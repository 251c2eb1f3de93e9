package wire

import (
	"bytes"
	"crypto/md5"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"google.golang.org/protobuf/proto"

	"commentbench/hbase/pb"
)

// Names of hbase:meta (§5.1). Its only region uses the old naming format,
// without an encoded suffix, so it is spelled out rather than computed.
const (
	MetaTable       = "hbase:meta"
	MetaRegionName  = "hbase:meta,,1"
	MetaEncodedName = "1588230740"
)

// Namespaces every cluster has (§5.1, §6.6). Tables of DefaultNamespace are
// written without a namespace in their textual name.
const (
	DefaultNamespace = "default"
	SystemNamespace  = "hbase"
)

// Meta row layout (§5.4): family and the qualifiers clients read or a
// server writes.
const (
	MetaFamily          = "info"
	MetaRegionInfo      = "regioninfo"
	MetaServer          = "server"
	MetaServerStartCode = "serverstartcode"
)

// PBMagic prefixes protobuf values HBase stores outside RPC: the meta
// regioninfo cell and znode payloads.
const PBMagic = "PBUF"

// TableText is the textual table name used in region names, meta rows and
// gohbase-style APIs: the bare qualifier in the default namespace,
// namespace:qualifier otherwise.
func TableText(tn *pb.TableName) string {
	ns := string(tn.GetNamespace())
	if ns == "" || ns == DefaultNamespace {
		return string(tn.GetQualifier())
	}
	return ns + ":" + string(tn.GetQualifier())
}

// TableFromText is TableText's inverse; "default:t" and "t" give the same
// TableName. Both fields are set (they are proto2-required).
func TableFromText(s string) *pb.TableName {
	ns, q, ok := strings.Cut(s, ":")
	if !ok {
		ns, q = DefaultNamespace, s
	}
	return &pb.TableName{Namespace: []byte(ns), Qualifier: []byte(q)}
}

// canonicalTable drops the "default:" prefix, which never appears in meta
// keys (§10.2 item 7).
func canonicalTable(table string) string {
	return strings.TrimPrefix(table, DefaultNamespace+":")
}

// RegionName builds a new-format region name (§5.1):
// "<table>,<start>,<id>.<md5 hex of the part before the dot>.". A server
// must name regions exactly so (the embedded engine does, so its names are
// the ones the test cluster serves); clients only echo names back.
func RegionName(table string, start []byte, id uint64) []byte {
	name := make([]byte, 0, len(table)+len(start)+24+2*md5.Size+2)
	name = append(name, table...)
	name = append(name, ',')
	name = append(name, start...)
	name = append(name, ',')
	name = strconv.AppendUint(name, id, 10)
	sum := md5.Sum(name)
	name = append(name, '.')
	name = hex.AppendEncode(name, sum[:])
	return append(name, '.')
}

// ErrRegionName reports a region name that is neither new nor old format.
var ErrRegionName = errors.New("hbase wire: malformed region name")

// ParseRegionName splits a region name into its parts. The table ends at
// the first comma and the id starts after the last, because start keys are
// raw bytes that may contain commas. Both formats are accepted: new, whose
// encoded suffix must be the MD5 of the rest, and old (no suffix, like
// hbase:meta,,1). start aliases name.
func ParseRegionName(name []byte) (table string, start []byte, id uint64, err error) {
	first := bytes.IndexByte(name, ',')
	last := bytes.LastIndexByte(name, ',')
	if first <= 0 || first == last {
		return "", nil, 0, fmt.Errorf("%w: %q needs a table and two commas", ErrRegionName, name)
	}
	tail := name[last+1:]
	digits := tail
	if dot := bytes.IndexByte(tail, '.'); dot >= 0 {
		digits = tail[:dot]
		enc := tail[dot+1:]
		if len(enc) != 2*md5.Size+1 || enc[len(enc)-1] != '.' {
			return "", nil, 0, fmt.Errorf("%w: %q: encoded suffix is not 32 hex digits and a dot", ErrRegionName, name)
		}
		sum := md5.Sum(name[:last+1+dot])
		if string(enc[:len(enc)-1]) != hex.EncodeToString(sum[:]) {
			return "", nil, 0, fmt.Errorf("%w: %q: encoded suffix does not match", ErrRegionName, name)
		}
	}
	if len(digits) == 0 || len(digits) > 20 {
		return "", nil, 0, fmt.Errorf("%w: %q: bad region id", ErrRegionName, name)
	}
	for _, c := range digits {
		if c < '0' || c > '9' {
			return "", nil, 0, fmt.Errorf("%w: %q: region id is not decimal", ErrRegionName, name)
		}
	}
	if len(digits) > 1 && digits[0] == '0' {
		// HBase prints ids with Long.toString; a leading zero would make
		// two spellings of one region.
		return "", nil, 0, fmt.Errorf("%w: %q: region id has a leading zero", ErrRegionName, name)
	}
	id, perr := strconv.ParseUint(string(digits), 10, 64)
	if perr != nil {
		return "", nil, 0, fmt.Errorf("%w: %q: %v", ErrRegionName, name, perr)
	}
	return string(name[:first]), name[first+1 : last : last], id, nil
}

// EncodedRegionName is the name HBase uses for a region in logs, file
// paths and ENCODED_REGION_NAME specifiers: the MD5 suffix of a new-format
// name, or MetaEncodedName for hbase:meta.
func EncodedRegionName(name []byte) (string, error) {
	if string(name) == MetaRegionName {
		return MetaEncodedName, nil
	}
	if _, _, _, err := ParseRegionName(name); err != nil {
		return "", err
	}
	if len(name) < 2*md5.Size+2 || name[len(name)-1] != '.' || name[len(name)-2*md5.Size-2] != '.' {
		return "", fmt.Errorf("%w: %q is old-format and has no encoded name", ErrRegionName, name)
	}
	return string(name[len(name)-2*md5.Size-1 : len(name)-1]), nil
}

// MetaLookupRange is the reversed meta scan that finds the region of key
// in table (§5.5): start "T,K,:" and stop "T". The ':' sorts after every
// decimal region id, so under the meta comparator the first row at or
// below start is the region with the greatest start key <= key. K is
// shortened so start stays within MaxRowLen. A "default:" prefix is
// dropped from table.
func MetaLookupRange(table string, key []byte) (start, stop []byte) {
	table = canonicalTable(table)
	if room := MaxRowLen - len(table) - 3; len(key) > room {
		key = key[:max(room, 0)]
	}
	start = make([]byte, 0, len(table)+len(key)+3)
	start = append(start, table...)
	start = append(start, ',')
	start = append(start, key...)
	start = append(start, ',', ':')
	return start, []byte(table)
}

// MetaListRange is the forward meta scan that lists a table's regions
// (§5.6): start "T", stop "T.". The range also covers tables like "T-x"
// (since '-' sorts between ',' and '.'), so callers must still filter rows
// by table.
func MetaListRange(table string) (start, stop []byte) {
	table = canonicalTable(table)
	return []byte(table), []byte(table + ".")
}

// ParseMetaLookupKey recovers table and key from the start row of a
// reversed meta lookup ("T,K,:" from gohbase, "T,K,99999999999999" from
// Java), so a server can answer it by direct computation (§5.7, approach 1).
// key aliases row.
func ParseMetaLookupKey(row []byte) (table string, key []byte, err error) {
	first := bytes.IndexByte(row, ',')
	last := bytes.LastIndexByte(row, ',')
	if first < 0 || first == last {
		return "", nil, fmt.Errorf("hbase wire: meta lookup row %q needs two commas", row)
	}
	return string(row[:first]), row[first+1 : last : last], nil
}

// CompareMetaKeys orders hbase:meta rows the way HBase does (§5.7), which
// plain byte order gets wrong when start keys contain bytes below ','.
// Each row splits into table (before the first comma), start key (between
// the first and last comma) and suffix (after the last comma); the parts
// compare bytewise in that order. A row without a comma is all table and
// sorts before every row of that table; a row with one comma has an empty
// start key.
func CompareMetaKeys(a, b []byte) int {
	at, as, asuf, ac := splitMeta(a)
	bt, bs, bsuf, bc := splitMeta(b)
	if c := bytes.Compare(at, bt); c != 0 {
		return c
	}
	if ac != bc {
		if !ac {
			return -1
		}
		return 1
	}
	if c := bytes.Compare(as, bs); c != 0 {
		return c
	}
	return bytes.Compare(asuf, bsuf)
}

func splitMeta(row []byte) (table, start, suffix []byte, hasComma bool) {
	first := bytes.IndexByte(row, ',')
	if first < 0 {
		return row, nil, nil, false
	}
	last := bytes.LastIndexByte(row, ',')
	if first == last {
		return row[:first], nil, row[last+1:], true
	}
	return row[:first], row[first+1 : last], row[last+1:], true
}

// EncodeRegionInfo produces the value of a meta row's info:regioninfo cell:
// PBMagic followed by the serialized RegionInfo (§5.4).
func EncodeRegionInfo(ri *pb.RegionInfo) ([]byte, error) {
	b, err := proto.MarshalOptions{}.MarshalAppend([]byte(PBMagic), ri)
	if err != nil {
		return nil, fmt.Errorf("hbase wire: marshal region info: %w", err)
	}
	return b, nil
}

// DecodeRegionInfo parses an info:regioninfo value; clients must refuse
// one without the PBUF prefix (§5.4).
func DecodeRegionInfo(value []byte) (*pb.RegionInfo, error) {
	rest, ok := bytes.CutPrefix(value, []byte(PBMagic))
	if !ok {
		return nil, errors.New("hbase wire: regioninfo value lacks the PBUF prefix")
	}
	ri := new(pb.RegionInfo)
	if err := proto.Unmarshal(rest, ri); err != nil {
		return nil, fmt.Errorf("hbase wire: region info: %w", err)
	}
	return ri, nil
}
