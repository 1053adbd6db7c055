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
// ReadRange leaves a read of more than one call unsettled, and CheckRanges
// reads the calendars of all the reads a request hands it again, after
// them, in one BatchGetItem (⌈n/100⌉ calls in one wave): a calendar still
// at R had no write committed while its range was read, which therefore
// shows its state at R exactly. A calendar whose revision moved is read
// again at its new revision, and checked again with the others that moved,
// up to maxRangeReads reads in all; one that changed during every read gets
// CodeUnavailable (try again) rather than a view of a state that never was.
// A calendar deleted meanwhile shows nothing.
//
// A read of one call is not checked: the embedded engine answers a Query
// page from one snapshot, and so does DynamoDB Local. DynamoDB itself
// documents a Query as read-committed against a transaction still applying
// its items, within one call too, and its calendar read may show a raise
// before the items it counts: neither a one-call read nor the check closes
// that window of milliseconds (the view cache waits it out before keeping a
// read, see viewcache.go); the check closes everything wider.
//
// Only reads the view cache did not answer are checked, and only a settled
// read is kept in the cache, under the revision it shows.

// maxRangeReads bounds how many times CheckRanges lets a calendar's range be
// read, ReadRange's read included: the read, and a read again each time a
// write committed during the last. A read again is shorter than the first
// (one page, and its window opens at the check, not at the view's calendar
// read), and writes to one calendar contend on its item (revisions.go), so
// a calendar refused after four reads was being written to about as fast as
// it can be, each write taking about as long as a read: an import of events
// running into it, or the tight loops of TestRangeReadsShowStatesThatExisted
// (docs/design.md, "Views that a write cannot split").
const maxRangeReads = 4

// ReadRange implements calendar.EntryReader: one read of cal's range,
// settled when it took one call.
func (s *Store) ReadRange(ctx context.Context, scope calendar.ReadScope, cal *calendar.Calendar, from, to time.Time) *calendar.RangeRead {
	r := &calendar.RangeRead{Calendar: cal, From: from, To: to}
	s.readRange(ctx, scope, r, pageReserve(0))
	return r
}

// readRange reads r's range at r.Calendar, the entries' first page asking
// for first items of scope's budget, and keeps it in the view cache when it
// is settled and scope may.
func (s *Store) readRange(ctx context.Context, scope calendar.ReadScope, r *calendar.RangeRead, first int) {
	if mayKeep(scope, r) {
		s.views.settled(r.Calendar.ID, r.Calendar.Revision, time.Time{}) // the revision's first sighting, before the read
	}
	r.Sent = s.views.clock()
	var calls int
	r.Entries, calls, r.Err = s.entriesReaching(ctx, scope.Budget, r.Calendar, r.From, r.To, first)
	if r.Settled = r.Err != nil || calls <= 1; r.Settled {
		s.keepRange(scope, r)
	}
}

// CheckRanges implements calendar.EntryReader (see above): the calendars of
// the reads to settle are read again at once, as are the ranges of those
// that moved.
func (s *Store) CheckRanges(ctx context.Context, scope calendar.ReadScope, reads []*calendar.RangeRead) {
	var checks []*calendar.RangeRead
	for _, r := range reads {
		if !r.Settled {
			checks = append(checks, r)
		}
	}
	for n := 1; len(checks) > 0; n++ { // n: the reads each has had
		again := s.confirm(ctx, scope, checks, n == maxRangeReads)
		s.readAgain(ctx, scope, again)
		checks = slices.DeleteFunc(again, func(r *calendar.RangeRead) bool { return r.Settled })
	}
}

// readAgain reads the ranges of reads again at once: the first here, the
// others on goroutines of their own. A read again asks for all that the
// last found at once: one page (unless the range grew past it, or past
// 1 MB) makes it shorter, and so likelier to fall between two writes.
func (s *Store) readAgain(ctx context.Context, scope calendar.ReadScope, reads []*calendar.RangeRead) {
	if len(reads) == 0 {
		return
	}
	read := func(r *calendar.RangeRead) { s.readRange(ctx, scope, r, pageReserve(0)+len(r.Entries)) }
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
func (s *Store) confirm(ctx context.Context, scope calendar.ReadScope, checks []*calendar.RangeRead, last bool) []*calendar.RangeRead {
	keys := make([]itemKey, len(checks))
	for i, r := range checks {
		keys[i] = calendarKey(r.Calendar.ID)
	}
	now, err := s.batchGet(ctx, keys)
	var again []*calendar.RangeRead
	for i, r := range checks {
		c, derr := calendarNow(now, keys[i])
		switch {
		case err != nil || derr != nil:
			r.Entries, r.Err = nil, calendar.ErrorOr(err, derr)
		case c == nil:
			r.Entries = nil // deleted while its range was read
		case c.Revision == r.Calendar.Revision:
			s.keepRange(scope, r)
		case last:
			r.Entries, r.Err = nil, calendar.Errorf(calendar.CodeUnavailable,
				"the calendar changed during each of %d reads of its entries: try again", maxRangeReads)
		default:
			r.Calendar = c
			again = append(again, r)
			continue
		}
		r.Settled = true
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

// mayKeep reports whether the view cache may keep what r finds: r knows its
// calendar's revision, and its scope may be served from the cache.
func mayKeep(scope calendar.ReadScope, r *calendar.RangeRead) bool {
	return r.Calendar.Revision > 0 && scope.Cached
}

// keepRange puts a settled read that shows its calendar at r.Calendar's
// revision in the view cache, when it may and the revision had settled when
// the read was sent.
func (s *Store) keepRange(scope calendar.ReadScope, r *calendar.RangeRead) {
	if r.Err == nil && mayKeep(scope, r) && s.views.settled(r.Calendar.ID, r.Calendar.Revision, r.Sent) {
		held := slices.Clone(r.Entries)
		s.views.put(rangeKey(r.Calendar, r.From, r.To), held, len(held), rangeBytes(held))
	}
}

// CachedEntriesReaching implements calendar.EntryReader: the view cache's
// answer, for a scope that may be served from it.
func (s *Store) CachedEntriesReaching(ctx context.Context, scope calendar.ReadScope, cal *calendar.Calendar, from, to time.Time) ([]*calendar.Entry, bool) {
	if cal.Revision == 0 || !scope.Cached {
		return nil, false
	}
	v, ok := s.views.get(ctx, rangeKey(cal, from, to))
	if !ok {
		return nil, false
	}
	return slices.Clone(v.([]*calendar.Entry)), true
}

// EntriesReaching reads a calendar's range as a view in scope does: from
// the view cache when it holds it and scope may, else read and settled.
func (s *Store) EntriesReaching(ctx context.Context, scope calendar.ReadScope, cal *calendar.Calendar, from, to time.Time) ([]*calendar.Entry, error) {
	if es, ok := s.CachedEntriesReaching(ctx, scope, cal, from, to); ok {
		return es, nil
	}
	r := s.ReadRange(ctx, scope, cal, from, to)
	s.CheckRanges(ctx, scope, []*calendar.RangeRead{r})
	return r.Entries, r.Err
}
