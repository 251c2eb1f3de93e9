package results

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"commentbench/spread"
)

// HotKeys are the products and users a run worked for most: by requests
// made on their behalf and by rows written for them, each with the region
// and server holding its listing. They are counted in bounded sketches,
// so past a few thousand keys a count is an upper bound: Approximate says
// so, and each key's Error is how much its count may overstate.
type HotKeys struct {
	Top         int  `json:"top"` // most keys per list
	Approximate bool `json:"approximate"`
	// The lists, largest count first. Requests are listing pages, rankings
	// read, comment writes, edits and rank jobs; rows written are a
	// comment's three rows, an edit's one, a ranking's rank rows.
	ProductsByRequests []HotKey `json:"products_by_requests"`
	ProductsByRows     []HotKey `json:"products_by_rows_written"`
	UsersByRequests    []HotKey `json:"users_by_requests"`
	UsersByRows        []HotKey `json:"users_by_rows_written"`
	// Totals are each list's whole count, of every key: shares are of it.
	Totals HotFigures `json:"totals"`
	// ErrorBounds: no count in the list overstates its key's by more; 0
	// when the list is exact.
	ErrorBounds HotFigures `json:"error_bounds"`
}

// HotFigures are one figure per list, under the list's name.
type HotFigures struct {
	ProductsByRequests int64 `json:"products_by_requests"`
	ProductsByRows     int64 `json:"products_by_rows_written"`
	UsersByRequests    int64 `json:"users_by_requests"`
	UsersByRows        int64 `json:"users_by_rows_written"`
}

// HotKey is one key of a list. Its true count lies in [Count-Error, Count].
type HotKey struct {
	Key   string  `json:"key"`
	Count int64   `json:"count"`
	Error int64   `json:"error"`
	Share float64 `json:"share"` // Count over the list's total
	// Table is the index table holding the key's listing; Region, its
	// Range and Server hold the listing's first rows (the first branch's,
	// on a salted design), Regions is how many regions the listing spans.
	Table   string `json:"table"`
	Region  string `json:"region,omitempty"`
	Range   string `json:"range,omitempty"`
	Server  string `json:"server,omitempty"`
	Regions int    `json:"regions,omitempty"`
}

// HotLists name the lists in the order List numbers them.
var HotLists = []string{"products by requests", "products by rows written", "users by requests", "users by rows written"}

// HotList is one list and its figures, so the four are handled alike.
type HotList struct {
	Keys         *[]HotKey
	Total, Bound *int64
}

// List is the i-th list of HotLists.
func (h *HotKeys) List(i int) HotList {
	switch i {
	case 0:
		return HotList{&h.ProductsByRequests, &h.Totals.ProductsByRequests, &h.ErrorBounds.ProductsByRequests}
	case 1:
		return HotList{&h.ProductsByRows, &h.Totals.ProductsByRows, &h.ErrorBounds.ProductsByRows}
	case 2:
		return HotList{&h.UsersByRequests, &h.Totals.UsersByRequests, &h.ErrorBounds.UsersByRequests}
	}
	return HotList{&h.UsersByRows, &h.Totals.UsersByRows, &h.ErrorBounds.UsersByRows}
}

// hotServerWidth leaves a hot key's line room for its region's range.
const hotServerWidth = 12

// hotShown is how many keys of each list the console shows.
const hotShown = 3

// hotLabels head each list's first console line.
var hotLabels = []string{"product requests", "product rows", "user requests", "user rows"}

// printHotKeys shows the first keys of each list, one line each: count
// (marked ≤ when it may overstate), share, server and the region's
// range, with how many more regions a salted listing spans.
func printHotKeys(b *strings.Builder, h *HotKeys) {
	if h == nil {
		return
	}
	line(b, "hot keys (top %d of %d; all in summary.json): count, share, server, region", hotShown, h.Top)
	for i := range HotLists {
		for j, k := range *h.List(i).Keys {
			if j == hotShown {
				break
			}
			label := ""
			if j == 0 {
				label = hotLabels[i]
			}
			hotLine(b, label, k)
		}
	}
	if h.anyBound() {
		line(b, "≤ marks an upper bound: a key the sketch counted for part of the run only")
	}
}

