package dynamo_test

import (
	"context"
	"fmt"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/calgraph/calgraph/internal/calendar"
	"github.com/calgraph/calgraph/internal/dynamo"
)

// answered gives the meeting's first three guests an answer each: an
// acceptance with two guests, a comment and a proposed time, a tentative
// and a decline.
func (f *fixture) answered(m meeting) {
	f.t.Helper()
	start := m.entry.Start.Add(time.Hour)
	_, err := f.store.Respond(m.guests[0], calendar.RSVP{Key: m.entry.Key(), ExpectedVersion: 1, Response: calendar.ResponseAccepted,
		AdditionalGuests: 2, Comment: "we come", ProposedStart: start, ProposedEnd: start.Add(time.Hour)})
	f.mustDo(err)
	f.mustDo(f.respond(m, 1, calendar.ResponseTentative))
	f.mustDo(f.respond(m, 2, calendar.ResponseDeclined))
}

// responses lists each attendee's email and answer as the organizer sees
// the list (narrowed to some responses), as "email RESPONSE guests comment".
func (f *fixture) responses(m meeting, only ...calendar.Response) []string {
	f.t.Helper()
	page, err := f.store.Attendees(m.organizer, m.entry.Key(), calendar.AttendeeFilter{Responses: only}, calendar.Page{First: 50})
	f.mustDo(err)
	var out []string
	for _, a := range page.Attendees {
		out = append(out, describeAnswer(a))
	}
	slices.Sort(out)
	return out
}

func describeAnswer(a *calendar.Attendee) string {
	s := fmt.Sprintf("%s %s %d %q", a.Email, a.Response, a.AdditionalGuests, a.Comment)
	if !a.ProposedStart.IsZero() || !a.RespondedAt.IsZero() {
		s += " answered"
	}
	if a.Waitlisted {
		s += fmt.Sprintf(" waiting #%d", a.Ticket)
	}
	return s
}

// moveBy moves the meeting's entry d later, as the organizer.
func (f *fixture) moveBy(m meeting, d time.Duration) *calendar.Entry {
	f.t.Helper()
	e := f.entryNow(m)
	e, _, err := f.store.UpdateEntry(m.organizer, calendar.EntryUpdate{Key: e.Key(), ExpectedVersion: e.Version,
		Timing: calendar.Set(calendar.Timing{Timed: &calendar.TimedTiming{Start: e.Start.Add(d), End: e.End.Add(d), TimeZone: e.TimeZone}})})
	f.mustDo(err)
	return e
}

// TestEditsThatKeepAnswers: a new title, description or place, an added
// attendee, a completed policy change, and a new zone on a single entry
// whose instants stay, keep every answer (issue 25: only a move of the
// time resets them).
func TestEditsThatKeepAnswers(t *testing.T) {
	f := newFixture(t)
	m := f.meeting(3, 0, false)
	f.answered(m)
	want := f.responses(m)
	e := f.entryNow(m)
	for _, u := range []calendar.EntryUpdate{
		{Title: calendar.Set("Talk, upstairs")},
		{Description: calendar.Set("bring slides"), Location: calendar.Set("Room 4")},
		{HideAttendees: calendar.Set(true)},
		{Timing: calendar.Set(calendar.Timing{Timed: &calendar.TimedTiming{Start: e.Start, End: e.End, TimeZone: "Europe/Paris"}})},
	} {
		u.Key, u.ExpectedVersion = e.Key(), e.Version
		var err error
		e, _, err = f.store.UpdateEntry(m.organizer, u)
		f.mustDo(err)
	}
	_, err := f.store.ChangeAttendees(m.organizer, calendar.AttendeeDelta{Key: e.Key(), Add: []calendar.NewAttendee{{Email: "late@example.com"}}})
	f.mustDo(err)
	want = append(want, `late@example.com NEEDS_ACTION 0 ""`)
	slices.Sort(want)
	if got := f.responses(m); !slices.Equal(got, want) {
		t.Errorf("after edits that keep the time:\n%q\nwant\n%q", got, want)
	}
	if s := f.entryNow(m).Attendance.Summary; s != (calendar.AttendeeSummary{NeedsAction: 1, Accepted: 1, AcceptedGuests: 2, Tentative: 1, Declined: 1}) {
		t.Errorf("summary %+v, want the answers kept", s)
	}
}

