package dynamo

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/calgraph/calgraph/internal/calendar"
	"github.com/calgraph/calgraph/internal/search"
)

// Search implements calendar.SearchService: it checks the query, reads the
// viewer's memberships and calendars strongly (as a range read does), catches
// each calendar's index up from its change log (search_index.go), and ranks
// the hits: by score (search.Match), then by how near their start is to the
// range's start (or now), then by calendar and entry ID.
func (s *Store) Search(ctx context.Context, q calendar.SearchQuery) (*calendar.SearchPage, error) {
	uncacheable(ctx, whySearch) // in-memory indexes, ranked by the clock
	sq, r, offset, err := checkSearch(q)
	if err != nil {
		return nil, err
	}
	viewer, err := calendar.ViewerID(ctx)
	if err != nil {
		return nil, err
	}
	cals, roles, err := s.searchCalendars(ctx, viewer, q.CalendarIDs)
	if err != nil {
		return nil, err
	}
	now := s.now()
	var mu sync.Mutex
	var hits []calendar.SearchHit
	people := map[calendar.EntryKey][]searchPerson{}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(searchParallel)
	for id, cal := range cals {
		g.Go(func() error {
			found, ps, err := s.searchCalendar(gctx, cal, sq, searcher{viewer: viewer, role: roles[id], r: r, now: now, f: q.Filter}, q.Budget)
			mu.Lock()
			defer mu.Unlock()
			hits = append(hits, found...)
			maps.Copy(people, ps)
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	anchor := now
	if r != nil {
		anchor = r.Start
	}
	top := rankHits(hits, anchor, min(offset+q.Page.First, calendar.MaxSearchHits))
	return searchPage(top, len(hits), q, sq, offset, cals, people), nil
}

// searchParallel bounds the calendars one search reads at once.
const searchParallel = 8

// checkSearch checks everything a search can check before reading: its
// text, words, range, page and cursor.
func checkSearch(q calendar.SearchQuery) (search.Query, *calendar.Range, int, error) {
	if err := q.Validate(); err != nil {
		return search.Query{}, nil, 0, err
	}
	sq := search.Parse(q.Text)
	switch {
	case len(sq.Words) == 0:
		return sq, nil, 0, calendar.Invalidf("query", "query has no words to search for (letters or digits)")
	case len(sq.Words) > calendar.MaxSearchWords:
		return sq, nil, 0, calendar.Invalidf("query", "query must have at most %d words, got %d", calendar.MaxSearchWords, len(sq.Words))
	}
	for _, id := range q.CalendarIDs {
		if err := calendar.ValidateID("calendarIds", id); err != nil {
			return sq, nil, 0, err
		}
	}
	var r *calendar.Range
	if q.Range != nil {
		rr, err := q.Range.Resolve(cmp.Or(q.Range.TimeZone, "UTC"))
		if err != nil {
			return sq, nil, 0, err
		}
		r = &rr
	}
	offset, err := searchOffset(q)
	return sq, r, offset, err
}

// searchCalendars returns the calendars the viewer may search, by ID, with
// the viewer's role in each: those asked for (each must be one the viewer
// reads in full, else the whole search fails), or every calendar they read.
// Memberships listed from GSI1 may lag; all are read again strongly with
// their calendars in one batch, as the agenda does.
func (s *Store) searchCalendars(ctx context.Context, viewer string, ids []string) (map[string]*calendar.Calendar, map[string]calendar.Role, error) {
	asked := ids != nil
	if !asked {
		ms, err := s.AllMembershipsOfUser(ctx, viewer, calendar.MaxSearchCalendars)
		if err != nil {
			return nil, nil, err
		}
		for _, m := range ms {
			if m.Role.Can(calendar.ActionRead) {
				ids = append(ids, m.CalendarID)
			}
		}
	}
	keys := make([]itemKey, 0, 2*len(ids))
	for _, id := range ids {
		keys = append(keys, calendarKey(id), membershipKey(id, viewer))
	}
	items, err := s.batchGet(ctx, keys)
	if err != nil {
		return nil, nil, err
	}
	cals, roles := map[string]*calendar.Calendar{}, map[string]calendar.Role{}
	for _, id := range ids {
		ci, mi := items[calendarKey(id)], items[membershipKey(id, viewer)]
		var role calendar.Role
		if ci != nil && mi != nil {
			mem, err := decodeMembershipRecord(mi)
			if err != nil {
				return nil, nil, err
			}
			role = mem.membership().Role
		}
		if !role.Can(calendar.ActionRead) {
			if asked {
				return nil, nil, calendar.Invalidf("calendarIds", "calendar %s is not one you can search: it does not exist, or you do not read its entries", id)
			}
			continue
		}
		rec, err := decodeCalendarRecord(ci)
		if err != nil {
			return nil, nil, err
		}
		cals[id], roles[id] = rec.calendar(), role
	}
	return cals, roles, nil
}

// searcher is what decides, in one search, whether an entry is a hit.
type searcher struct {
	viewer string
	role   calendar.Role
	r      *calendar.Range // nil: any time (series: their next occurrence)
	now    time.Time
	f      calendar.Filter
}

// searchCalendar brings cal's index up to date and returns its hits, with
// the attendees of the single entries among them that have any (for their
// highlights, made later for the page shown).
func (s *Store) searchCalendar(ctx context.Context, cal *calendar.Calendar, q search.Query, sr searcher, budget *calendar.Budget) ([]calendar.SearchHit, map[calendar.EntryKey][]searchPerson, error) {
	ci := s.searches.get(cal.ID)
	ci.mu.Lock()
	defer ci.mu.Unlock()
	if err := s.refresh(ctx, ci, cal, budget); err != nil {
		return nil, nil, fmt.Errorf("search calendar %s: %w", cal.ID, err)
	}
	var hits []calendar.SearchHit
	people := map[calendar.EntryKey][]searchPerson{}
	for _, c := range ci.words.Candidates(q) {
		id, score := c.ID, c.Score
		var hit *calendar.SearchHit
		var err error
		ps := ci.people[id] // replaced, never changed in place: safe to keep past the lock
		if e := ci.entries[id]; e != nil {
			hit = sr.single(e, score, ps)
		} else if series := ci.series[id]; series != nil {
			hit, err = sr.series(s.recur, series, q, ps)
		}
		if err != nil {
			return nil, nil, err
		}
		if hit != nil {
			hits = append(hits, *hit)
			if hit.Highlights == nil && len(ps) > 0 {
				people[hit.Entry.Key()] = ps
			}
		}
	}
	return hits, people, nil
}

// single returns e, which the index found with score, as a hit (its
// highlights made only if it is shown, by searchPage), or nil.
func (sr searcher) single(e *calendar.Entry, score int, people []searchPerson) *calendar.SearchHit {
	if sr.r != nil && !e.Overlaps(sr.r.Start, sr.r.End, sr.r.Zone) || !sr.may(e, people) {
		return nil
	}
	return &calendar.SearchHit{Entry: e, Score: score}
}

// may reports whether e may be a hit but for its words: the viewer sees
// its details (by their role, as its organizer, or invited to it: people
// are its attendees, or its series') and the filter keeps it. Whoever
// search covers (a member who reads the calendar) sees the attendees of
// every entry whose details they see (calendar.AttendeesVisible), so no
// other rule decides whether its attendees' names match.
func (sr searcher) may(e *calendar.Entry, people []searchPerson) bool {
	return e.SeesDetails(sr.viewer, sr.role, invites(people, sr.viewer)) && sr.f.Keeps(e) && (!e.Cancelled || sr.f.IncludeCancelled)
}

// match returns e (an occurrence of a series, its exception laid over it)
// as a hit when it may be one and its text or its series' attendees match
// q.
func (sr searcher) match(e *calendar.Entry, q search.Query, people []searchPerson) *calendar.SearchHit {
	if !sr.may(e, people) {
		return nil
	}
	score, hl, ok := search.Match(q, append(searchFields(e), peopleFields(people)...))
	if !ok {
		return nil
	}
	return &calendar.SearchHit{Entry: e, Score: score, Highlights: highlights(hl, people)}
}

// highlights converts matched words; an attendee's names the attendee by
// email, as Entry.attendees lists them.
func highlights(hl []search.Highlight, people []searchPerson) []calendar.SearchHighlight {
	out := make([]calendar.SearchHighlight, len(hl))
	for i, h := range hl {
		out[i] = calendar.SearchHighlight{Field: searchField[h.Kind], Start: h.Start, Length: h.Len}
		switch h.Kind {
		case search.FieldTag:
			out[i].TagIndex = h.Index
		case search.FieldAttendeeName, search.FieldAttendeeEmail:
			out[i].AttendeeEmail = people[h.Index].email
		}
	}
	return out
}

var searchField = map[search.FieldKind]calendar.SearchField{
	search.FieldTitle: calendar.SearchTitle, search.FieldLocation: calendar.SearchLocation,
	search.FieldTag: calendar.SearchTag, search.FieldDescription: calendar.SearchDescription,
	search.FieldAttendeeName: calendar.SearchAttendeeName, search.FieldAttendeeEmail: calendar.SearchAttendeeEmail,
}

// series returns the series' first occurrence in the range that matches
// (its exceptions laid over it), or without a range its next one within
// SearchLookahead of now, or when it has none there, its first from its
// start. A series too dense to expand is left out.
func (sr searcher) series(eng calendar.RecurrenceEngine, st *calendar.Series, q search.Query, people []searchPerson) (*calendar.SearchHit, error) {
	windows := []calendar.Range{{Start: sr.now, End: sr.now.Add(calendar.SearchLookahead), Zone: time.UTC}}
	if sr.r != nil {
		windows = []calendar.Range{*sr.r}
	} else {
		start, _ := st.Master.Reach()
		windows = append(windows, calendar.Range{Start: start, End: start.Add(calendar.SearchLookahead), Zone: time.UTC})
	}
	candidates := append([]*calendar.Entry{st.Master}, st.Exceptions...)
	for _, w := range windows {
		x, err := calendar.Expand(eng, candidates, w, sr.f.IncludeCancelled, calendar.MaxOccurrencesPerRequest)
		if err != nil {
			return nil, err
		}
		occs := slices.DeleteFunc(x.Entries, func(e *calendar.Entry) bool { return !e.Overlaps(w.Start, w.End, w.Zone) })
		slices.SortFunc(occs, func(a, b *calendar.Entry) int { return startOf(a).Compare(startOf(b)) })
		for _, occ := range occs {
			if hit := sr.match(occ, q, people); hit != nil {
				return hit, nil
			}
		}
	}
	return nil, nil
}

func startOf(e *calendar.Entry) time.Time {
	start, _ := e.Interval(time.UTC)
	return start
}
