package dynamo_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/calgraph/calgraph/internal/calendar"
)

// bookingParty is an attendee's calendar (alice's) and n people who may see
// its busy time (FREE_BUSY), each with a calendar of their own.
type bookingParty struct {
	alice  context.Context
	target *calendar.Calendar
	people []context.Context
	own    []*calendar.Calendar
}

func (f *fixture) bookingParty(n int, role calendar.Role) bookingParty {
	f.t.Helper()
	p := bookingParty{alice: f.user("alice@example.com")}
	p.target = f.calendarOf(p.alice, "Alice")
	for i := range n {
		email := fmt.Sprintf("booker%d@example.com", i)
		ctx := f.user(email)
		f.share(p.alice, p.target, ctx, email, role)
		p.people = append(p.people, ctx)
		p.own = append(p.own, f.calendarOf(ctx, email))
	}
	return p
}

// bookAt creates a one-hour meeting at 10:00 UTC on 2026-03-02 on calendar
// cal, which must not overlap the busy time of the calendars named.
func (f *fixture) bookAt(ctx context.Context, cal string, start, end string, named ...string) (*calendar.Entry, error) {
	e, _, err := f.store.CreateEntry(ctx, calendar.NewEntry{CalendarID: cal, Title: "Interview",
		Timing: timed(start, end, "UTC"), MustNotOverlap: named})
	return e, err
}

// race runs book n times at once and counts the successes; every failure
// must be BUSY_CONFLICT.
func race(t *testing.T, n int, book func(i int) error) int {
	t.Helper()
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Go(func() { errs[i] = book(i) })
	}
	wg.Wait()
	won := 0
	for _, err := range errs {
		var de *calendar.Error
		switch {
		case err == nil:
			won++
		case !errors.As(err, &de) || de.Code != calendar.CodeBusyConflict:
			t.Errorf("got %v, want a booking or BUSY_CONFLICT", err)
		}
	}
	return won
}

// TestBookingRaceFromOtherCalendars books the same slot for alice from 20
// calendars at once, each naming hers: the hold the first puts in her
// calendar's partition makes the others' checks find her busy.
func TestBookingRaceFromOtherCalendars(t *testing.T) {
	f := newFixture(t)
	p := f.bookingParty(20, calendar.RoleFreeBusy)
	began := time.Now()
	won := race(t, 20, func(i int) error {
		_, err := f.bookAt(p.people[i], p.own[i].ID, "2026-03-02T10:00:00Z", "2026-03-02T11:00:00Z", p.target.ID)
		return err
	})
	if won != 1 {
		t.Fatalf("%d of 20 bookings of one slot succeeded, want exactly 1", won)
	}
	t.Logf("20 bookings of one slot at once answered in %v", time.Since(began).Round(time.Millisecond))
	// And the slot stays taken for a later one, by its hold.
	_, err := f.bookAt(p.people[0], p.own[0].ID, "2026-03-02T10:30:00Z", "2026-03-02T10:45:00Z", p.target.ID)
	wantCode(t, err, calendar.CodeBusyConflict)
}

// TestBookingRaceOnTheCalendar books the same slot on alice's calendar
// itself, 20 writers at once, each naming it.
func TestBookingRaceOnTheCalendar(t *testing.T) {
	f := newFixture(t)
	p := f.bookingParty(20, calendar.RoleWriter)
	began := time.Now()
	won := race(t, 20, func(i int) error {
		_, err := f.bookAt(p.people[i], p.target.ID, "2026-03-02T10:00:00Z", "2026-03-02T11:00:00Z", p.target.ID)
		return err
	})
	if won != 1 {
		t.Fatalf("%d of 20 bookings of one slot succeeded, want exactly 1", won)
	}
	t.Logf("20 bookings of one slot at once answered in %v", time.Since(began).Round(time.Millisecond))
}

