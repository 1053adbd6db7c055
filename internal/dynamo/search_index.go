package dynamo

import (
	"cmp"
	"container/list"
	"context"
	"sync"
	"time"

	"github.com/calgraph/calgraph/internal/calendar"
	"github.com/calgraph/calgraph/internal/search"
)

// Search indexes: each instance keeps, per calendar it searched lately, an
// inverted index of the calendar's entries and series (package search) with
// the entries themselves, and the position in the calendar's change log it
// is exact at. Writes add nothing for it: a search first catches its
// calendars' indexes up from their change logs, with the same strongly
// consistent read and the same token a sync client uses (sync.go), so it
// sees every write acknowledged before it began (a token's window reaches
// overlapWindow back, so a transaction that commits after a read but with an
// earlier position is still found: an object may come twice, never be
// missed). A calendar whose index this instance does not hold is read whole
// first, as a sync without a token reads it.
//
// Bounded: at most max bytes (about: search.Index.Bytes plus the entries'
// text and a fixed cost per entry) are held, the least recently searched
// calendar's index going first. An index not caught up for half the change
// log's retention is read again whole, since the records it would need
// may have expired.
type searchIndexes struct {
	max int

	mu      sync.Mutex
	held    int
	order   *list.List // of *calendarIndex, most recently searched first
	byID    map[string]*list.Element
	builds  int64
	catchUp int64
}

// calendarIndex is one calendar's index. Its mu is held while it catches
// up and while a search reads it, so a search sees one state.
type calendarIndex struct {
	calendarID string

	mu      sync.Mutex
	built   bool
	token   syncToken
	caught  time.Time // when it last caught up
	words   *search.Index
	entries map[string]*calendar.Entry  // single entries, by ID
	series  map[string]*calendar.Series // series, by their master's ID
	people  map[string][]searchPerson   // the attendees of entries and series that have any, by ID (search_people.go)
	text    int                         // the bytes of the entries and attendees held
	size    int                         // as last counted into searchIndexes.held
}

// DefaultSearchIndexBytes is how much memory an instance's search indexes
// take at most unless WithSearchIndex says otherwise: 256 MiB, the indexes
// of about 85,000 entries like the benchmark's (counted 3.1 KB each).
const DefaultSearchIndexBytes = 256 << 20

// entryBytes is about what an entry held in an index costs beyond its text
// and its words' postings (search.Index.Bytes): the calendar.Entry, its map
// slots and its document. Measured by TestSearchCost: the heap grew 156 MB
// for 50,000 entries and 38 MB for 5,000 (2.6 KB an entry beyond a fixed
// part), where the index counted 1.5 KB an entry besides this: with it,
// 3.1 KB, a little over.
const entryBytes = 2200

// WithSearchIndex sets how many bytes of search indexes the store keeps
// (0 keeps none: each search reads its calendars whole).
func WithSearchIndex(bytes int) Option {
	return func(s *Store) { s.searches = newSearchIndexes(bytes) }
}

func newSearchIndexes(max int) *searchIndexes {
	return &searchIndexes{max: max, order: list.New(), byID: map[string]*list.Element{}}
}

// SearchIndexStats is what an instance's search indexes hold and did.
type SearchIndexStats struct {
	Calendars, Bytes int
	// Builds counts the whole reads of a calendar; CatchUps the searches
	// that caught an index up from its change log instead.
	Builds, CatchUps int64
}

// SearchIndexStats reports the search indexes' state.
func (s *Store) SearchIndexStats() SearchIndexStats {
	x := s.searches
	x.mu.Lock()
	defer x.mu.Unlock()
	return SearchIndexStats{Calendars: x.order.Len(), Bytes: x.held, Builds: x.builds, CatchUps: x.catchUp}
}

// get returns calendarID's index (a new, empty one when not held), as the
// most recently used.
func (x *searchIndexes) get(calendarID string) *calendarIndex {
	x.mu.Lock()
	defer x.mu.Unlock()
	if el, ok := x.byID[calendarID]; ok {
		x.order.MoveToFront(el)
		return el.Value.(*calendarIndex)
	}
	ci := &calendarIndex{calendarID: calendarID}
	x.byID[calendarID] = x.order.PushFront(ci)
	return ci
}

// resize records ci's new size and drops the least recently used indexes
// past the bound (never ci itself, which its search is reading).
func (x *searchIndexes) resize(ci *calendarIndex, size int, built bool) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if built {
		x.builds++
	} else {
		x.catchUp++
	}
	if _, ok := x.byID[ci.calendarID]; !ok {
		return // dropped meanwhile: its size no longer counts
	}
	x.held += size - ci.size
	ci.size = size
	for el := x.order.Back(); x.held > x.max && el != nil; {
		prev := el.Prev()
		if old := el.Value.(*calendarIndex); old != ci {
			x.order.Remove(el)
			delete(x.byID, old.calendarID)
			x.held -= old.size
		}
		el = prev
	}
	if x.held > x.max { // ci alone is over the bound: searched, not kept
		if el, ok := x.byID[ci.calendarID]; ok {
			x.order.Remove(el)
			delete(x.byID, ci.calendarID)
			x.held -= ci.size
		}
	}
}

