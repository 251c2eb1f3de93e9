package keys

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// genDesign writes a random design file that follows Parse's rules: every
// table, each with the fields it may use, its required parts, and any
// literals, salts, hashes and reversed fields; the ranking led by parts of
// productId so it stays one prefix scan. The key is written either as
// parts separated by spaces or as a YAML list.
func genDesign(r *rand.Rand, i int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# random design %d\nname: rand-%d\n", i, i)
	if r.IntN(2) == 0 {
		b.WriteString("description: >\n  A random design,\n  folded.\n")
	}
	b.WriteString("tables:\n")
	order := slices.Clone(Tables)
	r.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
	for _, table := range order {
		parts := genParts(r, table)
		fmt.Fprintf(&b, "  %s:\n", table)
		row, column, meta := parts, []string(nil), ""
		if r.IntN(3) == 0 {
			row, column, meta = widen(r, table, parts)
		}
		if r.IntN(3) == 0 {
			b.WriteString("    key:\n")
			for _, p := range row {
				fmt.Fprintf(&b, "      - '%s'\n", strings.ReplaceAll(p, "'", "''"))
			}
		} else {
			fmt.Fprintf(&b, "    key: %s\n", strings.Join(row, " "))
		}
		if column != nil {
			fmt.Fprintf(&b, "    column: %s\n", strings.Join(column, " "))
		}
		if meta != "" {
			fmt.Fprintf(&b, "    meta: %s\n", meta)
		}
		b.WriteString(genSplits(r, row))
	}
	return b.String()
}

// widen keeps a listing's entries as columns of its owner's row, where
// Parse takes it: the row is the parts a read builds from the owner (and
// holds the owner itself), the column a literal type and the rest, led by
// revTs or rank (HBase reads columns ascending only). Sometimes the
// collection keeps a count, sorting before its entries. Anything else
// stays a row of its own: nil column.
func widen(r *rand.Rand, table string, parts []string) (row, column []string, meta string) {
	lead := "revTs"
	owner := map[string]string{UserComment: "userId", ProductComment: "productId", ProductRank: "productId"}[table]
	if table == ProductRank {
		lead = "rank"
	}
	at := slices.Index(parts, lead)
	if owner == "" || at < 0 || slices.IndexFunc(parts[:at], func(p string) bool { return p == owner || p == "reverse("+owner+")" }) < 0 {
		return parts, nil, ""
	}
	typ := fmt.Sprintf("lit(0x%02x)", 1+r.IntN(250))
	if table != ProductRank && r.IntN(2) == 0 {
		meta = fmt.Sprintf("lit(0x%02x)", 0)
		typ = "lit(0x01)"
	}
	return parts[:at], append([]string{typ}, parts[at:]...), meta
}

func genParts(r *rand.Rand, table string) []string {
	fields := tableFields[table]
	idPart := func(f string) string {
		if r.IntN(3) == 0 {
			return "reverse(" + f + ")"
		}
		return f
	}
	var parts []string
	for _, f := range fields {
		required := map[string]bool{
			FieldID: true, FieldUserID: table == UserComment,
			FieldProductID: table != UserComment, FieldOrderID: table == Comment,
		}[f]
		if required || r.IntN(2) == 0 {
			parts = append(parts, idPart(f))
		}
	}
	pick := func(a, b string) string { return []string{a, b}[r.IntN(2)] }
	switch table {
	case UserComment, ProductComment:
		parts = append(parts, pick("ts", "revTs"))
		if table == ProductComment || r.IntN(2) == 0 {
			parts = append(parts, pick("len", "revLen"))
		}
	}
	for range r.IntN(4) {
		parts = append(parts, genExtra(r, fields))
	}
	r.Shuffle(len(parts), func(i, j int) { parts[i], parts[j] = parts[j], parts[i] })
	switch table {
	case UserComment:
		parts = timeFirstToVary(parts, FieldUserID)
	case ProductComment:
		parts = timeFirstToVary(parts, FieldProductID)
	}
	if table == ProductRank {
		// Every part here is made from productId alone: rank may go
		// anywhere after productId itself.
		at := slices.IndexFunc(parts, func(p string) bool { return strings.Contains(p, "productId") && !strings.Contains(p, "(productId,") })
		at += 1 + r.IntN(len(parts)-at)
		parts = slices.Insert(parts, at, "rank")
	}
	return parts
}

