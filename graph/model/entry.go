package model

import (
	"time"

	"github.com/calgraph/calgraph/internal/calendar"
)

// Entry is an entry as GraphQL shows it: a TimedEntry, AllDayEntry,
// MultiDayEntry or Task, each wrapping the domain entry, so that typed clients
// see exactly the timing fields of each kind.
type Entry interface {
	Domain() *calendar.Entry
}

// entryFields are the fields every kind shares. The entry's calendar is
// attached when the entry is wrapped (it is always loaded by then), and the ID
// computed on the spot, so neither needs a resolver: gqlgen runs resolver
// fields in goroutines of their own, and these are on every entry of a view.
type entryFields struct {
	*calendar.Entry
	cal *Calendar
}

// Domain returns the wrapped entry.
func (e entryFields) Domain() *calendar.Entry { return e.Entry }

// ID is the entry's global ID, or its occurrence's.
func (e entryFields) ID() string {
	if e.IsOccurrence() {
		return OccurrenceGID(e.CalendarID, e.Entry.ID)
	}
	return EntryGID(e.Key())
}

// OriginalStart is an occurrence's RECURRENCE-ID, or null.
func (e entryFields) OriginalStart() *time.Time {
	if !e.IsOccurrence() {
		return nil
	}
	return &e.Entry.OriginalStart
}

// Status is CANCELLED for a cancelled occurrence.
func (e entryFields) Status() EntryStatus {
	if e.Cancelled {
		return EntryStatusCancelled
	}
	return EntryStatusConfirmed
}

// PreviousSeriesID is the global ID of the series a split series continues.
func (e entryFields) PreviousSeriesID() *string {
	if e.Entry.PreviousSeriesID == "" {
		return nil
	}
	id := EntryGID(calendar.EntryKey{CalendarID: e.CalendarID, EntryID: e.Entry.PreviousSeriesID})
	return &id
}

// Calendar is the calendar the entry is on.
func (e entryFields) Calendar() *Calendar { return e.cal }

// Description is null when empty.
func (e entryFields) Description() *string { return optional(&e.Entry.Description) }

// Location is null when empty.
func (e entryFields) Location() *string { return optional(&e.Entry.Location) }

// Color is null when the entry uses its calendar's.
func (e entryFields) Color() *string { return optional(&e.Entry.Color) }

// Tags is never null.
func (e entryFields) Tags() []string { return nonNil(e.Entry.Tags) }

// Reminders is never null.
func (e entryFields) Reminders() []int { return nonNil(e.Entry.Reminders) }

// TimedEntry is a TIMED entry.
type TimedEntry struct{ entryFields }

// LocalStart is the start's wall clock when no instant has it, or null.
func (e TimedEntry) LocalStart() *string {
	if e.Entry.LocalStart.IsZero() {
		return nil
	}
	s := e.Entry.LocalStart.Format("2006-01-02T15:04:05")
	return &s
}

// AllDayEntry is an ALL_DAY entry.
type AllDayEntry struct{ entryFields }

// Date is the entry's day.
func (e AllDayEntry) Date() calendar.Date { return e.StartDate }

// OriginalDate is the day an occurrence's series puts it on, or null.
func (e AllDayEntry) OriginalDate() *calendar.Date {
	if !e.IsOccurrence() {
		return nil
	}
	d := calendar.DateOf(e.Entry.OriginalStart.UTC())
	return &d
}

// MultiDayEntry is a MULTI_DAY entry.
type MultiDayEntry struct{ entryFields }

// Task is a TASK.
type Task struct{ entryFields }

// DueDate is the day a task is due on, if it is due on a day.
func (t Task) DueDate() *calendar.Date {
	if !t.Dated() {
		return nil
	}
	return &t.StartDate
}

// Due is the instant a task is due at, if it is due at an instant.
func (t Task) Due() *time.Time {
	if t.Dated() {
		return nil
	}
	return &t.Start
}

// TimeZone is the zone of Due, or null.
func (t Task) TimeZone() *string { return optional(&t.Entry.TimeZone) }

// CompletedAt is null while the task is open.
func (t Task) CompletedAt() *time.Time {
	if t.Entry.CompletedAt.IsZero() {
		return nil
	}
	return &t.Entry.CompletedAt
}

// EntryOf wraps a domain entry, on cal, in the GraphQL type of its kind.
func EntryOf(e *calendar.Entry, cal *calendar.Calendar) Entry { return entryOn(e, CalendarOf(cal)) }

func entryOn(e *calendar.Entry, cal *Calendar) Entry {
	f := entryFields{e, cal}
	switch e.Kind {
	case calendar.KindTimed:
		return &TimedEntry{f}
	case calendar.KindAllDay:
		return &AllDayEntry{f}
	case calendar.KindMultiDay:
		return &MultiDayEntry{f}
	}
	return &Task{f}
}

// EntriesOf wraps a list of domain entries, each on its calendar in cals
// (wrapped once per calendar).
func EntriesOf(es []*calendar.Entry, cals map[string]*calendar.Calendar) []Entry {
	wrapped := make(map[string]*Calendar, len(cals))
	out := make([]Entry, len(es))
	for i, e := range es {
		c, ok := wrapped[e.CalendarID]
		if !ok {
			c = CalendarOf(cals[e.CalendarID])
			wrapped[e.CalendarID] = c
		}
		out[i] = entryOn(e, c)
	}
	return out
}

// TaskOf wraps a domain task on cal.
func TaskOf(e *calendar.Entry, cal *Calendar) *Task { return &Task{entryFields{e, cal}} }

// optional is the string s points to, or null when it is empty. It is s
// itself, a field of the domain entry, not a copy: a week view marshals a
// hundred entries' colors, and a copy each was an allocation each.
// Marshalers only read it.
func optional(s *string) *string {
	if *s == "" {
		return nil
	}
	return s
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// Capacity is the entry's capacity, or null for none.
func (e entryFields) Capacity() *int {
	if e.Attendance.Capacity == 0 {
		return nil
	}
	return &e.Attendance.Capacity
}

// Waitlist says whether acceptances past the capacity wait.
func (e entryFields) Waitlist() bool { return e.Attendance.Waitlist }

// HideAttendees says whether the list is hidden from invited non-readers.
func (e entryFields) HideAttendees() bool { return e.Attendance.HideAttendees }

// AttendeeSummary is the summary the entry item keeps: no read of its own.
func (e entryFields) AttendeeSummary() *calendar.AttendeeSummary { return &e.Attendance.Summary }
