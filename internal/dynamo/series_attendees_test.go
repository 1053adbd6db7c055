package dynamo_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/calgraph/calgraph/internal/calendar"
	"github.com/calgraph/calgraph/internal/dynamo"
)

// dailyMeeting is a daily series at 09:00 UTC from 2026-12-07 with n
// invited guests (guest<nn>@example.com).
func (f *fixture) dailyMeeting(n int) meeting {
	f.t.Helper()
	m := meeting{organizer: f.user("org@example.com")}
	m.cal = f.calendarOf(m.organizer, "Events")
	m.entry = f.series(m.organizer, m.cal.ID, "Stand-up", timed("2026-12-07T09:00:00Z", "2026-12-07T09:15:00Z", "UTC"), "FREQ=DAILY")
	d := calendar.AttendeeDelta{Key: m.entry.Key()}
	for i := range n {
		email := fmt.Sprintf("guest%02d@example.com", i)
		m.guests = append(m.guests, f.user(email))
		d.Add = append(d.Add, calendar.NewAttendee{Email: email})
	}
	e, err := f.store.ChangeAttendees(m.organizer, d)
	f.mustDo(err)
	m.entry = e
	return m
}

// dayOf is the original start of the meeting's occurrence on December d.
func dayOf(d int) time.Time { return time.Date(2026, 12, d, 9, 0, 0, 0, time.UTC) }

// answer answers as guest through the occurrence on December d (d 0: the
// series), at the guest's current version.
func (f *fixture) answer(m meeting, guest context.Context, d int, scope calendar.Scope, resp calendar.Response) (*calendar.Attendee, error) {
	f.t.Helper()
	own, err := f.store.Attendance(guest, m.entry.Key())
	f.mustDo(err)
	r := calendar.RSVP{Key: m.entry.Key(), Scope: scope, ExpectedVersion: own.Version, Response: resp}
	if d > 0 {
		r.Occurrence = dayOf(d)
	}
	return f.store.Respond(guest, r)
}

// summariesOn returns the summary each occurrence of the week from
// December 7 shows in a view, by day.
func (f *fixture) summariesOn(m meeting) map[int]calendar.AttendeeSummary {
	f.t.Helper()
	out := map[int]calendar.AttendeeSummary{}
	for _, o := range f.occurrences(m.organizer, m.cal.ID, weekOf("2026-12-07"), "UTC", false) {
		out[o.OriginalStart.Day()] = o.Attendance.Summary
	}
	return out
}