// TestBookingSeesBusyTime checks a booking against what freeBusy counts:
// occurrences of a series with its exceptions, whole days marked BUSY, not
// FREE entries; and it never says what makes the time busy.
func TestBookingSeesBusyTime(t *testing.T) {
	f := newFixture(t)
	p := f.bookingParty(1, calendar.RoleFreeBusy)
	bob, bobs := p.people[0], p.own[0].ID
	standup, _, err := f.store.CreateEntry(p.alice, calendar.NewEntry{CalendarID: p.target.ID, Title: "Standup",
		Timing: timed("2026-03-02T09:00:00Z", "2026-03-02T09:30:00Z", "UTC"), Recurrence: &calendar.Recurrence{Rule: "FREQ=DAILY;COUNT=10"}})
	f.mustDo(err)
	f.mustDo(f.store.DeleteOccurrence(p.alice, calendar.OccurrenceKey{CalendarID: p.target.ID, SeriesID: standup.ID,
		OriginalStart: at("2026-03-04T09:00:00Z")}, calendar.ScopeThis, standup.Version))
	_, _, err = f.store.CreateEntry(p.alice, calendar.NewEntry{CalendarID: p.target.ID, Title: "Conference",
		Timing: allDay("2026-03-10"), Transparency: calendar.TransparencyBusy})
	f.mustDo(err)
	_, _, err = f.store.CreateEntry(p.alice, calendar.NewEntry{CalendarID: p.target.ID, Title: "Lunch maybe",
		Timing: timed("2026-03-02T12:00:00Z", "2026-03-02T13:00:00Z", "UTC"), Transparency: calendar.TransparencyFree})
	f.mustDo(err)
	_, _, err = f.store.CreateEntry(p.alice, calendar.NewEntry{CalendarID: p.target.ID, Title: "Birthday", Timing: allDay("2026-03-11")})
	f.mustDo(err)

	tests := []struct {
		name, start, end string
		busy             *calendar.Interval // nil: booked
	}{
		{"an occurrence of a series", "2026-03-03T09:15:00Z", "2026-03-03T10:00:00Z",
			&calendar.Interval{Start: at("2026-03-03T09:15:00Z"), End: at("2026-03-03T09:30:00Z")}},
		{"a cancelled occurrence", "2026-03-04T09:00:00Z", "2026-03-04T09:30:00Z", nil},
		{"right after an occurrence", "2026-03-05T09:30:00Z", "2026-03-05T10:00:00Z", nil},
		{"a whole day marked BUSY", "2026-03-10T15:00:00Z", "2026-03-10T16:00:00Z",
			&calendar.Interval{Start: at("2026-03-10T15:00:00Z"), End: at("2026-03-10T16:00:00Z")}},
		{"a FREE entry", "2026-03-02T12:00:00Z", "2026-03-02T13:00:00Z", nil},
		{"a whole day FREE by default", "2026-03-11T15:00:00Z", "2026-03-11T16:00:00Z", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := f.bookAt(bob, bobs, tt.start, tt.end, p.target.ID)
			if tt.busy == nil {
				if err != nil {
					t.Fatalf("got %v, want it booked", err)
				}
				return
			}
			var de *calendar.Error
			if !errors.As(err, &de) || de.Code != calendar.CodeBusyConflict || de.Busy == nil {
				t.Fatalf("got %v, want BUSY_CONFLICT", err)
			}
			want := &calendar.BusyConflict{CalendarID: p.target.ID, Interval: *tt.busy}
			if diff := cmp.Diff(want, de.Busy); diff != "" {
				t.Errorf("conflict (-want +got):\n%s", diff)
			}
		})
	}
}

// TestBookingResourceCalendar names a resource calendar: its slots refuse
// as before, and a booking elsewhere that names it is refused by its busy
// time as well.
func TestBookingResourceCalendar(t *testing.T) {
	f := newFixture(t)
	ada, room := f.resource()
	_, err := f.book(ada, room.ID, "Meeting", timed("2026-03-02T09:00:00Z", "2026-03-02T10:00:00Z", paris))
	f.mustDo(err)
	_, err = f.bookAt(ada, room.ID, "2026-03-02T09:30:00Z", "2026-03-02T10:30:00Z", room.ID)
	wantCode(t, err, calendar.CodeBusyConflict)
	own := f.calendarOf(ada, "Ada")
	_, err = f.bookAt(ada, own.ID, "2026-03-02T09:45:00Z", "2026-03-02T10:15:00Z", room.ID)
	wantCode(t, err, calendar.CodeBusyConflict)
	_, err = f.bookAt(ada, room.ID, "2026-03-02T10:00:00Z", "2026-03-02T10:30:00Z", room.ID)
	f.mustDo(err)
	_, err = f.book(ada, room.ID, "Without a check", timed("2026-03-02T10:15:00Z", "2026-03-02T10:30:00Z", paris))
	wantConflict(t, err, "")
}

