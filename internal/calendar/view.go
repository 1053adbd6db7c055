package calendar

import (
	"cmp"
	"context"
	"slices"
	"time"
)

// View limits: a range covers at most MaxRangeDays, and returns at most
// MaxViewEntries entries, so no request can read without bound.
const (
	MaxRangeDays   = 366
	MaxViewEntries = 5000
)

// MaxRangeSpan is the longest a range can be: MaxRangeDays of dates in any
// zone, or a day more of instants (a range of instants may start at any time
// of day).
const MaxRangeSpan = (MaxRangeDays + 1) * 24 * time.Hour

// Range is a view's window: [Start, End) as instants, and the zone in which
// dated entries (all-day, multi-day, tasks due on a date) are placed.
type Range struct {
	Start, End time.Time
	Zone       *time.Location
}

// DatesRange returns the range of the days [from, to) in zone: a week view is
// DatesRange(monday, monday.AddDays(7), zone).
func DatesRange(from, to Date, zone string) (Range, error) {
	loc, err := loadZone(zone)
	if err != nil {
		return Range{}, err
	}
	if !from.Before(to) {
		return Range{}, Invalidf("range", "the range's end date must be after its start date (it is exclusive)")
	}
	if from.DaysUntil(to) > MaxRangeDays {
		return Range{}, Invalidf("range", "a range covers at most %d days", MaxRangeDays)
	}
	return Range{Start: from.In(loc), End: to.In(loc), Zone: loc}, nil
}

// InstantsRange returns the range [from, to); dated entries are placed in zone.
func InstantsRange(from, to time.Time, zone string) (Range, error) {
	loc, err := loadZone(zone)
	if err != nil {
		return Range{}, err
	}
	if !to.After(from) {
		return Range{}, Invalidf("range", "the range's end must be after its start")
	}
	if to.Sub(from) > MaxRangeSpan {
		return Range{}, Invalidf("range", "a range covers at most %d days", MaxRangeDays)
	}
	if err := ValidateInstant("range", from); err != nil {
		return Range{}, err
	}
	if err := ValidateInstant("range", to); err != nil {
		return Range{}, err
	}
	return Range{Start: from, End: to, Zone: loc}, nil
}

func loadZone(name string) (*time.Location, error) {
	if err := ValidateTimeZone("timeZone", name); err != nil {
		return nil, err
	}
	return LoadLocation(name)
}

// ViewZone picks the zone a view is read in: the one asked for, else the
// viewer's preference, else the calendar's (or UTC without one).
func ViewZone(asked string, prefs Preferences, cal *Calendar) string {
	switch {
	case asked != "":
		return asked
	case prefs.TimeZone != "":
		return prefs.TimeZone
	case cal != nil:
		return cal.TimeZone
	}
	return DefaultTimeZone
}

// Filter narrows a view: to entries of the given kinds, and to entries with
// any of the given tags. Empty lists do not filter. Cancelled occurrences of
// series are left out unless IncludeCancelled is set.
type Filter struct {
	Kinds            []Kind
	Tags             []string
	IncludeCancelled bool
}

func (f Filter) keeps(e *Entry) bool {
	if len(f.Kinds) > 0 && !slices.Contains(f.Kinds, e.Kind) {
		return false
	}
	if len(f.Tags) > 0 && !slices.ContainsFunc(f.Tags, func(t string) bool { return slices.Contains(e.Tags, t) }) {
		return false
	}
	return true
}

// Select returns the candidates that happen in r and pass f, each once, in
// view order: by start as seen in r's zone; at the same start whole-day
// entries first, then the longer; then by title and ID.
func Select(candidates []*Entry, r Range, f Filter) []*Entry {
	seen := make(map[EntryKey]bool, len(candidates))
	var out []*Entry
	for _, e := range candidates {
		if seen[e.Key()] || !e.Overlaps(r.Start, r.End, r.Zone) || !f.keeps(e) {
			continue
		}
		seen[e.Key()] = true
		out = append(out, e)
	}
	slices.SortFunc(out, func(a, b *Entry) int {
		as, ae := a.Interval(r.Zone)
		bs, be := b.Interval(r.Zone)
		if c := as.Compare(bs); c != 0 {
			return c
		}
		if a.Dated() != b.Dated() {
			if a.Dated() {
				return -1
			}
			return 1
		}
		return cmp.Or(be.Compare(ae), cmp.Compare(a.Title, b.Title), cmp.Compare(a.ID, b.ID), cmp.Compare(a.CalendarID, b.CalendarID))
	})
	return out
}

