package dynamo_test

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/calgraph/calgraph/internal/calendar"
)

// occurrenceOn returns the meeting's occurrence originally on December d as
// a view shows it.
func (f *fixture) occurrenceOn(m meeting, d int) *calendar.Entry {
	f.t.Helper()
	for _, o := range f.occurrences(m.organizer, m.cal.ID, weekOf("2026-12-07"), "UTC", false) {
		if o.OriginalStart.Equal(dayOf(d)) {
			return o
		}
	}
	f.t.Fatalf("no occurrence on December %d", d)
	return nil
}

// editOccurrence changes the meeting's occurrence on December d alone
// (THIS) as the organizer: moved by by when it is not zero, else retitled.
// It reads the series as it is, not a view (it runs beside answers).
func (f *fixture) editOccurrence(m meeting, d int, by time.Duration) (*calendar.Entry, error) {
	f.t.Helper()
	s, err := f.store.Series(m.organizer, m.entry.Key())
	if err != nil {
		return nil, err
	}
	o, _ := s.Occurrence(engine, dayOf(d))
	u := calendar.EntryUpdate{ExpectedVersion: o.Version, Title: calendar.Set("Retitled")}
	if by != 0 {
		u = calendar.EntryUpdate{ExpectedVersion: o.Version,
			Timing: calendar.Set(calendar.Timing{Timed: &calendar.TimedTiming{Start: o.Start.Add(by), End: o.End.Add(by), TimeZone: "UTC"}})}
	}
	e, _, err := f.store.UpdateOccurrence(m.organizer, calendar.OccurrenceKey{CalendarID: m.cal.ID, SeriesID: m.entry.ID, OriginalStart: dayOf(d)}, calendar.ScopeThis, u)
	return e, err
}

// answersOn returns each guest's answer at the occurrence on December d,
// as their invitation reads there (calendar.Attendee.AtOccurrence at the
// occurrence's reset mark).
func (f *fixture) answersOn(m meeting, d int) []calendar.Response {
	f.t.Helper()
	reset := f.occurrenceOn(m, d).Attendance.Reset
	var out []calendar.Response
	for _, g := range m.guests {
		own, err := f.store.Attendance(g, m.entry.Key())
		f.mustDo(err)
		out = append(out, own.AtOccurrence(dayOf(d), reset).Response)
	}
	return out
}

