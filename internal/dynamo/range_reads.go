package dynamo

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/calgraph/calgraph/internal/calendar"
)

// Range reads that show a state that existed.
//
// A calendar's range (entriesReaching) is one call when the calendar never
// held a series and what reaches into the range fits the first page;
// otherwise it is two Queries, or pages of one, and a write can land between
// two calls: an entry whose start moved earlier between two pages is in
// neither, a series deleted between the series' Query and the entries' shows
// without its exceptions (cancelled occurrences come back, edited titles
// revert). Every write that changes what a range shows raises the calendar's
// revision in its own transaction (revisions.go; the steps of a large series
// change that do not raise it write only items no range shows), and a view
// reads its calendars strongly, at revision R, before their ranges. So
// EntriesReachingEach reads again, after the ranges, the calendars whose
// read took more than one call, all of them in one BatchGetItem (⌈n/100⌉
// calls in one wave): a calendar still at R had no write committed while
// its range was read, which therefore shows its state at R exactly. A
// calendar whose revision moved is read again at its new revision, and
// checked again with the others that moved, up to maxRangeReads reads in
// all; one that changed during every read gets CodeUnavailable (try again)
// rather than a view of a state that never was. A calendar deleted meanwhile
// shows nothing.
//
// A read of one call is not checked: the embedded engine answers a Query
// page from one snapshot, and so does DynamoDB Local. DynamoDB itself
// documents a Query as read-committed against a transaction still applying
// its items, within one call too, and its calendar read may show a raise
// before the items it counts: neither a one-call read nor the check closes
// that window of milliseconds (the view cache waits it out before keeping a
// read, see viewcache.go); the check closes everything wider.
//
// Only reads the view cache did not answer are checked, and only a checked
// read (or one of one call) is kept in the cache, under the revision it
// shows.

// maxRangeReads bounds how many times EntriesReachingEach reads one
// calendar's range: the read, and a read again each time a write committed
// during the last. A read again is shorter than the first (one page, and
// its window starts at the check, not at the view's calendar read), and
// writes to one calendar contend on its item (revisions.go), so a calendar
// refused after four reads was written to about as fast as it can be, by a
// writer whose writes each took about as long as a read (the tight loops
// of TestRangeReadsShowStatesThatExisted refuse some; an import of events,
// one write after another, is such a writer).
const maxRangeReads = 4

// EntriesReachingEach implements calendar.EntryReader (see above). The
// calendars' first reads go out at once, as do their checks and their reads
// again.
func (s *Store) EntriesReachingEach(ctx context.Context, cals []*calendar.Calendar, from, to time.Time) []calendar.RangeEntries {
	out := make([]calendar.RangeEntries, len(cals))
	reads := make([]*rangeRead, len(cals))
	for i, c := range cals {
		reads[i] = &rangeRead{cal: c}
	}
	pending := reads
	for round := 1; len(pending) > 0; round++ {
		s.readRanges(ctx, pending, from, to)
		var checks []*rangeRead
		for _, r := range pending {
			switch {
			case r.err != nil:
			case r.calls > 1:
				checks = append(checks, r)
			default:
				s.keepRange(r, from, to)
			}
		}
		pending = s.confirm(ctx, checks, from, to, round == maxRangeReads)
	}
	for i, r := range reads {
		out[i] = calendar.RangeEntries{Entries: r.entries, Err: r.err}
	}
	return out
}

// rangeRead is one calendar's range read under way: the calendar as its
// latest read knows it, and what that read found.
type rangeRead struct {
	cal       *calendar.Calendar
	cacheable bool // the view cache may keep what this read finds
	entries   []*calendar.Entry
	calls     int
	err       error
}

// readRanges reads the ranges of reads at once: the first here, the others
// on goroutines of their own.
func (s *Store) readRanges(ctx context.Context, reads []*rangeRead, from, to time.Time) {
	read := func(r *rangeRead) {
		// Whether the cache may keep the read is decided before it is sent
		// (see viewCache.settled).
		r.cacheable = r.cal.Revision > 0 && calendar.MayServeCached(ctx) && s.views.settled(r.cal.ID, r.cal.Revision)
		// A read again asks for all that the last found at once: one page
		// (unless the range grew past it, or past 1 MB) makes it shorter,
		// and so likelier to fall between two writes.
		first := pageReserve(0)
		if r.calls > 0 {
			first += len(r.entries)
		}
		r.entries, r.calls, r.err = s.entriesReaching(ctx, r.cal, from, to, first)
	}
	var wg sync.WaitGroup
	for _, r := range reads[1:] {
		wg.Add(1)
		go func() {
			defer wg.Done()
			read(r)
		}()
	}
	read(reads[0])
	wg.Wait()
}

// confirm reads the calendars of checks again, in one batch, and settles
// each read whose calendar is at the revision it was read at (kept) or gone
// (nothing to show); on the last round, a read whose calendar moved fails.
// It returns the others, set to be read again at their calendar's new
// revision.
func (s *Store) confirm(ctx context.Context, checks []*rangeRead, from, to time.Time, last bool) []*rangeRead {
	if len(checks) == 0 {
		return nil
	}
	keys := make([]itemKey, len(checks))
	for i, r := range checks {
		keys[i] = calendarKey(r.cal.ID)
	}
	now, err := s.batchGet(ctx, keys)
	var again []*rangeRead
	for i, r := range checks {
		c, derr := calendarNow(now, keys[i])
		switch {
		case err != nil || derr != nil:
			r.entries, r.err = nil, calendar.ErrorOr(err, derr)
		case c == nil:
			r.entries = nil // deleted while its range was read
		case c.Revision == r.cal.Revision:
			s.keepRange(r, from, to)
		case last:
			r.entries, r.err = nil, calendar.Errorf(calendar.CodeUnavailable,
				"the calendar changed during each of %d reads of its entries: try again", maxRangeReads)
		default:
			r.cal = c
			again = append(again, r)
		}
	}
	return again
}

// calendarNow decodes the calendar item under k in found, or returns nil
// when there is none.
func calendarNow(found map[itemKey]item, k itemKey) (*calendar.Calendar, error) {
	it, ok := found[k]
	if !ok {
		return nil, nil
	}
	r, err := decodeCalendarRecord(it)
	if err != nil {
		return nil, err
	}
	return r.calendar(), nil
}

// keepRange puts a range read that shows its calendar at r.cal's revision
// in the view cache, when it may.
func (s *Store) keepRange(r *rangeRead, from, to time.Time) {
	if r.cacheable {
		s.views.put(rangeKey(r.cal, from, to), slices.Clone(r.entries), len(r.entries))
	}
}

// CachedEntriesReaching implements calendar.EntryReader: the view cache's
// answer, for a request that may be served from it.
func (s *Store) CachedEntriesReaching(ctx context.Context, cal *calendar.Calendar, from, to time.Time) ([]*calendar.Entry, bool) {
	if cal.Revision == 0 || !calendar.MayServeCached(ctx) {
		return nil, false
	}
	v, ok := s.views.get(rangeKey(cal, from, to))
	if !ok {
		return nil, false
	}
	return slices.Clone(v.([]*calendar.Entry)), true
}

// EntriesReaching is EntriesReachingEach for one calendar, answered from
// the view cache when it holds the range.
func (s *Store) EntriesReaching(ctx context.Context, cal *calendar.Calendar, from, to time.Time) ([]*calendar.Entry, error) {
	if es, ok := s.CachedEntriesReaching(ctx, cal, from, to); ok {
		return es, nil
	}
	r := s.EntriesReachingEach(ctx, []*calendar.Calendar{cal}, from, to)[0]
	return r.Entries, r.Err
}