// timeFirstToVary moves a listing's time part to where Parse wants it:
// right past the parts a read can build (literals, the owner and what is
// made from it alone, salts it can enumerate), so pages come out newest
// first.
func timeFirstToVary(parts []string, owner string) []string {
	at := slices.IndexFunc(parts, func(p string) bool { return p == "ts" || p == "revTs" })
	tp := parts[at]
	parts = slices.Delete(parts, at, at+1)
	fan, i := 1, 0
	for ; i < len(parts); i++ {
		p := parts[i]
		if strings.HasPrefix(p, "lit(") || p == owner || p == "reverse("+owner+")" || strings.HasPrefix(p, "hash("+owner+",") {
			continue
		}
		if args, ok := strings.CutPrefix(p, "salt("); ok {
			a := strings.Split(strings.TrimSuffix(args, ")"), ",")
			if slices.IndexFunc(a[:len(a)-1], func(f string) bool { return f != owner }) < 0 {
				continue // over the owner alone: derivable
			}
			var n int
			fmt.Sscan(a[len(a)-1], &n)
			if fan*n <= MaxFanout {
				fan *= n
				continue
			}
		}
		break
	}
	return slices.Insert(parts, i, tp)
}

// genExtra is a literal, a salt or a hash over the table's fields (the key
// may lack them).
func genExtra(r *rand.Rand, fields []string) string {
	switch r.IntN(3) {
	case 0:
		return "lit(" + genLiteral(r) + ")"
	case 1:
		var over []string
		for range 1 + r.IntN(3) {
			over = append(over, fields[r.IntN(len(fields))])
		}
		n := []int{1, 2, 8, 255, 256, 257, 1000, MaxBuckets}[r.IntN(8)]
		return fmt.Sprintf("salt(%s,%d)", strings.Join(over, ","), n)
	}
	return fmt.Sprintf("hash(%s,%d)", fields[r.IntN(len(fields))], 1+r.IntN(8))
}

// genLiteral is printable ASCII as lit() takes it, or hex.
func genLiteral(r *rand.Rand) string {
	n := 1 + r.IntN(4)
	if r.IntN(3) == 0 {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(r.IntN(256))
		}
		return "0x" + hex.EncodeToString(b)
	}
	for {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte('!' + r.IntN('~'-'!'+1))
		}
		s := string(b)
		if plain(s) && !strings.ContainsAny(s, "(),") && !strings.HasPrefix(s, "0x") {
			return s
		}
	}
}

func genSplits(r *rand.Rand, parts []string) string {
	leadingSalt := false
	for _, p := range parts {
		if !strings.HasPrefix(p, "lit(") {
			leadingSalt = strings.HasPrefix(p, "salt(")
			break
		}
	}
	switch r.IntN(5) {
	case 0:
		return ""
	case 1:
		return "    splits: regions\n"
	case 2:
		return fmt.Sprintf("    splits: %d\n", 1+r.IntN(100))
	case 3:
		if leadingSalt {
			return "    splits: buckets\n"
		}
	}
	var keys []string
	for range 1 + r.IntN(4) {
		b := make([]byte, 1+r.IntN(3))
		for i := range b {
			b[i] = byte(r.IntN(256))
		}
		keys = append(keys, string(b))
	}
	slices.Sort(keys)
	keys = slices.Compact(keys)
	var out strings.Builder
	out.WriteString("    splits:\n")
	for _, k := range keys {
		fmt.Fprintf(&out, "      - 0x%x\n", k)
	}
	return out.String()
}