// TestOccurrenceMoveResetsItsAnswers: moving one occurrence of a series
// alone (THIS) sends every answer at it to NEEDS_ACTION (its summary too)
// and keeps the answers to the others; answers given after the move (THIS,
// ALL, THIS_AND_FOLLOWING) count at it; a second move resets again, and a
// THIS edit of the title resets nothing. Store.Check runs after each step.
func TestOccurrenceMoveResetsItsAnswers(t *testing.T) {
	f := newFixture(t)
	m := f.dailyMeeting(3)
	const na, acc, tent, dec = calendar.ResponseNeedsAction, calendar.ResponseAccepted, calendar.ResponseTentative, calendar.ResponseDeclined
	type answer struct {
		guest, day int
		scope      calendar.Scope
		resp       calendar.Response
	}
	for _, step := range []struct {
		name    string
		answers []answer
		move    int // the day moved alone an hour later, after the answers
		retitle int // the day retitled alone
		series  *calendar.EntryUpdate
		want    map[int][]calendar.Response
		summary map[int]calendar.AttendeeSummary
	}{
		{
			name: "answers before any move",
			answers: []answer{{0, 0, calendar.ScopeAll, acc}, {1, 0, calendar.ScopeAll, acc}, {1, 9, calendar.ScopeThis, dec},
				{2, 8, calendar.ScopeThisAndFollowing, tent}},
			want:    map[int][]calendar.Response{8: {acc, acc, tent}, 9: {acc, dec, tent}, 10: {acc, acc, tent}},
			summary: map[int]calendar.AttendeeSummary{9: {Accepted: 1, Declined: 1, Tentative: 1}, 10: {Accepted: 2, Tentative: 1}},
		},
		{
			name:    "December 9 moved alone",
			move:    9,
			want:    map[int][]calendar.Response{8: {acc, acc, tent}, 9: {na, na, na}, 10: {acc, acc, tent}},
			summary: map[int]calendar.AttendeeSummary{8: {Accepted: 2, Tentative: 1}, 9: {NeedsAction: 3}, 10: {Accepted: 2, Tentative: 1}},
		},
		{
			name:    "a THIS answer after the move counts",
			answers: []answer{{1, 9, calendar.ScopeThis, acc}},
			want:    map[int][]calendar.Response{9: {na, acc, na}},
			summary: map[int]calendar.AttendeeSummary{9: {NeedsAction: 2, Accepted: 1}},
		},
		{
			name:    "ALL and THIS_AND_FOLLOWING answers after the move count",
			answers: []answer{{0, 0, calendar.ScopeAll, dec}, {2, 8, calendar.ScopeThisAndFollowing, acc}},
			want:    map[int][]calendar.Response{8: {dec, acc, acc}, 9: {dec, acc, acc}, 10: {dec, acc, acc}},
			summary: map[int]calendar.AttendeeSummary{8: {Declined: 1, Accepted: 2}, 9: {Declined: 1, Accepted: 2}, 10: {Declined: 1, Accepted: 2}},
		},
		{
			name:    "a THIS title edit resets nothing",
			retitle: 9,
			want:    map[int][]calendar.Response{9: {dec, acc, acc}},
			summary: map[int]calendar.AttendeeSummary{9: {Declined: 1, Accepted: 2}},
		},
		{
			name:    "a second move resets again",
			move:    9,
			want:    map[int][]calendar.Response{8: {dec, acc, acc}, 9: {na, na, na}, 10: {dec, acc, acc}},
			summary: map[int]calendar.AttendeeSummary{8: {Declined: 1, Accepted: 2}, 9: {NeedsAction: 3}},
		},
		{
			name:    "another occurrence moved keeps December 9's answers after its move",
			answers: []answer{{0, 9, calendar.ScopeThis, tent}},
			move:    11,
			want:    map[int][]calendar.Response{9: {tent, na, na}, 11: {na, na, na}, 12: {dec, acc, acc}},
			summary: map[int]calendar.AttendeeSummary{9: {Tentative: 1, NeedsAction: 2}, 11: {NeedsAction: 3}, 12: {Declined: 1, Accepted: 2}},
		},
		{
			name:    "a title edit of the series keeps the resets",
			series:  &calendar.EntryUpdate{Title: calendar.Set("Daily")},
			want:    map[int][]calendar.Response{9: {tent, na, na}, 11: {na, na, na}, 12: {dec, acc, acc}},
			summary: map[int]calendar.AttendeeSummary{9: {Tentative: 1, NeedsAction: 2}, 11: {NeedsAction: 3}, 12: {Declined: 1, Accepted: 2}},
		},
		{
			name: "a move of the series resets every answer, then answers count everywhere",
			series: &calendar.EntryUpdate{Timing: calendar.Set(calendar.Timing{Timed: &calendar.TimedTiming{
				Start: dayOf(7), End: dayOf(7).Add(30 * time.Minute), TimeZone: "UTC"}})},
			answers: []answer{{0, 0, calendar.ScopeAll, acc}},
			want:    map[int][]calendar.Response{9: {acc, na, na}, 11: {acc, na, na}, 12: {acc, na, na}},
			summary: map[int]calendar.AttendeeSummary{9: {Accepted: 1, NeedsAction: 2}, 11: {Accepted: 1, NeedsAction: 2}},
		},
	} {
		if u := step.series; u != nil {
			s, err := f.store.Series(m.organizer, m.entry.Key())
			f.mustDo(err)
			u.Key, u.ExpectedVersion = m.entry.Key(), s.Master.Version
			_, _, err = f.store.UpdateEntry(m.organizer, *u)
			f.mustDo(err)
		}
		for _, a := range step.answers {
			if _, err := f.answer(m, m.guests[a.guest], a.day, a.scope, a.resp); err != nil {
				t.Fatalf("%s: guest %d answering %s on the %d: %v", step.name, a.guest, a.scope, a.day, err)
			}
		}
		if step.move > 0 {
			moved, err := f.editOccurrence(m, step.move, time.Hour)
			f.mustDo(err)
			if got := moved.Attendance.Summary; got != (calendar.AttendeeSummary{NeedsAction: 3}) {
				t.Errorf("%s: the moved occurrence returned with the summary %+v, want all NEEDS_ACTION", step.name, got)
			}
		}
		if step.retitle > 0 {
			_, err := f.editOccurrence(m, step.retitle, 0)
			f.mustDo(err)
		}
		for d, want := range step.want {
			if got := f.answersOn(m, d); fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("%s: answers on December %d: got %v, want %v", step.name, d, got, want)
			}
		}
		got := f.summariesOn(m)
		for d, want := range step.summary {
			if got[d] != want {
				t.Errorf("%s: summary on December %d: got %+v, want %+v", step.name, d, got[d], want)
			}
		}
		f.consistent()
	}
	for _, d := range []int{9, 11} {
		if r := f.occurrenceOn(m, d).Attendance.Reset; r != 0 {
			t.Errorf("December %d after the series moved: reset mark %d, want none", d, r)
		}
	}
}