// searchBuildPage is how many objects one read of a build takes (a
// catch-up reads the log as a sync client does, calendar.MaxChangePage).
const searchBuildPage = 500

// refresh makes ci exact as of now: a whole read of its calendar the first
// time (or when its log position is old), with its attendees, else the
// changes since its token, with the attendees of those changed. The
// changed objects a catch-up reads are charged to budget (the request's);
// a build is not: what it reads the index holds, for every later search on
// this instance, within the index's own bound (searchIndexes.max), and a
// calendar larger than a request's budget would otherwise be searchable by
// no one. The caller holds ci.mu.
func (s *Store) refresh(ctx context.Context, ci *calendarIndex, cal *calendar.Calendar, budget *calendar.Budget) error {
	now := s.clock.readNow()
	build := !ci.built || now.Sub(ci.caught) > s.retention/2
	t := ci.token
	if build {
		t = s.startToken(ci.calendarID, false)
		ci.words, ci.entries, ci.series, ci.people, ci.text = search.NewIndex(), map[string]*calendar.Entry{}, map[string]*calendar.Series{}, map[string][]searchPerson{}, 0
		ci.built = false
	}
	for {
		var page *calendar.ChangePage
		var err error
		if t.full {
			page, err = s.fullRead(ctx, &access{calendar: cal}, t, searchBuildPage)
		} else {
			page, err = s.catchUpPage(ctx, t, cal, budget)
		}
		if err != nil {
			return err
		}
		people := map[string][]searchPerson{}
		if !build {
			if people, err = s.changedPeople(ctx, ci, page.Changes); err != nil {
				return err
			}
		}
		for _, c := range page.Changes {
			ci.apply(c, people[c.ID])
		}
		if t, err = decodeToken(page.Token, ci.calendarID, false); err != nil {
			return err
		}
		if !build {
			// Exact up to t: a search refused later (its budget spent by a
			// burst of writes) leaves the next one less to read, so that
			// searches go on catching up rather than failing alike.
			ci.token = t
		}
		if !page.More {
			break
		}
	}
	if build {
		if err := s.readPeople(ctx, ci); err != nil {
			return err
		}
	}
	ci.token, ci.caught, ci.built = t, now, true
	s.searches.resize(ci, ci.words.Bytes()+ci.text+entryBytes*(len(ci.entries)+len(ci.series)), build)
	return nil
}

// catchUpPage reads one page of t's log, as many objects as budget lets it
// (charged as they arrive, as a view's reads are).
func (s *Store) catchUpPage(ctx context.Context, t syncToken, cal *calendar.Calendar, budget *calendar.Budget) (*calendar.ChangePage, error) {
	n, settle, err := budget.Reserve(ctx, calendar.MaxChangePage)
	if err != nil {
		return nil, err
	}
	page, err := s.readCalendarLog(ctx, t, cmp.Or(n, calendar.MaxChangePage), cal)
	if err != nil {
		settle(0)
		return nil, err
	}
	settle(len(page.Changes))
	return page, nil
}

// apply puts one change into ci: an entry or series as it is now, with its
// attendees, or its removal. An exception's own item comes in a whole read
// as well as with its series: the series' whole counts.
func (ci *calendarIndex) apply(c calendar.ObjectChange, people []searchPerson) {
	if c.Type != calendar.ObjectEntry || (c.Entry != nil && c.Entry.IsException) {
		return
	}
	ci.remove(c.ID)
	if c.Deleted || c.Entry == nil {
		return
	}
	if len(people) > 0 {
		ci.people[c.ID] = people
		for _, p := range people {
			ci.text += p.size()
		}
	}
	fields := peopleFields(people)
	if c.Series != nil {
		ci.series[c.ID] = c.Series
		for _, e := range append([]*calendar.Entry{c.Series.Master}, c.Series.Exceptions...) {
			fields = append(fields, searchFields(e)...)
			ci.text += int(e.TextSize())
		}
	} else {
		ci.entries[c.ID] = c.Entry
		fields = append(fields, searchFields(c.Entry)...)
		ci.text += int(c.Entry.TextSize())
	}
	ci.words.Put(c.ID, fields...)
}

func (ci *calendarIndex) remove(id string) {
	for _, p := range ci.people[id] {
		ci.text -= p.size()
	}
	delete(ci.people, id)
	if e, ok := ci.entries[id]; ok {
		ci.text -= int(e.TextSize())
		delete(ci.entries, id)
	}
	if sr, ok := ci.series[id]; ok {
		for _, e := range append([]*calendar.Entry{sr.Master}, sr.Exceptions...) {
			ci.text -= int(e.TextSize())
		}
		delete(ci.series, id)
	}
	ci.words.Remove(id)
}

// searchFields are e's texts as fields to match.
func searchFields(e *calendar.Entry) []search.Field {
	fs := []search.Field{{Kind: search.FieldTitle, Text: e.Title}, {Kind: search.FieldLocation, Text: e.Location}}
	for i, t := range e.Tags {
		fs = append(fs, search.Field{Kind: search.FieldTag, Index: i, Text: t})
	}
	return append(fs, search.Field{Kind: search.FieldDescription, Text: e.Description})
}
