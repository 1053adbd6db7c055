package dynamo_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/calgraph/calgraph/internal/calendar"
)

// resource makes a resource calendar in Paris for a new user.
func (f *fixture) resource() (context.Context, *calendar.Calendar) {
	f.t.Helper()
	ada := f.user("ada@example.com")
	cal, _, err := f.store.CreateCalendar(ada, calendar.NewCalendar{Name: "Room 101", TimeZone: paris, IsResource: true})
	if err != nil {
		f.t.Fatal(err)
	}
	return ada, cal
}

func (f *fixture) book(ctx context.Context, cal, title string, t calendar.Timing) (*calendar.Entry, error) {
	e, _, err := f.store.CreateEntry(ctx, calendar.NewEntry{CalendarID: cal, Title: title, Timing: t})
	return e, err
}

func wantConflict(t *testing.T, err error, with string) {
	t.Helper()
	wantCode(t, err, calendar.CodeSlotConflict)
	var de *calendar.Error
	if !errors.As(err, &de) || de.Conflict == nil || (with != "" && de.Conflict.Ref() != with) {
		t.Fatalf("got %v, want a conflict naming %s", err, with)
	}
}

func TestResourceBookings(t *testing.T) {
	f := newFixture(t)
	ada, cal := f.resource()
	meeting, err := f.book(ada, cal.ID, "Meeting", timed("2026-03-02T09:00:00Z", "2026-03-02T10:00:00Z", paris))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		timing calendar.Timing
		code   calendar.Code // -1: booked
	}{
		{"overlapping the end", timed("2026-03-02T09:45:00Z", "2026-03-02T10:30:00Z", paris), calendar.CodeSlotConflict},
		{"inside", timed("2026-03-02T09:15:00Z", "2026-03-02T09:30:00Z", paris), calendar.CodeSlotConflict},
		{"right after", timed("2026-03-02T10:00:00Z", "2026-03-02T10:15:00Z", paris), -1},
		{"right before", timed("2026-03-02T08:45:00Z", "2026-03-02T09:00:00Z", paris), -1},
		{"off the quarter hours", timed("2026-03-02T11:05:00Z", "2026-03-02T11:20:00Z", paris), calendar.CodeInvalid},
		{"longer than 8 hours", timed("2026-03-03T06:00:00Z", "2026-03-03T14:15:00Z", paris), calendar.CodeInvalid},
		{"the whole day of the meeting", allDay("2026-03-02"), calendar.CodeSlotConflict},
		{"the whole next day", allDay("2026-03-04"), -1},
		{"days across the booked day", multiDay("2026-03-03", "2026-03-06"), calendar.CodeSlotConflict},
		{"a timed booking on the booked day", timed("2026-03-04T14:00:00Z", "2026-03-04T15:00:00Z", paris), calendar.CodeSlotConflict},
		{"more than 31 days", multiDay("2026-04-01", "2026-05-05"), calendar.CodeInvalid},
		{"a task books nothing", dueOn("2026-03-04"), -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := f.book(ada, cal.ID, tt.name, tt.timing)
			switch {
			case tt.code < 0 && err != nil:
				t.Fatalf("got %v, want it booked", err)
			case tt.code == calendar.CodeSlotConflict:
				wantConflict(t, err, "")
			case tt.code >= 0:
				wantCode(t, err, tt.code)
			}
		})
	}
	// The conflict names the booking and its time.
	_, err = f.book(ada, cal.ID, "clash", timed("2026-03-02T09:30:00Z", "2026-03-02T09:45:00Z", paris))
	wantConflict(t, err, meeting.ID)
	var de *calendar.Error
	errors.As(err, &de)
	if !de.Conflict.Start.Equal(at("2026-03-02T09:00:00Z")) || !de.Conflict.End.Equal(at("2026-03-02T10:00:00Z")) || de.Conflict.CalendarID != cal.ID {
		t.Fatalf("conflict %+v", de.Conflict)
	}
	// A whole-day booking refused for timed bookings names one of them.
	_, err = f.book(ada, cal.ID, "clash", allDay("2026-03-02"))
	wantConflict(t, err, "")
	f.consistent()
}