// TaskPage is one page of a calendar's task timeline; Cursors[i] is the cursor
// of Tasks[i].
type TaskPage struct {
	Tasks       []*Entry
	Cursors     []string
	EndCursor   string
	HasNextPage bool
}

// EntryReader reads entries for views; like Reader it does not authorize.
type EntryReader interface {
	// ReadRange reads a calendar's entries whose Reach overlaps [from, to):
	// the candidates Select picks a view from, possibly more than once
	// each. It looks for series unless cal.NeverHeldSeries; a calendar known
	// only by its ID ({ID: id}) is searched whole. A read of several calls
	// may be split by a write landing between them (an entry moved earlier
	// shown nowhere, a series without its exceptions): such a read is not
	// Settled until CheckRanges settles it. Errors (in the read's Err):
	// CodeInvalid when there are more than MaxViewEntries, CodeTooLarge
	// when it would go over scope's budget. The view cache keeps a settled
	// read when scope.Cached.
	ReadRange(ctx context.Context, scope ReadScope, cal *Calendar, from, to time.Time) *RangeRead

	// CheckRanges settles reads that ReadRange left unsettled, all at once
	// (a request checks those it made at the same time together): each then
	// shows one state of its calendar that existed while it ran, or nothing
	// for a calendar deleted meanwhile, or fails with CodeUnavailable when
	// the calendar changed during every one of the reads the store allows
	// itself (try again). Its reads again are charged to scope's budget.
	CheckRanges(ctx context.Context, scope ReadScope, reads []*RangeRead)

	// CachedEntriesReaching returns the settled read of cal's range when the
	// store holds it in memory at cal's Revision, and false when it does not
	// or when scope may not be served from memory (ReadScope.Cached): a look
	// that costs no read.
	CachedEntriesReaching(ctx context.Context, scope ReadScope, cal *Calendar, from, to time.Time) ([]*Entry, bool)

	HoldReader

	// Tasks pages through a calendar's open tasks, earliest due first, or its
	// completed (or archived) tasks, latest completed first. Errors:
	// CodeInvalid (bad page).
	Tasks(ctx context.Context, calendarID string, q TaskQuery, p Page) (*TaskPage, error)
}

// RangeRead is one read of a calendar's range (EntryReader.ReadRange).
type RangeRead struct {
	Calendar *Calendar // as the read knew it; CheckRanges may read it again
	From, To time.Time
	Sent     time.Time // when the read was sent
	Entries  []*Entry
	Err      error
	// Settled says that Entries (or Err) are final: the read took one
	// call, or CheckRanges settled it.
	Settled bool
}

// TaskList is one of a calendar's task timelines.
type TaskList int

// The task timelines.
const (
	TasksOpen      TaskList = iota // not completed, by due
	TasksCompleted                 // completed, not archived, latest first
	TasksArchived                  // completed before ArchivedBefore, latest first
)

// TaskQuery asks for a task timeline. With ArchivedBefore set (the viewer
// archives completed tasks), tasks completed before it are archived: they
// leave the completed timeline for the archived one.
type TaskQuery struct {
	List           TaskList
	ArchivedBefore time.Time
}

// RangeSpec is a range as a client gives it: dates [FromDate, ToDate) read in
// a zone, or instants [From, To); TimeZone may be empty for the default (see
// ViewZone).
type RangeSpec struct {
	FromDate, ToDate Date
	From, To         time.Time
	TimeZone         string
}

// Dated reports whether the range is given as dates.
func (s RangeSpec) Dated() bool { return !s.FromDate.IsZero() || !s.ToDate.IsZero() }

// Validate checks the range on its own, before its zone is known.
func (s RangeSpec) Validate() error {
	if s.TimeZone != "" {
		if err := ValidateTimeZone("timeZone", s.TimeZone); err != nil {
			return err
		}
	}
	_, err := s.Resolve(DefaultTimeZone)
	return err
}

// Window returns instants that contain the range whatever zone it is read in:
// what a store reads candidates for before the zone is known.
func (s RangeSpec) Window() (from, to time.Time) {
	if s.Dated() {
		return s.FromDate.In(time.UTC).Add(-zoneReach), s.ToDate.In(time.UTC).Add(zoneReach)
	}
	return s.From, s.To
}

// Resolve returns the range read in zone.
func (s RangeSpec) Resolve(zone string) (Range, error) {
	if s.Dated() {
		return DatesRange(s.FromDate, s.ToDate, zone)
	}
	return InstantsRange(s.From, s.To, zone)
}
