package dynamo_test

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/calgraph/calgraph/internal/calendar"
	"github.com/calgraph/calgraph/internal/dynamo"
)

// meeting is an entry of a calendar owned by the organizer, with invitees
// who are calgraph users (emails guest<n>@example.com) and invited to it.
type meeting struct {
	organizer context.Context
	cal       *calendar.Calendar
	entry     *calendar.Entry
	guests    []context.Context
}

func (f *fixture) meeting(n, capacity int, waitlist bool) meeting {
	f.t.Helper()
	m := meeting{organizer: f.user("org@example.com")}
	m.cal = f.calendarOf(m.organizer, "Events")
	start := time.Date(2026, 12, 1, 18, 0, 0, 0, time.UTC)
	e, _, err := f.store.CreateEntry(m.organizer, calendar.NewEntry{CalendarID: m.cal.ID, Title: "Talk",
		Timing: calendar.Timing{Timed: &calendar.TimedTiming{Start: start, End: start.Add(time.Hour), TimeZone: "UTC"}}})
	f.mustDo(err)
	if capacity > 0 {
		e, _, err = f.store.UpdateEntry(m.organizer, calendar.EntryUpdate{Key: e.Key(), ExpectedVersion: e.Version,
			Capacity: calendar.Set(&capacity), Waitlist: calendar.Set(waitlist)})
		f.mustDo(err)
	}
	var emails []string
	for i := range n {
		email := fmt.Sprintf("guest%02d@example.com", i)
		m.guests = append(m.guests, f.user(email))
		emails = append(emails, email)
	}
	for chunk := range slices.Chunk(emails, calendar.MaxAttendeeDelta) {
		d := calendar.AttendeeDelta{Key: e.Key()}
		for _, email := range chunk {
			d.Add = append(d.Add, calendar.NewAttendee{Email: email})
		}
		e, err = f.store.ChangeAttendees(m.organizer, d)
		f.mustDo(err)
	}
	m.entry = e
	return m
}

// answers lists every attendee of the meeting.
func (f *fixture) answers(m meeting) []*calendar.Attendee {
	f.t.Helper()
	var all []*calendar.Attendee
	p := calendar.Page{First: calendar.MaxPageSize}
	for {
		page, err := f.store.Attendees(m.organizer, m.entry.Key(), calendar.AttendeeFilter{}, p)
		f.mustDo(err)
		all = append(all, page.Attendees...)
		if !page.HasNextPage {
			return all
		}
		p.After = page.EndCursor
	}
}

func (f *fixture) entryNow(m meeting) *calendar.Entry {
	f.t.Helper()
	items, err := f.store.Read(m.organizer, calendar.Keys{Entries: []calendar.EntryKey{m.entry.Key()}})
	f.mustDo(err)
	return items.Entries[m.entry.Key()]
}

func accept(m meeting, i int) calendar.RSVP {
	return calendar.RSVP{Key: m.entry.Key(), ExpectedVersion: 1, Response: calendar.ResponseAccepted}
}

// TestFiftyAcceptAtCapacityTen: fifty invited users accepting at once an
// entry with capacity 10 and a waitlist leave exactly ten seated and forty
// waiting with distinct tickets in answer order; the entry's summary equals
// a recount (and Store.Check agrees when the test ends).
func TestFiftyAcceptAtCapacityTen(t *testing.T) {
	f := newFixture(t)
	m := f.meeting(50, 10, true)
	var wg sync.WaitGroup
	errs := make([]error, len(m.guests))
	for i, g := range m.guests {
		wg.Go(func() { _, errs[i] = f.store.Respond(g, accept(m, i)) })
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("guest %d: %v", i, err)
		}
	}
	var seated, waiting int
	tickets := map[int]bool{}
	var recount calendar.AttendeeSummary
	for _, a := range f.answers(m) {
		recount.Count(a, 1)
		switch {
		case a.Waitlisted:
			waiting++
			tickets[a.Ticket] = true
		case a.Response == calendar.ResponseAccepted:
			seated++
		}
	}
	if seated != 10 || waiting != 40 || len(tickets) != 40 {
		t.Errorf("got %d seated, %d waiting with %d distinct tickets; want 10, 40, 40", seated, waiting, len(tickets))
	}
	for n := 1; n <= 40; n++ {
		if !tickets[n] {
			t.Errorf("ticket %d is missing: tickets are handed out in order", n)
		}
	}
	if got := f.entryNow(m).Attendance.Summary; got != recount {
		t.Errorf("the entry keeps %+v, a recount finds %+v", got, recount)
	}
}