func TestResourceChanges(t *testing.T) {
	f := newFixture(t)
	ada, cal := f.resource()
	a, err := f.book(ada, cal.ID, "A", timed("2026-03-02T09:00:00Z", "2026-03-02T10:00:00Z", paris))
	if err != nil {
		t.Fatal(err)
	}
	b, err := f.book(ada, cal.ID, "B", timed("2026-03-02T11:00:00Z", "2026-03-02T12:00:00Z", paris))
	if err != nil {
		t.Fatal(err)
	}
	// Growing into B clashes and changes nothing; growing into free time does.
	_, _, err = f.store.UpdateEntry(ada, calendar.EntryUpdate{Key: a.Key(), ExpectedVersion: 1,
		Timing: calendar.Set(timed("2026-03-02T09:00:00Z", "2026-03-02T11:15:00Z", paris))})
	wantConflict(t, err, b.ID)
	a, _, err = f.store.UpdateEntry(ada, calendar.EntryUpdate{Key: a.Key(), ExpectedVersion: 1,
		Timing: calendar.Set(timed("2026-03-02T09:30:00Z", "2026-03-02T11:00:00Z", paris))})
	if err != nil {
		t.Fatal(err)
	}
	// The quarter hour A gave back is free.
	if _, err := f.book(ada, cal.ID, "C", timed("2026-03-02T09:00:00Z", "2026-03-02T09:30:00Z", paris)); err != nil {
		t.Fatalf("the freed time: %v", err)
	}
	// Turned into a whole day, A needs the day free of others.
	_, _, err = f.store.UpdateEntry(ada, calendar.EntryUpdate{Key: a.Key(), ExpectedVersion: 2, Timing: calendar.Set(allDay("2026-03-02"))})
	wantConflict(t, err, "")
	a, _, err = f.store.UpdateEntry(ada, calendar.EntryUpdate{Key: a.Key(), ExpectedVersion: 2, Timing: calendar.Set(allDay("2026-03-09"))})
	if err != nil {
		t.Fatal(err)
	}
	if err := f.store.DeleteEntry(ada, b.Key(), b.Version); err != nil {
		t.Fatal(err)
	}
	if _, err := f.book(ada, cal.ID, "D", timed("2026-03-02T11:00:00Z", "2026-03-02T12:00:00Z", paris)); err != nil {
		t.Fatalf("after B was deleted: %v", err)
	}
	// Moving A to another resource calendar releases its day here.
	other, _, err := f.store.CreateCalendar(ada, calendar.NewCalendar{Name: "Room 102", TimeZone: paris, IsResource: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := f.store.MoveEntry(ada, a.Key(), a.Version, other.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := f.book(ada, cal.ID, "E", allDay("2026-03-09")); err != nil {
		t.Fatalf("the day A moved away from: %v", err)
	}
	_, err = f.book(ada, other.ID, "F", timed("2026-03-09T10:00:00Z", "2026-03-09T11:00:00Z", paris))
	wantConflict(t, err, a.ID)
	// A resource calendar's flag and zone are fixed.
	_, err = f.store.UpdateCalendar(ada, calendar.CalendarUpdate{ID: cal.ID, ExpectedVersion: cal.Version, TimeZone: calendar.Set("UTC")})
	wantCode(t, err, calendar.CodeInvalid)
	f.consistent()
}

func TestResourceSeries(t *testing.T) {
	f := newFixture(t)
	ada, cal := f.resource()
	_, _, err := f.store.CreateEntry(ada, calendar.NewEntry{CalendarID: cal.ID, Title: "forever", Timing: timed("2026-03-02T09:00:00Z", "2026-03-02T10:00:00Z", paris),
		Recurrence: &calendar.Recurrence{Rule: "FREQ=WEEKLY"}})
	wantCode(t, err, calendar.CodeInvalid)
	_, _, err = f.store.CreateEntry(ada, calendar.NewEntry{CalendarID: cal.ID, Title: "too much", Timing: timed("2026-03-02T09:00:00Z", "2026-03-02T11:00:00Z", paris),
		Recurrence: &calendar.Recurrence{Rule: "FREQ=WEEKLY;COUNT=6"}}) // 48 quarter hours
	wantCode(t, err, calendar.CodeInvalid)
	s := f.series(ada, cal.ID, "Weekly", timed("2026-03-02T09:00:00Z", "2026-03-02T10:00:00Z", paris), "FREQ=WEEKLY;COUNT=4")
	_, err = f.book(ada, cal.ID, "clash", timed("2026-03-16T09:30:00Z", "2026-03-16T10:30:00Z", paris))
	wantConflict(t, err, calendar.OccurrenceID(s.ID, at("2026-03-16T09:00:00Z")))
	month := calendar.RangeSpec{FromDate: day("2026-03-01"), ToDate: day("2026-04-01")}
	view := func() []*calendar.Entry { return f.occurrences(ada, cal.ID, month, paris, false) }

	// Moving one occurrence into another's time clashes; cancelling one frees it.
	third := find(t, view(), paris, "03-16 10:00")
	_, _, err = f.store.UpdateOccurrence(ada, occKey(third), calendar.ScopeThis, calendar.EntryUpdate{ExpectedVersion: third.Version,
		Timing: calendar.Set(timed("2026-03-09T09:30:00Z", "2026-03-09T10:30:00Z", paris))})
	wantConflict(t, err, calendar.OccurrenceID(s.ID, at("2026-03-09T09:00:00Z")))
	f.cancel(ada, third, calendar.ScopeThis)
	if _, err := f.book(ada, cal.ID, "in the cancelled one's time", timed("2026-03-16T09:00:00Z", "2026-03-16T10:00:00Z", paris)); err != nil {
		t.Fatalf("a cancelled occurrence's time: %v", err)
	}
	// Moving the whole series an hour later takes the new times and frees the old.
	f.edit(ada, find(t, view(), paris, "03-02 10:00"), calendar.ScopeAll, calendar.EntryUpdate{
		Timing: calendar.Set(timed("2026-03-02T10:00:00Z", "2026-03-02T11:00:00Z", paris))})
	if _, err := f.book(ada, cal.ID, "old time", timed("2026-03-09T09:00:00Z", "2026-03-09T10:00:00Z", paris)); err != nil {
		t.Fatalf("the series' old time: %v", err)
	}
	_, err = f.book(ada, cal.ID, "new time", timed("2026-03-23T10:00:00Z", "2026-03-23T10:15:00Z", paris))
	wantConflict(t, err, "")
	// Deleting the series frees everything.
	all := view()
	f.cancel(ada, find(t, all, paris, "03-02 11:00"), calendar.ScopeAll)
	if _, err := f.book(ada, cal.ID, "after the series", timed("2026-03-23T10:00:00Z", "2026-03-23T11:00:00Z", paris)); err != nil {
		t.Fatalf("after the series was deleted: %v", err)
	}
	f.consistent()
}

// TestResourceSeriesWithManyExceptions: a series at the booking limits with
// many changed occurrences can still be retimed and deleted, its exceptions
// going after the write that moves its bookings.
func TestResourceSeriesWithManyExceptions(t *testing.T) {
	spec := calendar.RangeSpec{FromDate: day("2026-04-01"), ToDate: day("2026-06-01")}
	changes := []struct {
		name  string
		apply func(f *fixture, ada context.Context, s *calendar.Entry, occs []*calendar.Entry) error
	}{
		{"delete ALL", func(f *fixture, ada context.Context, s *calendar.Entry, occs []*calendar.Entry) error {
			return f.store.DeleteEntry(ada, s.Key(), s.Version)
		}},
		{"delete THIS_AND_FOLLOWING from the second", func(f *fixture, ada context.Context, _ *calendar.Entry, occs []*calendar.Entry) error {
			return f.store.DeleteOccurrence(ada, occKey(occs[1]), calendar.ScopeThisAndFollowing, occs[1].Version)
		}},
		{"retime ALL", func(f *fixture, ada context.Context, s *calendar.Entry, occs []*calendar.Entry) error {
			_, _, err := f.store.UpdateEntry(ada, calendar.EntryUpdate{Key: s.Key(), ExpectedVersion: s.Version,
				Timing: calendar.Set(timed("2026-04-06T10:00:00Z", "2026-04-06T10:15:00Z", paris))})
			return err
		}},
	}
	for _, c := range changes {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t)
			ada, cal := f.resource()
			s := f.series(ada, cal.ID, "Daily", timed("2026-04-06T09:00:00Z", "2026-04-06T09:15:00Z", paris), "FREQ=DAILY;COUNT=40")
			occs := f.occurrences(ada, cal.ID, spec, paris, false)
			for i := range 19 {
				f.edit(ada, occs[i], calendar.ScopeThis, title(fmt.Sprint("changed ", i)))
			}
			occs = f.occurrences(ada, cal.ID, spec, paris, false)
			if err := c.apply(f, ada, s, occs); err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			f.consistent()
		})
	}
}