// TestTimeChangeResetsAnswers: moving an entry's time sends every answer
// back to NEEDS_ACTION, without comment, guests or proposal, everywhere it
// is read: the summary (head count 0), the list and its filter, the
// invitee's own answer and their inbox with its filter, and the feed's
// PARTSTAT. A later answer counts at the new time; Store.Check agrees (the
// fixture runs it).
func TestTimeChangeResetsAnswers(t *testing.T) {
	f := newFixture(t)
	m := f.meeting(3, 0, false)
	f.answered(m)
	f.moveBy(m, 30*time.Minute)

	e := f.entryNow(m)
	if s := e.Attendance.Summary; s != (calendar.AttendeeSummary{NeedsAction: 3}) || s.HeadCount() != 0 {
		t.Errorf("summary after the move %+v, want all three NEEDS_ACTION and no head count", s)
	}
	reset := []string{`guest00@example.com NEEDS_ACTION 0 ""`, `guest01@example.com NEEDS_ACTION 0 ""`, `guest02@example.com NEEDS_ACTION 0 ""`}
	if got := f.responses(m); !slices.Equal(got, reset) {
		t.Errorf("list after the move:\n%q\nwant\n%q", got, reset)
	}
	if got := f.responses(m, calendar.ResponseNeedsAction); !slices.Equal(got, reset) {
		t.Errorf("NEEDS_ACTION filter after the move: %q, want all three", got)
	}
	if got := f.responses(m, calendar.ResponseAccepted, calendar.ResponseTentative, calendar.ResponseDeclined); len(got) != 0 {
		t.Errorf("answered filter after the move: %q, want none", got)
	}
	own, err := f.store.Attendance(m.guests[0], m.entry.Key())
	f.mustDo(err)
	if got := describeAnswer(own); got != reset[0] {
		t.Errorf("own answer after the move %q, want %q", got, reset[0])
	}
	inbox := func(only ...calendar.Response) []string {
		page, err := f.store.EntryInvitations(m.guests[0], calendar.AttendeeFilter{Responses: only}, calendar.Page{First: 10})
		f.mustDo(err)
		var out []string
		for _, a := range page.Attendees {
			out = append(out, describeAnswer(a))
		}
		return out
	}
	if got := inbox(); !slices.Equal(got, reset[:1]) {
		t.Errorf("inbox after the move %q, want %q", got, reset[:1])
	}
	if got := inbox(calendar.ResponseNeedsAction); !slices.Equal(got, reset[:1]) {
		t.Errorf("inbox of NEEDS_ACTION after the move %q, want %q", got, reset[:1])
	}
	if got := inbox(calendar.ResponseAccepted); len(got) != 0 {
		t.Errorf("inbox of ACCEPTED after the move %q, want none", got)
	}
	token, err := f.store.RotateFeed(m.organizer, m.cal.ID)
	f.mustDo(err)
	feed, err := f.store.Feed(context.Background(), token)
	f.mustDo(err)
	var partstat []string
	for _, a := range feed.Attendees[m.entry.ID] {
		partstat = append(partstat, describeAnswer(a))
	}
	if !slices.Equal(partstat, reset) {
		t.Errorf("feed attendees after the move:\n%q\nwant\n%q", partstat, reset)
	}

	// An answer after the move counts at the new time.
	_, err = f.store.Respond(m.guests[0], calendar.RSVP{Key: m.entry.Key(), ExpectedVersion: 2, Response: calendar.ResponseAccepted, AdditionalGuests: 1})
	f.mustDo(err)
	if s := f.entryNow(m).Attendance.Summary; s != (calendar.AttendeeSummary{NeedsAction: 2, Accepted: 1, AcceptedGuests: 1}) {
		t.Errorf("summary after answering again %+v, want one acceptance with one guest", s)
	}
	if got := inbox(calendar.ResponseAccepted); !slices.Equal(got, []string{`guest00@example.com ACCEPTED 1 "" answered`}) {
		t.Errorf("inbox of ACCEPTED after answering again %q", got)
	}
	// Removing an attendee whose answer was reset takes them out as NEEDS_ACTION.
	_, err = f.store.ChangeAttendees(m.organizer, calendar.AttendeeDelta{Key: m.entry.Key(), Remove: []string{"guest01@example.com"}})
	f.mustDo(err)
	if s := f.entryNow(m).Attendance.Summary; s != (calendar.AttendeeSummary{NeedsAction: 1, Accepted: 1, AcceptedGuests: 1}) {
		t.Errorf("summary after removing a reset answer %+v", s)
	}
}

// TestWholeDayChangesReset: moving an all-day entry to another day, or
// making it timed, resets its answers.
func TestWholeDayChangesReset(t *testing.T) {
	f := newFixture(t)
	m := f.meeting(2, 0, false)
	day, _ := calendar.ParseDate("date", "2026-12-01")
	e := f.entryNow(m)
	_, _, err := f.store.UpdateEntry(m.organizer, calendar.EntryUpdate{Key: e.Key(), ExpectedVersion: e.Version,
		Timing: calendar.Set(calendar.Timing{AllDay: &day})})
	f.mustDo(err)
	f.mustDo(f.respond(m, 0, calendar.ResponseAccepted))
	if s := f.entryNow(m).Attendance.Summary; s.Accepted != 1 {
		t.Fatalf("summary %+v, want the answer given after the first move", s)
	}
	next, _ := calendar.ParseDate("date", "2026-12-02")
	e = f.entryNow(m)
	e, _, err = f.store.UpdateEntry(m.organizer, calendar.EntryUpdate{Key: e.Key(), ExpectedVersion: e.Version,
		Timing: calendar.Set(calendar.Timing{AllDay: &next})})
	f.mustDo(err)
	if s := e.Attendance.Summary; s != (calendar.AttendeeSummary{NeedsAction: 2}) {
		t.Errorf("summary after moving the day %+v, want both NEEDS_ACTION", s)
	}
	if got := f.responses(m, calendar.ResponseAccepted); len(got) != 0 {
		t.Errorf("accepted after moving the day: %q", got)
	}
}