// TestDeclinePromotesTheFirstWaiting: a seated attendee's decline seats the
// first on the waitlist, in the same write.
func TestDeclinePromotesTheFirstWaiting(t *testing.T) {
	f := newFixture(t)
	m := f.meeting(3, 1, true)
	for i := range m.guests {
		_, err := f.store.Respond(m.guests[i], accept(m, i))
		f.mustDo(err)
	}
	_, err := f.store.Respond(m.guests[0], calendar.RSVP{Key: m.entry.Key(), ExpectedVersion: 2, Response: calendar.ResponseDeclined})
	f.mustDo(err)
	got := map[string]string{}
	for _, a := range f.answers(m) {
		got[a.Email] = fmt.Sprintf("%s waitlisted=%v ticket=%d", a.Response, a.Waitlisted, a.Ticket)
	}
	want := map[string]string{
		"guest00@example.com": "DECLINED waitlisted=false ticket=0",
		"guest01@example.com": "ACCEPTED waitlisted=false ticket=0",
		"guest02@example.com": "ACCEPTED waitlisted=true ticket=2",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

// TestTitleEditWhileAttendeesAnswer: a writer's edit with expectedVersion
// while twenty attendees answer neither conflicts nor loses an answer.
func TestTitleEditWhileAttendeesAnswer(t *testing.T) {
	f := newFixture(t)
	m := f.meeting(20, 0, false)
	var wg sync.WaitGroup
	errs := make([]error, len(m.guests)+1)
	for i, g := range m.guests {
		wg.Go(func() { _, errs[i] = f.store.Respond(g, accept(m, i)) })
	}
	wg.Go(func() {
		_, _, errs[len(m.guests)] = f.store.UpdateEntry(m.organizer, calendar.EntryUpdate{Key: m.entry.Key(),
			ExpectedVersion: m.entry.Version, Title: calendar.Set("Talk, moved upstairs")})
	})
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("writer or guest %d: %v", i, err)
		}
	}
	e := f.entryNow(m)
	if e.Title != "Talk, moved upstairs" || e.Attendance.Summary.Accepted != 20 || e.Attendance.Summary.NeedsAction != 0 {
		t.Errorf("got title %q and %+v, want the new title and 20 accepted", e.Title, e.Attendance.Summary)
	}
}

// TestAttendeeBadInputChangesNothing: each refused attendee write leaves
// the table exactly as it was.
func TestAttendeeBadInputChangesNothing(t *testing.T) {
	f := newFixture(t)
	m := f.meeting(2, 1, false)
	stranger := f.user("stranger@example.com")
	_, err := f.store.Respond(m.guests[0], accept(m, 0))
	f.mustDo(err)
	zero, minus := 0, -3
	key := m.entry.Key()
	before := f.items()
	for _, tc := range []struct {
		name string
		do   func() error
		want calendar.Code
	}{
		{"duplicate in the delta", func() error {
			_, err := f.store.ChangeAttendees(m.organizer, calendar.AttendeeDelta{Key: key, Add: []calendar.NewAttendee{{Email: "x@y.io"}, {Email: "X@y.io"}}})
			return err
		}, calendar.CodeInvalid},
		{"already invited", func() error {
			_, err := f.store.ChangeAttendees(m.organizer, calendar.AttendeeDelta{Key: key, Add: []calendar.NewAttendee{{Email: "ext@y.io"}, {Email: "guest01@example.com"}}})
			return err
		}, calendar.CodeAlreadyExists},
		{"too many at once", func() error {
			d := calendar.AttendeeDelta{Key: key}
			for i := range calendar.MaxAttendeeDelta + 1 {
				d.Add = append(d.Add, calendar.NewAttendee{Email: fmt.Sprintf("p%d@y.io", i)})
			}
			_, err := f.store.ChangeAttendees(m.organizer, d)
			return err
		}, calendar.CodeInvalid},
		{"removing someone not invited", func() error {
			_, err := f.store.ChangeAttendees(m.organizer, calendar.AttendeeDelta{Key: key, Remove: []string{"nobody@y.io"}})
			return err
		}, calendar.CodeNotFound},
		{"a guest changing attendees", func() error {
			_, err := f.store.ChangeAttendees(m.guests[0], calendar.AttendeeDelta{Key: key, Add: []calendar.NewAttendee{{Email: "a@y.io"}}})
			return err
		}, calendar.CodeNotFound},
		{"capacity 0", func() error {
			_, _, err := f.store.UpdateEntry(m.organizer, calendar.EntryUpdate{Key: key, ExpectedVersion: m.entry.Version, Capacity: calendar.Set(&zero)})
			return err
		}, calendar.CodeInvalid},
		{"negative capacity", func() error {
			_, _, err := f.store.UpdateEntry(m.organizer, calendar.EntryUpdate{Key: key, ExpectedVersion: m.entry.Version, Capacity: calendar.Set(&minus)})
			return err
		}, calendar.CodeInvalid},
		{"full", func() error { _, err := f.store.Respond(m.guests[1], accept(m, 1)); return err }, calendar.CodeCapacityReached},
		{"stale version", func() error { _, err := f.store.Respond(m.guests[0], accept(m, 0)); return err }, calendar.CodeVersionConflict},
		{"not invited", func() error { _, err := f.store.Respond(stranger, accept(m, 0)); return err }, calendar.CodeNotFound},
		{"no such entry", func() error {
			k := key
			k.EntryID = m.cal.ID // a valid ID, of no entry
			_, err := f.store.Respond(m.guests[0], calendar.RSVP{Key: k, ExpectedVersion: 2, Response: calendar.ResponseDeclined})
			return err
		}, calendar.CodeNotFound},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.do()
			if got := calendar.ErrorCode(err); err == nil || got != tc.want {
				t.Fatalf("got %v, want code %v", err, tc.want)
			}
			if after := f.items(); !reflect.DeepEqual(after, before) {
				t.Errorf("the table changed")
			}
		})
	}
}