// TestWholeDayConflictNamesAnother: turning a timed booking into a whole-day
// one on a day that holds another names the other, not itself.
func TestWholeDayConflictNamesAnother(t *testing.T) {
	f := newFixture(t)
	ada, cal := f.resource()
	a, err := f.book(ada, cal.ID, "A", timed("2026-03-02T08:00:00Z", "2026-03-02T09:00:00Z", paris))
	if err != nil {
		t.Fatal(err)
	}
	b, err := f.book(ada, cal.ID, "B", timed("2026-03-02T12:00:00Z", "2026-03-02T13:00:00Z", paris))
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = f.store.UpdateEntry(ada, calendar.EntryUpdate{Key: a.Key(), ExpectedVersion: a.Version, Timing: calendar.Set(allDay("2026-03-02"))})
	wantConflict(t, err, b.ID)
}

// TestReleasedDaysGo: the day items of a whole-day booking go with it.
func TestReleasedDaysGo(t *testing.T) {
	f := newFixture(t)
	ada, cal := f.resource()
	trip, err := f.book(ada, cal.ID, "Trip", multiDay("2026-03-10", "2026-03-13"))
	if err != nil {
		t.Fatal(err)
	}
	if n := f.countEntities()["SLOT_DAY"]; n != 3 {
		t.Fatalf("%d day items for a three-day booking", n)
	}
	moved, _, err := f.store.UpdateEntry(ada, calendar.EntryUpdate{Key: trip.Key(), ExpectedVersion: trip.Version, Timing: calendar.Set(multiDay("2026-03-11", "2026-03-13"))})
	if err != nil {
		t.Fatal(err)
	}
	if n := f.countEntities()["SLOT_DAY"]; n != 2 {
		t.Fatalf("%d day items after shortening it to two days", n)
	}
	if err := f.store.DeleteEntry(ada, moved.Key(), moved.Version); err != nil {
		t.Fatal(err)
	}
	if n := f.countEntities()["SLOT_DAY"]; n != 0 {
		t.Fatalf("%d day items after deleting it", n)
	}
	f.consistent()
}