// TestBookingRefusesBadInput: too many calendars, one the viewer cannot
// see, a series or a task; nothing is written.
func TestBookingRefusesBadInput(t *testing.T) {
	f := newFixture(t)
	p := f.bookingParty(1, calendar.RoleFreeBusy)
	bob, bobs := p.people[0], p.own[0].ID
	secret := f.calendarOf(p.alice, "Secret")
	var eleven []string
	for i := range 11 {
		eleven = append(eleven, fmt.Sprintf("00000000-0000-4000-8000-%012d", i))
	}
	before := f.items()
	tests := []struct {
		name string
		n    calendar.NewEntry
		code calendar.Code
	}{
		{"11 calendars", calendar.NewEntry{Timing: timed("2026-03-02T10:00:00Z", "2026-03-02T11:00:00Z", "UTC"), MustNotOverlap: eleven}, calendar.CodeInvalid},
		{"a calendar the viewer cannot see", calendar.NewEntry{Timing: timed("2026-03-02T10:00:00Z", "2026-03-02T11:00:00Z", "UTC"),
			MustNotOverlap: []string{p.target.ID, secret.ID}}, calendar.CodeNotFound},
		{"a calendar that does not exist", calendar.NewEntry{Timing: timed("2026-03-02T10:00:00Z", "2026-03-02T11:00:00Z", "UTC"),
			MustNotOverlap: []string{"00000000-0000-4000-8000-000000000099"}}, calendar.CodeNotFound},
		{"a series", calendar.NewEntry{Timing: timed("2026-03-02T10:00:00Z", "2026-03-02T11:00:00Z", "UTC"),
			Recurrence: &calendar.Recurrence{Rule: "FREQ=DAILY;COUNT=3"}, MustNotOverlap: []string{p.target.ID}}, calendar.CodeInvalid},
		{"a task", calendar.NewEntry{Timing: dueOn("2026-03-02"), MustNotOverlap: []string{p.target.ID}}, calendar.CodeInvalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.n.CalendarID, tt.n.Title = bobs, tt.name
			_, _, err := f.store.CreateEntry(bob, tt.n)
			wantCode(t, err, tt.code)
		})
	}
	if diff := cmp.Diff(before, f.items()); diff != "" {
		t.Errorf("refused bookings changed the table (-before +after):\n%s", diff)
	}
	// A series, or one of its occurrences, cannot take it later either.
	series, _, err := f.store.CreateEntry(bob, calendar.NewEntry{CalendarID: bobs, Title: "Weekly",
		Timing: timed("2026-03-02T10:00:00Z", "2026-03-02T11:00:00Z", "UTC"), Recurrence: &calendar.Recurrence{Rule: "FREQ=WEEKLY;COUNT=3"}})
	f.mustDo(err)
	named := calendar.Set([]string{p.target.ID})
	_, _, err = f.store.UpdateEntry(bob, calendar.EntryUpdate{Key: series.Key(), ExpectedVersion: series.Version, MustNotOverlap: named})
	wantCode(t, err, calendar.CodeInvalid)
	_, _, err = f.store.UpdateOccurrence(bob, calendar.OccurrenceKey{CalendarID: bobs, SeriesID: series.ID, OriginalStart: at("2026-03-09T10:00:00Z")},
		calendar.ScopeThis, calendar.EntryUpdate{ExpectedVersion: series.Version, MustNotOverlap: named})
	wantCode(t, err, calendar.CodeInvalid)
}

// TestBookingHoldsFollowTheEntry moves, unnames and deletes a booked entry,
// and deletes the calendar of another: the holds on alice's calendar follow
// (Store.Check, run at the end, reports a hold left behind).
func TestBookingHoldsFollowTheEntry(t *testing.T) {
	f := newFixture(t)
	p := f.bookingParty(2, calendar.RoleFreeBusy)
	bob, bobs := p.people[0], p.own[0].ID
	e, err := f.bookAt(bob, bobs, "2026-03-02T10:00:00Z", "2026-03-02T11:00:00Z", p.target.ID)
	f.mustDo(err)
	// Moved, it is checked again, and its hold moves: 10:00 is free again.
	moved, _, err := f.store.UpdateEntry(bob, calendar.EntryUpdate{Key: e.Key(), ExpectedVersion: e.Version,
		Timing: calendar.Set(timed("2026-03-02T14:00:00Z", "2026-03-02T15:00:00Z", "UTC"))})
	f.mustDo(err)
	carol, carols := p.people[1], p.own[1].ID
	_, err = f.bookAt(carol, carols, "2026-03-02T14:30:00Z", "2026-03-02T15:30:00Z", p.target.ID)
	wantCode(t, err, calendar.CodeBusyConflict)
	c1, err := f.bookAt(carol, carols, "2026-03-02T10:00:00Z", "2026-03-02T11:00:00Z", p.target.ID)
	f.mustDo(err)
	// A move onto busy time is refused, and changes nothing.
	_, _, err = f.store.UpdateEntry(bob, calendar.EntryUpdate{Key: e.Key(), ExpectedVersion: moved.Version,
		Timing: calendar.Set(timed("2026-03-02T10:30:00Z", "2026-03-02T11:30:00Z", "UTC"))})
	wantCode(t, err, calendar.CodeBusyConflict)
	// Unnamed, the entry lets go of alice's time.
	_, _, err = f.store.UpdateEntry(bob, calendar.EntryUpdate{Key: e.Key(), ExpectedVersion: moved.Version,
		MustNotOverlap: calendar.Set([]string(nil))})
	f.mustDo(err)
	_, err = f.bookAt(carol, carols, "2026-03-02T14:00:00Z", "2026-03-02T14:30:00Z", p.target.ID)
	f.mustDo(err)
	// Deleted, carol's first entry lets go too.
	f.mustDo(f.store.DeleteEntry(carol, c1.Key(), c1.Version))
	_, err = f.bookAt(bob, bobs, "2026-03-02T10:00:00Z", "2026-03-02T11:00:00Z", p.target.ID)
	f.mustDo(err)
	// Bob's calendar deleted, its entries' holds go with it.
	f.mustDo(f.store.DeleteCalendar(bob, bobs, p.own[0].Version))
	_, err = f.bookAt(carol, carols, "2026-03-02T10:00:00Z", "2026-03-02T11:00:00Z", p.target.ID)
	f.mustDo(err)
}