func randomDesigns(t *testing.T, seed uint64, n int) []*Design {
	t.Helper()
	r := newRand(seed)
	var out []*Design
	for i := range n {
		src := genDesign(r, i)
		d, err := Parse(fmt.Sprintf("rand-%d.yaml", i), []byte(src))
		if err != nil {
			t.Fatalf("a valid random design does not parse: %v\n%s", err, src)
		}
		if string(d.Source()) != src {
			t.Fatalf("Source() is not the file")
		}
		out = append(out, d)
	}
	return out
}

// TestRandomDesignsRoundTrip: in any valid design, decode(encode(k)) is k
// for a key with the fields its table holds (and the bytes of salts and
// hashes over fields it lacks as Opaque); and a writer's full key decodes
// to the fields the key holds, its lacking salts and hashes as Opaque, and
// encodes back to the same bytes.
func TestRandomDesignsRoundTrip(t *testing.T) {
	r := newRand(30)
	for _, d := range randomDesigns(t, 31, 300) {
		for _, table := range Tables {
			tk := d.Table(table)
			for range 30 {
				k := genKey(r, d, table)
				b, err := d.Encode(k)
				if err != nil || len(b) != tk.Len {
					t.Fatalf("%s %s: encode %v: %d bytes, %v; want %d\n%s", d.Name(), table, k, len(b), err, tk.Len, d.Source())
				}
				got, err := d.Decode(table, b)
				if err != nil || got != k {
					t.Fatalf("%s %s: decode(encode(%v)) = %v, %v\n%s", d.Name(), table, k, got, err, d.Source())
				}

				full := fullKey(r, table)
				fb := enc(t, d, full)
				dk, err := d.Decode(table, fb)
				if err != nil {
					t.Fatalf("%s %s: decode %x: %v\n%s", d.Name(), table, fb, err, d.Source())
				}
				want := Key{Table: table}
				var opaque []byte
				for _, p := range tk.Parts {
					switch p.Kind {
					case PartField, PartReverse:
						want.setField(p.Field, full.field(p.Field))
					case PartTs, PartRevTs:
						want.Timestamp = full.Timestamp
					case PartLen, PartRevLen:
						want.ContentLen = full.ContentLen
					case PartRank:
						want.Rank = full.Rank
					}
				}
				for _, p := range tk.Parts {
					if (p.Kind == PartSalt || p.Kind == PartHash) && !want.has(p.inputs()) {
						opaque = p.derive(opaque, full)
					}
				}
				want.Opaque = string(opaque)
				if dk != want {
					t.Fatalf("%s %s: %v decodes to %v, want %v\n%s", d.Name(), table, full, dk, want, d.Source())
				}
				if again := enc(t, d, dk); !bytes.Equal(again, fb) {
					t.Fatalf("%s %s: %v re-encodes to %x, want %x", d.Name(), table, dk, again, fb)
				}
				if s := d.Describe(table, fb); s == fmt.Sprintf("%s[%s]", table, quotedKey(fb)) {
					t.Fatalf("%s %s: Describe(%x) = %s", d.Name(), table, fb, s)
				}
			}
		}
	}
}