// TestSeriesAnswers: answers for ALL, THIS and THIS_AND_FOLLOWING show at
// each occurrence of a view, a title edit of ALL keeps them, a split
// carries them to the series split off, and refused answers write
// nothing.
func TestSeriesAnswers(t *testing.T) {
	f := newFixture(t)
	m := f.dailyMeeting(3)
	for _, a := range []struct {
		guest, day int
		scope      calendar.Scope
		resp       calendar.Response
	}{
		{0, 0, calendar.ScopeAll, calendar.ResponseAccepted},
		{1, 0, calendar.ScopeAll, calendar.ResponseAccepted},
		{1, 9, calendar.ScopeThis, calendar.ResponseDeclined},
		{2, 10, calendar.ScopeThisAndFollowing, calendar.ResponseTentative},
		{2, 12, calendar.ScopeThis, calendar.ResponseAccepted},
	} {
		_, err := f.answer(m, m.guests[a.guest], a.day, a.scope, a.resp)
		f.mustDo(err)
	}
	want := map[int]calendar.AttendeeSummary{
		7: {Accepted: 2, NeedsAction: 1}, 8: {Accepted: 2, NeedsAction: 1}, 9: {Accepted: 1, Declined: 1, NeedsAction: 1},
		10: {Accepted: 2, Tentative: 1}, 11: {Accepted: 2, Tentative: 1}, 12: {Accepted: 3}, 13: {Accepted: 2, Tentative: 1},
	}
	if got := f.summariesOn(m); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("summaries: got %v, want %v", got, want)
	}
	f.consistent()

	// Refused: nothing is written.
	f.mustDo(f.store.DeleteOccurrence(m.organizer, calendar.OccurrenceKey{CalendarID: m.cal.ID, SeriesID: m.entry.ID, OriginalStart: dayOf(8)}, calendar.ScopeThis, m.entry.Version))
	before := f.items()
	for what, r := range map[string]calendar.RSVP{
		"a cancelled occurrence":   {Occurrence: dayOf(8), Scope: calendar.ScopeThis},
		"no such occurrence":       {Occurrence: dayOf(8).Add(time.Hour), Scope: calendar.ScopeThis},
		"THIS without occurrence":  {Scope: calendar.ScopeThis},
		"an unknown scope":         {Occurrence: dayOf(9), Scope: "SOME"},
		"ALL through a stale copy": {Occurrence: dayOf(9), Scope: calendar.ScopeAll, ExpectedVersion: 1},
	} {
		r.Key, r.Response = m.entry.Key(), calendar.ResponseDeclined
		if r.ExpectedVersion == 0 {
			own, _ := f.store.Attendance(m.guests[0], m.entry.Key())
			r.ExpectedVersion = own.Version
		}
		_, err := f.store.Respond(m.guests[0], r)
		want := map[string]calendar.Code{"a cancelled occurrence": calendar.CodeNotFound, "no such occurrence": calendar.CodeNotFound,
			"ALL through a stale copy": calendar.CodeVersionConflict}[what]
		if want == 0 {
			want = calendar.CodeInvalid
		}
		if calendar.ErrorCode(err) != want {
			t.Errorf("%s: got %v, want %s", what, err, want)
		}
	}
	if after := f.items(); fmt.Sprint(after) != fmt.Sprint(before) {
		t.Errorf("refused answers changed the table")
	}

	// A title edit of ALL leaves every answer where it was.
	master, err := f.store.Series(m.organizer, m.entry.Key())
	f.mustDo(err)
	_, _, err = f.store.UpdateEntry(m.organizer, calendar.EntryUpdate{Key: m.entry.Key(), ExpectedVersion: master.Master.Version, Title: calendar.Set("Daily")})
	f.mustDo(err)
	delete(want, 8) // cancelled
	if got := f.summariesOn(m); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("after a title edit: got %v, want %v", got, want)
	}

	// A split from December 11 carries the answers over to both sides.
	master, err = f.store.Series(m.organizer, m.entry.Key())
	f.mustDo(err)
	split, _, err := f.store.UpdateOccurrence(m.organizer, calendar.OccurrenceKey{CalendarID: m.cal.ID, SeriesID: m.entry.ID, OriginalStart: dayOf(11)},
		calendar.ScopeThisAndFollowing, calendar.EntryUpdate{ExpectedVersion: master.Master.Version, Title: calendar.Set("Later")})
	f.mustDo(err)
	if got := f.summariesOn(m); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("after a split: got %v, want %v", got, want)
	}
	after := meeting{organizer: m.organizer, cal: m.cal, entry: split}
	own, err := f.store.Attendance(m.guests[2], split.Key())
	f.mustDo(err)
	if own == nil || own.Response != calendar.ResponseTentative || own.AtOccurrence(dayOf(12), 0).Response != calendar.ResponseAccepted {
		t.Errorf("guest 2 on the series split off: got %+v, want TENTATIVE, ACCEPTED on the 12th", own)
	}
	if _, err := f.answer(after, m.guests[2], 13, calendar.ScopeThis, calendar.ResponseDeclined); err != nil {
		t.Errorf("answering the series split off: %v", err)
	}
	f.consistent()

	// Deleting a series deletes its attendees.
	f.mustDo(f.store.DeleteEntry(m.organizer, split.Key(), split.Version))
	if own, err := f.store.Attendance(m.guests[2], split.Key()); err != nil || own != nil {
		t.Errorf("after the deletion: got %+v, %v, want no invitation", own, err)
	}
}

