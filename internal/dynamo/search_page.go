package dynamo

import (
	"cmp"
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

// rankHits orders hits: best score first, then the nearest to anchor, then
// by calendar and ID, so that pages do not vary between equal searches.
func rankHits(hits []calendar.SearchHit, anchor time.Time) {
	type ranked struct {
		hit  calendar.SearchHit
		dist time.Duration
	}
	rs := make([]ranked, len(hits))
	for i, h := range hits {
		d := startOf(h.Entry).Sub(anchor)
		rs[i] = ranked{h, max(d, -d)}
	}
	slices.SortFunc(rs, func(a, b ranked) int {
		return cmp.Or(cmp.Compare(b.hit.Score, a.hit.Score), cmp.Compare(a.dist, b.dist),
			cmp.Compare(a.hit.Entry.CalendarID, b.hit.Entry.CalendarID), cmp.Compare(a.hit.Entry.ID, b.hit.Entry.ID))
	})
	for i, r := range rs {
		hits[i] = r.hit
	}
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

// searchPage cuts the page after offset out of the ranked hits (of which
// pages reach the first calendar.MaxSearchHits), and makes
// the highlights of its single entries, with their attendees' (a series'
// come with its match).
func searchPage(hits []calendar.SearchHit, q calendar.SearchQuery, sq search.Query, offset int, cals map[string]*calendar.Calendar, people map[calendar.EntryKey][]searchPerson) *calendar.SearchPage {
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
	p.HasNextPage = end < min(len(hits), calendar.MaxSearchHits)
	if len(p.Cursors) > 0 {
		p.EndCursor = p.Cursors[len(p.Cursors)-1]
	} else {
		p.EndCursor = q.Page.After
	}
	return p
}