// TestAnswerBetweenAnEditsReadAndWrite: an answer committed between a
// writer's read of the entry and its transaction is kept, and the writer
// gets no conflict (the edit reads again and writes again).
func TestAnswerBetweenAnEditsReadAndWrite(t *testing.T) {
	f := newFixture(t)
	m := f.meeting(1, 0, false)
	var answered atomic.Bool
	dynamo.SetBeforeTransact(f.store, func(context.Context) {
		if answered.CompareAndSwap(false, true) { // the edit's first transaction: answer first
			_, err := f.store.Respond(m.guests[0], accept(m, 0))
			f.mustDo(err)
		}
	})
	_, _, err := f.store.UpdateEntry(m.organizer, calendar.EntryUpdate{Key: m.entry.Key(),
		ExpectedVersion: m.entry.Version, Title: calendar.Set("Talk, moved upstairs")})
	dynamo.SetBeforeTransact(f.store, nil)
	f.mustDo(err)
	e := f.entryNow(m)
	if e.Title != "Talk, moved upstairs" || e.Attendance.Summary.Accepted != 1 || e.Attendance.Summary.NeedsAction != 0 {
		t.Errorf("got title %q and %+v, want the new title and the answer kept", e.Title, e.Attendance.Summary)
	}
}

// TestCheckFindsBrokenAttendance: Store.Check recounts attendees against the
// summary their entry keeps and finds an attendee whose entry is gone.
func TestCheckFindsBrokenAttendance(t *testing.T) {
	for _, tc := range []struct {
		name  string
		spoil func(f *fixture, m meeting, items []map[string]any)
		want  string
	}{
		{"a counter off by one", func(f *fixture, m meeting, items []map[string]any) {
			for _, it := range items {
				if it["entityType"] == "ENTRY" {
					it["attAccepted"] = 2.0
					f.putItem(it)
				}
			}
		}, "keeps the summary"},
		{"an attendee without its entry", func(f *fixture, m meeting, items []map[string]any) {
			for _, it := range items {
				if it["entityType"] == "ENTRY" {
					f.deleteRaw(it["PK"].(string), it["SK"].(string))
				}
			}
		}, "of a missing entry"},
		{"a waitlisted attendee off the waitlist's index", func(f *fixture, m meeting, items []map[string]any) {
			for _, it := range items {
				if it["entityType"] == "ATTENDEE" && it["waitlisted"] == true {
					delete(it, "LSI2SK")
					f.putItem(it)
				}
			}
		}, "is not under its keys"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			m := f.meeting(2, 1, true)
			for i := range m.guests {
				_, err := f.store.Respond(m.guests[i], accept(m, i))
				f.mustDo(err)
			}
			f.messy = true
			tc.spoil(f, m, f.items())
			problems, err := f.store.Check(context.Background())
			f.mustDo(err)
			if !strings.Contains(strings.Join(problems, "\n"), tc.want) {
				t.Errorf("got problems %q, want one that says %q", problems, tc.want)
			}
		})
	}
}

// TestAtMostMaxAttendees: an entry holds at most calendar.MaxAttendees
// attendees; the delta that would pass it is refused and writes nothing.
func TestAtMostMaxAttendees(t *testing.T) {
	f := newFixture(t)
	m := f.meeting(0, 0, false)
	key := m.entry.Key()
	for chunk := range calendar.MaxAttendees / calendar.MaxAttendeeDelta {
		d := calendar.AttendeeDelta{Key: key}
		for i := range calendar.MaxAttendeeDelta {
			d.Add = append(d.Add, calendar.NewAttendee{Email: fmt.Sprintf("p%d-%d@elsewhere.org", chunk, i)})
		}
		_, err := f.store.ChangeAttendees(m.organizer, d)
		f.mustDo(err)
	}
	before := f.items()
	_, err := f.store.ChangeAttendees(m.organizer, calendar.AttendeeDelta{Key: key, Add: []calendar.NewAttendee{{Email: "one-more@elsewhere.org"}}})
	wantCode(t, err, calendar.CodeInvalid)
	if !reflect.DeepEqual(f.items(), before) {
		t.Error("the refused delta changed the table")
	}
	if got := f.entryNow(m).Attendance.Summary.Total(); got != calendar.MaxAttendees {
		t.Errorf("got %d attendees, want %d", got, calendar.MaxAttendees)
	}
}