// TestOccurrenceMoveRacesAnswers: guests answering (ALL, THIS on the
// moved occurrence, THIS_AND_FOLLOWING) while the organizer moves one
// occurrence alone, twice: each answer is reset by a move or counted after
// it, never lost or counted twice, and Store.Check finds the shares on the
// master equal to a recount.
func TestOccurrenceMoveRacesAnswers(t *testing.T) {
	f := newFixture(t)
	const guests = 8
	m := f.dailyMeeting(guests)
	scopes := []calendar.Scope{calendar.ScopeAll, calendar.ScopeThis, calendar.ScopeThisAndFollowing}
	var wg sync.WaitGroup
	errs := make(chan error, 2*guests+2)
	for i, g := range m.guests {
		wg.Go(func() {
			day := map[calendar.Scope]int{calendar.ScopeAll: 0, calendar.ScopeThis: 9, calendar.ScopeThisAndFollowing: 8}[scopes[i%3]]
			for _, resp := range []calendar.Response{calendar.ResponseAccepted, calendar.ResponseDeclined} {
				if _, err := f.answer(m, g, day, scopes[i%3], resp); err != nil {
					errs <- fmt.Errorf("guest %d: %w", i, err)
				}
			}
		})
	}
	wg.Go(func() {
		for range 2 {
			for {
				_, err := f.editOccurrence(m, 9, time.Hour)
				if calendar.ErrorCode(err) == calendar.CodeVersionConflict {
					continue // read the occurrence again
				}
				if err != nil {
					errs <- fmt.Errorf("move: %w", err)
				}
				break
			}
		}
	})
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	f.consistent() // the shares against a recount with the reset marks
	got := f.summariesOn(m)
	for _, d := range []int{8, 9, 10} {
		var want calendar.AttendeeSummary
		for _, r := range f.answersOn(m, d) {
			want.Count(&calendar.Attendee{Response: r}, 1)
		}
		if got[d] != want {
			t.Errorf("December %d: summary %+v, its answers count %+v", d, got[d], want)
		}
	}
	on9, on10 := f.answersOn(m, 9), f.answersOn(m, 10)
	for i := range guests {
		switch r := on10[i]; {
		case scopes[i%3] == calendar.ScopeThis && r != calendar.ResponseNeedsAction:
			t.Errorf("guest %d, who answered December 9 alone: got %s on December 10, want NEEDS_ACTION", i, r)
		case scopes[i%3] != calendar.ScopeThis && r != calendar.ResponseDeclined:
			t.Errorf("guest %d: got %s on December 10, want their last answer, DECLINED", i, r)
		}
		if r := on9[i]; r != calendar.ResponseDeclined && r != calendar.ResponseNeedsAction {
			t.Errorf("guest %d: got %s on December 9, want their last answer (DECLINED) or a reset by a move after it", i, r)
		}
	}
}