// TestOccurrenceMovedOntoALaterOne: an occurrence moved onto a later one of
// its series clashes with that one, which the conflict names (not itself).
func TestOccurrenceMovedOntoALaterOne(t *testing.T) {
	month := calendar.RangeSpec{FromDate: day("2026-03-01"), ToDate: day("2026-04-01")}
	tests := []struct {
		name        string
		first       calendar.Timing
		rule        string
		moved       string // as shown in Paris
		to          calendar.Timing
		clashesWith string // the original start of the occurrence it lands on
	}{
		{"timed", timed("2026-03-02T09:00:00Z", "2026-03-02T10:00:00Z", paris), "FREQ=WEEKLY;COUNT=4", "03-09 10:00",
			timed("2026-03-16T09:30:00Z", "2026-03-16T10:30:00Z", paris), "2026-03-16T09:00:00Z"},
		{"all-day", allDay("2026-03-02"), "FREQ=DAILY;COUNT=3", "03-02 00:00", allDay("2026-03-03"), "2026-03-03T00:00:00Z"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			ada, cal := f.resource()
			s := f.series(ada, cal.ID, "Series", tt.first, tt.rule)
			occ := find(t, f.occurrences(ada, cal.ID, month, paris, false), paris, tt.moved)
			_, _, err := f.store.UpdateOccurrence(ada, occKey(occ), calendar.ScopeThis, calendar.EntryUpdate{ExpectedVersion: occ.Version, Timing: calendar.Set(tt.to)})
			wantConflict(t, err, calendar.OccurrenceID(s.ID, at(tt.clashesWith)))
		})
	}
}