// TestCapacityAfterReset: a move frees every place and empties the
// waitlist; tickets keep counting, so those who accept again wait behind no
// one from before, and a decline promotes the first who waits at the new
// time, never one who waited at the old.
func TestCapacityAfterReset(t *testing.T) {
	f := newFixture(t)
	m := f.meeting(3, 1, true)
	for i := range m.guests {
		_, err := f.store.Respond(m.guests[i], accept(m, i))
		f.mustDo(err)
	}
	f.moveBy(m, time.Hour)
	if s := f.entryNow(m).Attendance.Summary; s != (calendar.AttendeeSummary{NeedsAction: 3}) {
		t.Fatalf("summary after the move %+v, want all NEEDS_ACTION, no one waiting", s)
	}
	// guest00 takes the place again, guest02 waits (ticket 3: 1 and 2 were
	// handed out before the move), and guest01, who waited before, waits no
	// more.
	for _, i := range []int{0, 2} {
		_, err := f.store.Respond(m.guests[i], calendar.RSVP{Key: m.entry.Key(), ExpectedVersion: 2, Response: calendar.ResponseAccepted})
		f.mustDo(err)
	}
	want := []string{`guest00@example.com ACCEPTED 0 "" answered`, `guest01@example.com NEEDS_ACTION 0 ""`, `guest02@example.com ACCEPTED 0 "" answered waiting #3`}
	if got := f.responses(m); !slices.Equal(got, want) {
		t.Errorf("after answering again:\n%q\nwant\n%q", got, want)
	}
	_, err := f.store.Respond(m.guests[0], calendar.RSVP{Key: m.entry.Key(), ExpectedVersion: 3, Response: calendar.ResponseDeclined})
	f.mustDo(err)
	want = []string{`guest00@example.com DECLINED 0 "" answered`, `guest01@example.com NEEDS_ACTION 0 ""`, `guest02@example.com ACCEPTED 0 "" answered`}
	if got := f.responses(m); !slices.Equal(got, want) {
		t.Errorf("after the decline:\n%q\nwant guest02 promoted, guest01 left alone:\n%q", got, want)
	}
	if s := f.entryNow(m).Attendance.Summary; s != (calendar.AttendeeSummary{NeedsAction: 1, Accepted: 1, Declined: 1}) {
		t.Errorf("summary after the decline %+v", s)
	}
}

// TestAnswerRacingAMove: an answer racing a move of the entry's time lands
// either before the move, and is reset by it, or after it, and counts at
// the new time; never at the old time after the reset. Each order is made
// with the store's hook before a transaction.
func TestAnswerRacingAMove(t *testing.T) {
	t.Run("the answer lands between the move's read and write", func(t *testing.T) {
		f := newFixture(t)
		m := f.meeting(2, 0, false)
		var once atomic.Bool
		dynamo.SetBeforeTransact(f.store, func(context.Context) {
			if once.CompareAndSwap(false, true) {
				f.mustDo(f.respond(m, 0, calendar.ResponseAccepted))
			}
		})
		f.moveBy(m, time.Hour)
		dynamo.SetBeforeTransact(f.store, nil)
		if s := f.entryNow(m).Attendance.Summary; s != (calendar.AttendeeSummary{NeedsAction: 2}) {
			t.Errorf("summary %+v, want the answer reset by the move after it", s)
		}
		if got := f.responses(m, calendar.ResponseAccepted); len(got) != 0 {
			t.Errorf("accepted after the move: %q, want none", got)
		}
	})
	t.Run("the move lands between the answer's read and write", func(t *testing.T) {
		f := newFixture(t)
		m := f.meeting(2, 0, false)
		var once atomic.Bool
		dynamo.SetBeforeTransact(f.store, func(context.Context) {
			if once.CompareAndSwap(false, true) {
				f.moveBy(m, time.Hour)
			}
		})
		err := f.respond(m, 0, calendar.ResponseAccepted)
		dynamo.SetBeforeTransact(f.store, nil)
		f.mustDo(err)
		if s := f.entryNow(m).Attendance.Summary; s != (calendar.AttendeeSummary{NeedsAction: 1, Accepted: 1}) {
			t.Errorf("summary %+v, want the answer counted at the new time", s)
		}
		want := []string{`guest00@example.com ACCEPTED 0 "" answered`}
		if got := f.responses(m, calendar.ResponseAccepted); !slices.Equal(got, want) {
			t.Errorf("accepted after the move: %q, want %q", got, want)
		}
	})
}