// TestRandomDesignsListings: an owner's rows are owned by the owner's
// listing and by no other owner's; a listing that does not filter reads
// only its owner's rows in its branches, even against another owner
// chosen to share every byte of the prefix it can share (a salt or hash
// of the owner).
func TestRandomDesignsListings(t *testing.T) {
	r := newRand(32)
	owners := map[string]string{UserComment: FieldUserID, ProductComment: FieldProductID, ProductRank: FieldProductID}
	for _, d := range randomDesigns(t, 33, 300) {
		for table, field := range owners {
			a := NewRandom(r).Next()
			la := listingOf(t, d, table, a)
			row := func(owner string) []byte {
				k := fullKey(r, table)
				k.setField(field, owner)
				return enc(t, d, k)
			}
			for range 20 {
				ka := row(a)
				if !la.Owns(ka) {
					t.Fatalf("%s %s: %s's listing does not own its row %x\n%s", d.Name(), table, a, ka, d.Source())
				}
				if b := la.Branch(ka); la.Ends[b] != nil && bytes.Compare(ka, la.Ends[b]) >= 0 {
					t.Fatalf("%s %s: row %x is not below its branch's end %x", d.Name(), table, ka, la.Ends[b])
				}
			}
			for range 20 {
				if ka := row(a); la.Wide {
					rw, start, stop := la.Slice(la.Branch(ka))
					col := ka[la.RowLen:]
					if !bytes.Equal(rw, ka[:la.RowLen]) || bytes.Compare(col, start) < 0 || (stop != nil && bytes.Compare(col, stop) >= 0) {
						t.Fatalf("%s %s: %s's entry %x is not in its branch's slice: row %x, columns [%x, %x)\n%s",
							d.Name(), table, a, ka, rw, start, stop, d.Source())
					}
				}
			}
			for b, p := range la.Branches {
				e := la.Ends[b]
				if e == nil && len(bytes.Trim(p, "\xff")) > 0 {
					t.Fatalf("%s %s: branch %x ends at the table's end", d.Name(), table, p)
				}
				if e != nil && (bytes.HasPrefix(e, p) || bytes.Compare(e, p) <= 0) {
					t.Fatalf("%s %s: branch %x ends at %x, which is not past it", d.Name(), table, p, e)
				}
			}
			for try := range 600 {
				b := NewRandom(r).Next()
				if b == a {
					continue
				}
				kb := row(b)
				if la.Owns(kb) {
					t.Fatalf("%s %s: %s's listing owns %s's row %x\n%s", d.Name(), table, a, b, kb, d.Source())
				}
				if br := la.Branch(kb); br >= 0 && !la.Filtered {
					t.Fatalf("%s %s: branch %q of %s's unfiltered listing holds %s's row %x (try %d)\n%s",
						d.Name(), table, la.Branches[br], a, b, kb, try, d.Source())
				}
				if !listingOf(t, d, table, b).Owns(kb) {
					t.Fatalf("%s %s: %s's listing does not own its row %x", d.Name(), table, b, kb)
				}
			}
		}
	}
}

// TestRandomDesignsSplits: every random design's tables split into
// ascending keys: the region count asked for, one region per bucket, or
// the list as written.
func TestRandomDesignsSplits(t *testing.T) {
	for _, d := range randomDesigns(t, 34, 300) {
		for _, table := range Tables {
			tk := d.Table(table)
			s, err := tk.SplitPoints(RandomLetters, 16)
			if err != nil {
				t.Fatalf("%s %s: %v\n%s", d.Name(), table, err, d.Source())
			}
			want := 15
			switch sp := tk.Splits; {
			case sp.Explicit != nil:
				want = len(sp.Explicit)
			case sp.Buckets:
				want = tk.leadingSalt().Buckets - 1
			case !sp.Regions:
				want = sp.Count - 1
			}
			if len(s) != want {
				t.Fatalf("%s %s: %d splits, want %d (%+v)", d.Name(), table, len(s), want, tk.Splits)
			}
			for i := 1; i < len(s); i++ {
				if bytes.Compare(s[i-1], s[i]) >= 0 {
					t.Fatalf("%s %s: split %d %x not above %x", d.Name(), table, i, s[i], s[i-1])
				}
			}
		}
	}
}

// A comment's key is made of its order and product alone: literals, and
// parts of those two fields or derived from them. The checker compares a
// comment's key with the encoding of its value's order and product on
// that ground (check's keyOf).
func TestRandomDesignsCommentKeyOfOrderAndProduct(t *testing.T) {
	for _, d := range randomDesigns(t, 32, 300) {
		for _, p := range d.Table(Comment).Parts {
			switch p.Kind {
			case PartLiteral:
			case PartField, PartReverse, PartSalt, PartHash:
				for _, f := range p.inputs() {
					if f != FieldOrderID && f != FieldProductID {
						t.Fatalf("%s: comment key part %s is made of %s\n%s", d.Name(), p.Source, f, d.Source())
					}
				}
			default:
				t.Fatalf("%s: comment key part %s is no field's\n%s", d.Name(), p.Source, d.Source())
			}
		}
	}
}