// anyBound says whether a shown count is an upper bound.
func (h *HotKeys) anyBound() bool {
	for i := range HotLists {
		for j, k := range *h.List(i).Keys {
			if j < hotShown && k.Error > 0 {
				return true
			}
		}
	}
	return false
}

// hotLine ends with the region's range, cut to what room the figures leave.
func hotLine(b *strings.Builder, label string, k HotKey) {
	count := compact(k.Count, 7)
	if k.Error > 0 {
		count = "≤" + compact(k.Count, 6)
	}
	head := fmt.Sprintf("  %-16s %-10s %7s %5.1f%% %s ", label, cut(k.Key, 10), count, 100*k.Share, cut(orDash(k.Server), hotServerWidth))
	more := ""
	if k.Regions > 1 {
		more = fmt.Sprintf(" +%d more", k.Regions-1)
	}
	room := lineWidth - utf8.RuneCountInString(head+more)
	line(b, "%s%s%s", head, spread.ShortRange(k.Table, orDash(k.Range), room), more)
}

// mergeHotKeys sums each key's counts over the runs' lists. A run that did
// not list a key may still have counted it, up to its last listed count
// (its bound when its list was not full): the key takes that as count and
// error, so merged counts stay upper bounds, approximate past each run's
// top list. Regions are as the first run listing the key saw them.
func mergeHotKeys(sums []Summary) *HotKeys {
	var hs []*HotKeys
	for _, s := range sums {
		if s.HotKeys != nil {
			hs = append(hs, s.HotKeys)
		}
	}
	if len(hs) == 0 {
		return nil
	}
	out := &HotKeys{}
	for _, h := range hs {
		out.Top = max(out.Top, h.Top)
		out.Approximate = out.Approximate || h.Approximate
	}
	for i := range HotLists {
		mergeHotList(out, i, hs)
	}
	return out
}

func mergeHotList(out *HotKeys, i int, hs []*HotKeys) {
	dst := out.List(i)
	byKey := map[string]*HotKey{}
	var order []string
	var unlisted int64 // the sum of what each run may hold of a key it did not list
	for _, h := range hs {
		l := h.List(i)
		absent := unlistedBound(h, l)
		unlisted += absent
		*dst.Total += *l.Total
		*dst.Bound += max(*l.Bound, absent)
		for _, k := range *l.Keys {
			m := byKey[k.Key]
			if m == nil {
				m = &HotKey{Key: k.Key, Table: k.Table, Region: k.Region, Range: k.Range, Server: k.Server, Regions: k.Regions}
				byKey[k.Key] = m
				order = append(order, k.Key)
			}
			m.Count += k.Count - absent
			m.Error += k.Error - absent
		}
	}
	keys := make([]HotKey, 0, len(order))
	for _, name := range order {
		k := *byKey[name]
		k.Count += unlisted // each run's bound, taken back where the key was listed
		k.Error += unlisted
		k.Share = float64(k.Count) / float64(max(*dst.Total, 1))
		keys = append(keys, k)
	}
	out.Approximate = out.Approximate || unlisted > 0
	slices.SortFunc(keys, func(a, b HotKey) int {
		return cmp.Or(cmp.Compare(b.Count, a.Count), cmp.Compare(a.Error, b.Error), cmp.Compare(a.Key, b.Key))
	})
	*dst.Keys = keys[:min(out.Top, len(keys))]
}

// unlistedBound is the most a run counted a key its list does not hold:
// the list's last count when the list is full, else its error bound (0
// when exact: then the list holds every key counted).
func unlistedBound(h *HotKeys, l HotList) int64 {
	if n := len(*l.Keys); n > 0 && n >= h.Top {
		return (*l.Keys)[n-1].Count
	}
	return *l.Bound
}