// TestSeriesEditWhileAnswering: an edit of ALL (title, description) while
// attendees answer single occurrences leaves each answer on its occurrence.
func TestSeriesEditWhileAnswering(t *testing.T) {
	f := newFixture(t)
	const guests = 8
	m := f.dailyMeeting(guests)
	var wg sync.WaitGroup
	errs := make(chan error, 2*guests)
	for i, g := range m.guests {
		wg.Go(func() {
			if _, err := f.answer(m, g, 7+i%7, calendar.ScopeThis, calendar.ResponseDeclined); err != nil {
				errs <- fmt.Errorf("guest %d: %w", i, err)
			}
		})
	}
	for n := range 4 {
		wg.Go(func() {
			for {
				s, err := f.store.Series(m.organizer, m.entry.Key())
				if err != nil {
					errs <- err
					return
				}
				_, _, err = f.store.UpdateEntry(m.organizer, calendar.EntryUpdate{Key: m.entry.Key(), ExpectedVersion: s.Master.Version,
					Title: calendar.Set(fmt.Sprintf("Edit %d", n)), Description: calendar.Set(fmt.Sprintf("d%d", n))})
				if calendar.ErrorCode(err) == calendar.CodeVersionConflict {
					continue // another edit of the title came first
				}
				if err != nil {
					errs <- fmt.Errorf("edit %d: %w", n, err)
				}
				return
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	f.consistent() // the shares on the master against a recount of the answers
	got := f.summariesOn(m)
	for d := 7; d <= 13; d++ {
		declined := 0
		for i := range guests {
			if 7+i%7 == d {
				declined++
			}
		}
		if want := (calendar.AttendeeSummary{NeedsAction: guests - declined, Declined: declined}); got[d] != want {
			t.Errorf("December %d: got %+v, want %+v", d, got[d], want)
		}
	}
	for i, g := range m.guests {
		own, err := f.store.Attendance(g, m.entry.Key())
		f.mustDo(err)
		if r := own.AtOccurrence(dayOf(7+i%7), 0).Response; r != calendar.ResponseDeclined {
			t.Errorf("guest %d: got %s on their day, want DECLINED", i, r)
		}
	}
}

// TestSeriesPeopleThatDoNotFit: when a series' attendees do not fit the
// transaction of a change (the limit lowered), a split is made in steps
// (series_split.go) and a deletion removes attendees first and then the
// series; a scope on a single entry is refused.
func TestSeriesPeopleThatDoNotFit(t *testing.T) {
	f := newFixture(t)
	m := f.dailyMeeting(12)
	_, err := f.answer(m, m.guests[0], 9, calendar.ScopeThisAndFollowing, calendar.ResponseAccepted)
	f.mustDo(err)
	dynamo.SetMaxSeriesActions(f.store, 8)
	split, err := f.splitAt(f.store, m, 10) // in steps (series_split.go)
	f.mustDo(err)
	if n := split.Attendance.Summary.Total(); n != 12 {
		t.Errorf("the series split off holds %d attendees, want 12", n)
	}
	s, err := f.store.Series(m.organizer, m.entry.Key())
	f.mustDo(err)
	f.mustDo(f.store.DeleteEntry(m.organizer, m.entry.Key(), s.Master.Version))
	if n := f.countEntities()["ATTENDEE"]; n != 12 {
		t.Errorf("after deleting the old series: %d attendees left, want the new series' 12", n)
	}

	single := f.meeting(1, 0, false)
	_, err = f.store.Respond(single.guests[0], calendar.RSVP{Key: single.entry.Key(), Scope: calendar.ScopeThis, ExpectedVersion: 1, Response: calendar.ResponseAccepted})
	wantCode(t, err, calendar.CodeInvalid)
	_, err = f.store.Respond(single.guests[0], calendar.RSVP{Key: single.entry.Key(), Occurrence: dayOf(9), ExpectedVersion: 1, Response: calendar.ResponseAccepted})
	wantCode(t, err, calendar.CodeInvalid)
}

// TestSeriesMoveResetsAnswers: an edit of ALL that moves the series' time
// sends every answer back to NEEDS_ACTION, those to single occurrences with
// them, and a new answer after it counts; a title edit did not.
func TestSeriesMoveResetsAnswers(t *testing.T) {
	f := newFixture(t)
	m := f.dailyMeeting(3)
	for i, scope := range []calendar.Scope{calendar.ScopeAll, calendar.ScopeThis, calendar.ScopeThisAndFollowing} {
		_, err := f.answer(m, m.guests[i], 9, scope, calendar.ResponseAccepted)
		f.mustDo(err)
	}
	s, err := f.store.Series(m.organizer, m.entry.Key())
	f.mustDo(err)
	_, _, err = f.store.UpdateEntry(m.organizer, calendar.EntryUpdate{Key: m.entry.Key(), ExpectedVersion: s.Master.Version,
		Timing: calendar.Set(timed("2026-12-07T10:00:00Z", "2026-12-07T10:15:00Z", "UTC"))})
	f.mustDo(err)
	for day, sum := range f.summariesOn(m) {
		if sum != (calendar.AttendeeSummary{NeedsAction: 3}) {
			t.Errorf("December %d after the move: got %+v, want 3 NEEDS_ACTION", day, sum)
		}
	}
	for i, g := range m.guests {
		own, err := f.store.Attendance(g, m.entry.Key())
		f.mustDo(err)
		if own.Response != calendar.ResponseNeedsAction || len(own.Occurrences) != 0 {
			t.Errorf("guest %d after the move: got %s with %d occurrence answers, want NEEDS_ACTION and none", i, own.Response, len(own.Occurrences))
		}
	}
	f.consistent()
	a, err := f.store.Respond(m.guests[1], calendar.RSVP{Key: m.entry.Key(), Occurrence: time.Date(2026, 12, 9, 10, 0, 0, 0, time.UTC),
		Scope: calendar.ScopeThis, ExpectedVersion: 2, Response: calendar.ResponseDeclined})
	f.mustDo(err)
	if got := f.summariesOn(m)[9]; got != (calendar.AttendeeSummary{NeedsAction: 2, Declined: 1}) || a.Response != calendar.ResponseDeclined {
		t.Errorf("a new answer after the move: got %+v (answer %s), want 1 DECLINED", got, a.Response)
	}
}

// TestSplitThatMovesResetsAnswers: a THIS_AND_FOLLOWING edit that moves the
// time of the series split off resets the answers it copies; the series
// before the split keeps its own.
func TestSplitThatMovesResetsAnswers(t *testing.T) {
	f := newFixture(t)
	m := f.dailyMeeting(2)
	_, err := f.answer(m, m.guests[0], 0, calendar.ScopeAll, calendar.ResponseAccepted)
	f.mustDo(err)
	s, err := f.store.Series(m.organizer, m.entry.Key())
	f.mustDo(err)
	split, _, err := f.store.UpdateOccurrence(m.organizer, calendar.OccurrenceKey{CalendarID: m.cal.ID, SeriesID: m.entry.ID, OriginalStart: dayOf(10)},
		calendar.ScopeThisAndFollowing, calendar.EntryUpdate{ExpectedVersion: s.Master.Version,
			Timing: calendar.Set(timed("2026-12-10T11:00:00Z", "2026-12-10T11:15:00Z", "UTC"))})
	f.mustDo(err)
	own, err := f.store.Attendance(m.guests[0], split.Key())
	f.mustDo(err)
	if own == nil || own.Response != calendar.ResponseNeedsAction || split.Attendance.Summary != (calendar.AttendeeSummary{NeedsAction: 2}) {
		t.Errorf("on the series split off at a new time: got %+v, summary %+v, want NEEDS_ACTION of 2", own, split.Attendance.Summary)
	}
	if got := f.summariesOn(m)[8]; got != (calendar.AttendeeSummary{NeedsAction: 1, Accepted: 1}) {
		t.Errorf("before the split: got %+v, want the acceptance kept", got)
	}
}