// TestSplitKeepsOccurrenceResets: a THIS_AND_FOLLOWING split (a new title)
// after one occurrence past the split was moved alone carries its reset to
// the series split off: the answers from before the move still read as
// NEEDS_ACTION there, and the split series' shares match a recount.
func TestSplitKeepsOccurrenceResets(t *testing.T) {
	f := newFixture(t)
	m := f.dailyMeeting(2)
	for i, g := range m.guests {
		_, err := f.answer(m, g, 0, calendar.ScopeAll, calendar.ResponseAccepted)
		f.mustDo(err)
		if i == 1 {
			_, err = f.answer(m, g, 12, calendar.ScopeThis, calendar.ResponseDeclined)
			f.mustDo(err)
		}
	}
	_, err := f.editOccurrence(m, 12, time.Hour)
	f.mustDo(err)
	s, err := f.store.Series(m.organizer, m.entry.Key())
	f.mustDo(err)
	split, _, err := f.store.UpdateOccurrence(m.organizer, calendar.OccurrenceKey{CalendarID: m.cal.ID, SeriesID: m.entry.ID, OriginalStart: dayOf(10)},
		calendar.ScopeThisAndFollowing, calendar.EntryUpdate{ExpectedVersion: s.Master.Version, Title: calendar.Set("Later")})
	f.mustDo(err)
	f.consistent()
	after := meeting{organizer: m.organizer, cal: m.cal, entry: split, guests: m.guests}
	if got := f.summariesOn(after); got[12] != (calendar.AttendeeSummary{NeedsAction: 2}) || got[11] != (calendar.AttendeeSummary{Accepted: 2}) {
		t.Errorf("the series split off: December 11 %+v, 12 %+v, want 2 ACCEPTED and 2 NEEDS_ACTION", got[11], got[12])
	}
	if got := fmt.Sprint(f.answersOn(after, 12)); got != "[NEEDS_ACTION NEEDS_ACTION]" {
		t.Errorf("answers on December 12 in the series split off: %s, want both NEEDS_ACTION", got)
	}
}

// TestOccurrenceResetsAreBounded: past calendar.MaxOccurrenceResets
// occurrences of a series moved alone, moving one more is BAD_USER_INPUT
// and writes nothing; moving one of them again still works.
func TestOccurrenceResetsAreBounded(t *testing.T) {
	f := newFixture(t)
	m := f.dailyMeeting(1)
	for n := range calendar.MaxOccurrenceResets {
		_, err := f.editOccurrence(m, 7+n, time.Hour)
		f.mustDo(err)
	}
	before := f.items()
	_, err := f.editOccurrence(m, 7+calendar.MaxOccurrenceResets, time.Hour)
	if calendar.ErrorCode(err) != calendar.CodeInvalid {
		t.Errorf("moving occurrence %d alone: got %v, want CodeInvalid", calendar.MaxOccurrenceResets+1, err)
	}
	if after := f.items(); fmt.Sprint(after) != fmt.Sprint(before) {
		t.Errorf("the refused move changed the table")
	}
	_, err = f.editOccurrence(m, 7, time.Hour)
	f.mustDo(err)
}

// TestAddedWithAnAnswerAfterAMove: an attendee added with an answer (as an
// import adds them) after one occurrence was moved alone answered after
// the move: their answer counts there too, and the shares match a recount.
func TestAddedWithAnAnswerAfterAMove(t *testing.T) {
	f := newFixture(t)
	m := f.dailyMeeting(1)
	_, err := f.editOccurrence(m, 9, time.Hour)
	f.mustDo(err)
	m.guests = append(m.guests, f.user("late@example.com"))
	_, err = f.store.ChangeAttendees(m.organizer, calendar.AttendeeDelta{Key: m.entry.Key(),
		Add: []calendar.NewAttendee{{Email: "late@example.com", Response: calendar.ResponseAccepted}}})
	f.mustDo(err)
	f.consistent()
	if got := fmt.Sprint(f.answersOn(m, 9)); got != "[NEEDS_ACTION ACCEPTED]" {
		t.Errorf("answers on the moved December 9: %s, want the added answer counted", got)
	}
	if got := f.summariesOn(m)[9]; got != (calendar.AttendeeSummary{NeedsAction: 1, Accepted: 1}) {
		t.Errorf("summary on December 9: %+v, want one NEEDS_ACTION, one ACCEPTED", got)
	}
}
