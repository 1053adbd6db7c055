package dynamo

import (
	"cmp"
	"container/heap"
	"encoding/base64"
	"fmt"
	"hash/fnv"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/calgraph/calgraph/internal/calendar"
	"github.com/calgraph/calgraph/internal/search"
)

// A search's order and pages: its hits ranked, cut into pages by a cursor
// that is a position in the ranked list.

// rankHits returns the best k of hits in order: best score first, then the
// nearest to anchor, then by calendar and ID, so that pages do not vary
// between equal searches. Only a page's worth is ordered: a one-letter
// query reaches most of 50,000 entries, and sorting them all took a third
// of such a search's CPU; the k best are kept in a heap instead (n log k).
func rankHits(hits []calendar.SearchHit, anchor time.Time, k int) []calendar.SearchHit {
	top := make(rankHeap, 0, min(k, len(hits)))
	for _, h := range hits {
		d := startOf(h.Entry).Sub(anchor)
		r := ranked{h, max(d, -d)}
		switch {
		case len(top) < k:
			heap.Push(&top, r)
		case k > 0 && r.before(top[0]):
			top[0] = r
			heap.Fix(&top, 0)
		}
	}
	slices.SortFunc(top, ranked.compare)
	out := make([]calendar.SearchHit, len(top))
	for i, r := range top {
		out[i] = r.hit
	}
	return out
}

// ranked is a hit with its distance from the search's anchor.
type ranked struct {
	hit  calendar.SearchHit
	dist time.Duration
}

// compare orders r and o: negative when r ranks first.
func (r ranked) compare(o ranked) int {
	return cmp.Or(cmp.Compare(o.hit.Score, r.hit.Score), cmp.Compare(r.dist, o.dist),
		cmp.Compare(r.hit.Entry.CalendarID, o.hit.Entry.CalendarID), cmp.Compare(r.hit.Entry.ID, o.hit.Entry.ID))
}

// before reports whether r ranks before o.
func (r ranked) before(o ranked) bool { return r.compare(o) < 0 }

// rankHeap holds the best hits so far with the worst of them on top.
type rankHeap []ranked

func (h rankHeap) Len() int           { return len(h) }
func (h rankHeap) Less(i, j int) bool { return h[j].before(h[i]) }
func (h rankHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *rankHeap) Push(x any)        { *h = append(*h, x.(ranked)) }
func (h *rankHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// A search cursor is the position after a hit in the ranked list, with a
// fingerprint of the search it belongs to: "s1.<offset>.<fingerprint>",
// base64url. A cursor of another search is refused; a page after writes
// counts positions in the list as it is then.
func searchCursor(q calendar.SearchQuery, offset int) string {
	return base64.RawURLEncoding.EncodeToString([]byte("s1." + strconv.Itoa(offset) + "." + searchFingerprint(q)))
}

func searchFingerprint(q calendar.SearchQuery) string {
	h := fnv.New64a()
	fmt.Fprintf(h, "%q|%q|%v|%v|%v", strings.Join(search.Parse(q.Text).Words, " "), slices.Sorted(slices.Values(q.CalendarIDs)), q.Range, q.Filter.Kinds, q.Filter.Tags)
	fmt.Fprintf(h, "|%v", q.Filter.IncludeCancelled)
	return strconv.FormatUint(h.Sum64(), 36)
}

// searchOffset decodes q's cursor: 0 without one.
func searchOffset(q calendar.SearchQuery) (int, error) {
	if q.Page.After == "" {
		return 0, nil
	}
	bad := calendar.Invalidf("after", "after is not a cursor of this search")
	b, err := base64.RawURLEncoding.DecodeString(q.Page.After)
	parts := strings.Split(string(b), ".")
	if err != nil || len(parts) != 3 || parts[0] != "s1" || parts[2] != searchFingerprint(q) {
		return 0, bad
	}
	n, err := strconv.Atoi(parts[1])
	if err != nil || n < 1 || n > calendar.MaxSearchHits {
		return 0, bad
	}
	return n, nil
}

// searchPage cuts the page after offset out of the ranked hits (the best
// of total, of which pages reach the first calendar.MaxSearchHits), and makes
// the highlights of its single entries, with their attendees' (a series'
// come with its match).
func searchPage(hits []calendar.SearchHit, total int, q calendar.SearchQuery, sq search.Query, offset int, cals map[string]*calendar.Calendar, people map[calendar.EntryKey][]searchPerson) *calendar.SearchPage {
	p := &calendar.SearchPage{Calendars: map[string]*calendar.Calendar{}}
	end := min(offset+q.Page.First, len(hits), calendar.MaxSearchHits)
	for i := offset; i < end; i++ {
		if hits[i].Highlights == nil {
			ps := people[hits[i].Entry.Key()]
			_, hl, _ := search.Match(sq, append(searchFields(hits[i].Entry), peopleFields(ps)...))
			hits[i].Highlights = highlights(hl, ps)
		}
		e := *hits[i].Entry // the index's own stays shared by no caller
		e.Tags, e.Reminders = slices.Clone(e.Tags), slices.Clone(e.Reminders)
		hits[i].Entry = &e
		p.Hits = append(p.Hits, hits[i])
		p.Cursors = append(p.Cursors, searchCursor(q, i+1))
		p.Calendars[hits[i].Entry.CalendarID] = cals[hits[i].Entry.CalendarID]
	}
	p.HasNextPage = end < min(total, calendar.MaxSearchHits)
	if len(p.Cursors) > 0 {
		p.EndCursor = p.Cursors[len(p.Cursors)-1]
	} else {
		p.EndCursor = q.Page.After
	}
	return p
}
