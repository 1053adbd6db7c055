package calendar

import (
	"context"
	"slices"
	"time"
)

// Booking without a race (docs/design.md, "Booking without a race"): an
// entry may name calendars whose busy time it must not overlap
// (NewEntry.MustNotOverlap, EntryUpdate.MustNotOverlap). The store refuses
// the write with CodeBusyConflict when it would, and the check holds inside
// the write's transaction, so two clients booking one slot for one person
// never both succeed. The entry keeps the list (Entry.Holds): a later move
// is checked against those calendars again, and the entry makes each of them
// busy (a hold) while it lasts.

// MaxMustNotOverlap is how many calendars one entry may name in
// mustNotOverlap: each costs a read and a transaction action or two.
const MaxMustNotOverlap = 10

// ValidateMustNotOverlap checks the calendars e names for mustNotOverlap and
// returns them sorted, without repeats. Only single entries that take time
// may name any: a series (its occurrences would need a hold each) and a task
// (it never makes anybody busy) are refused.
func ValidateMustNotOverlap(ids []string, e *Entry) ([]string, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	ids = slices.Compact(slices.Sorted(slices.Values(ids)))
	if len(ids) > MaxMustNotOverlap {
		return nil, Invalidf("mustNotOverlap", "names at most %d calendars", MaxMustNotOverlap)
	}
	for _, id := range ids {
		if err := ValidateID("mustNotOverlap", id); err != nil {
			return nil, err
		}
	}
	switch {
	case e.IsSeries() || e.SeriesID != "":
		return nil, Invalidf("mustNotOverlap", "only a single entry can be booked without overlap, not a series or its occurrences")
	case e.Kind == KindTask:
		return nil, Invalidf("mustNotOverlap", "a task takes no time: it cannot be booked without overlap")
	}
	return ids, nil
}

// HoldReader reads the time entries hold on calendars other than their own
// (booking.go): freeBusy counts it as busy.
type HoldReader interface {
	// HoldsReaching returns the holds on cal that overlap [from, to), as
	// entries with nothing but their ID, kind, time and transparency: what
	// Busy reads. A calendar never held (Calendar.HasHolds false) costs
	// no read.
	HoldsReaching(ctx context.Context, cal *Calendar, from, to time.Time) ([]*Entry, error)
}

// BusyConflict is when a calendar named in mustNotOverlap is busy within the
// entry's time: never what makes it busy, which the writer may not see.
type BusyConflict struct {
	CalendarID string
	Interval
}

// NewBusyConflict returns the CodeBusyConflict error of an entry overlapping
// busy time iv of calendarID.
func NewBusyConflict(calendarID string, iv Interval) error {
	e := Errorf(CodeBusyConflict, "a calendar named in mustNotOverlap is busy from %s to %s: extensions.conflict says which and when",
		iv.Start.UTC().Format(time.RFC3339), iv.End.UTC().Format(time.RFC3339))
	e.Busy = &BusyConflict{CalendarID: calendarID, Interval: iv}
	return e
}

// FirstOverlap returns the first of busy (as Busy returns them) that
// overlaps [start, end), ignoring FREE, and whether there is one.
func FirstOverlap(busy []BusyInterval, start, end time.Time) (Interval, bool) {
	for _, b := range busy {
		if b.Status != TransparencyFree && b.Start.Before(end) && start.Before(b.End) {
			return b.Interval, true
		}
	}
	return Interval{}, false
}