// TestCheckReportsHolds: Store.Check reports a hold at another time than
// its entry, an entry whose hold is missing, and a hold without its entry.
func TestCheckReportsHolds(t *testing.T) {
	f := newFixture(t)
	f.messy = true
	p := f.bookingParty(1, calendar.RoleFreeBusy)
	e, err := f.bookAt(p.people[0], p.own[0].ID, "2026-03-02T10:00:00Z", "2026-03-02T11:00:00Z", p.target.ID)
	f.mustDo(err)
	var hold map[string]any
	for _, it := range f.items() {
		if it["entityType"] == "HOLD" {
			hold = it
		}
	}
	if hold == nil {
		t.Fatal("the booking put no hold on the calendar it names")
	}
	wantProblem := func(part string) {
		t.Helper()
		problems, err := f.store.Check(context.Background())
		f.mustDo(err)
		for _, p := range problems {
			if strings.Contains(p, part) {
				return
			}
		}
		t.Errorf("Check found %q, want a problem saying %q", problems, part)
	}
	elsewhere := maps.Clone(hold)
	elsewhere["start"], elsewhere["end"] = "2026-03-02T12:00:00Z", "2026-03-02T13:00:00Z"
	f.putItem(elsewhere)
	wantProblem("is not at the entry's time")
	f.deleteRaw(hold["PK"].(string), hold["SK"].(string))
	wantProblem("which has no hold of it")
	f.putItem(hold)
	f.deleteRaw("CAL#"+e.CalendarID, "ENTRY#"+e.ID)
	wantProblem("which does not hold the calendar")
}

// TestBookingMovedByAnotherWriter: a writer of the entry's calendar who
// cannot see the busy time of a calendar it holds cannot move it (that
// would let the calendar go unsaid); once that calendar is deleted, the move
// lets it go.
func TestBookingMovedByAnotherWriter(t *testing.T) {
	f := newFixture(t)
	p := f.bookingParty(1, calendar.RoleFreeBusy)
	bob, bobs := p.people[0], p.own[0]
	dave := f.user("dave@example.com")
	f.share(bob, bobs, dave, "dave@example.com", calendar.RoleWriter)
	e, err := f.bookAt(bob, bobs.ID, "2026-03-02T10:00:00Z", "2026-03-02T11:00:00Z", p.target.ID)
	f.mustDo(err)
	later := calendar.Set(timed("2026-03-02T14:00:00Z", "2026-03-02T15:00:00Z", "UTC"))
	_, _, err = f.store.UpdateEntry(dave, calendar.EntryUpdate{Key: e.Key(), ExpectedVersion: e.Version, Timing: later})
	wantCode(t, err, calendar.CodeNotFound)
	f.mustDo(f.store.DeleteCalendar(p.alice, p.target.ID, p.target.Version))
	moved, _, err := f.store.UpdateEntry(dave, calendar.EntryUpdate{Key: e.Key(), ExpectedVersion: e.Version, Timing: later})
	f.mustDo(err)
	if len(moved.Holds) != 0 {
		t.Errorf("the moved entry holds %v, want the deleted calendar let go", moved.Holds)
	}
}
