package dynamo_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/calgraph/calgraph/internal/calendar"
)

// TestImportedOccurrenceAnswers: an attendee added with answers to single
// occurrences (an import of a feed's RECURRENCE-ID overrides) shows them
// there, in the occurrences' summaries, and Check agrees; answers to no
// occurrence of the series, to a single entry, NEEDS_ACTION, twice the same
// occurrence or past the bound are BAD_USER_INPUT and change nothing.
func TestImportedOccurrenceAnswers(t *testing.T) {
	f := newFixture(t)
	m := f.dailyMeeting(1)
	f.user("imported@example.com")
	occ := func(day int, r calendar.Response) calendar.OccurrenceAnswer {
		return calendar.OccurrenceAnswer{Key: calendar.AnswerKey{From: dayOf(day)}, Response: r}
	}
	add := calendar.NewAttendee{Email: "imported@example.com", Response: calendar.ResponseAccepted,
		Occurrences: []calendar.OccurrenceAnswer{occ(9, calendar.ResponseDeclined), occ(11, calendar.ResponseTentative)}}
	_, err := f.store.ChangeAttendees(m.organizer, calendar.AttendeeDelta{Key: m.entry.Key(), Add: []calendar.NewAttendee{add}})
	f.mustDo(err)
	got := f.summariesOn(m)
	for day, want := range map[int]calendar.AttendeeSummary{
		8:  {NeedsAction: 1, Accepted: 1},
		9:  {NeedsAction: 1, Declined: 1},
		11: {NeedsAction: 1, Tentative: 1},
	} {
		if got[day] != want {
			t.Errorf("December %d: %+v, want %+v", day, got[day], want)
		}
	}
	f.consistent()

	single, _, err := f.store.CreateEntry(m.organizer, calendar.NewEntry{CalendarID: m.cal.ID, Title: "Once", Timing: timed("2026-12-07T12:00:00Z", "2026-12-07T13:00:00Z", "UTC")})
	f.mustDo(err)
	var eleven []calendar.OccurrenceAnswer
	for d := range 11 {
		eleven = append(eleven, occ(10+d, calendar.ResponseDeclined))
	}
	before := len(f.allItems())
	for name, c := range map[string]struct {
		key calendar.EntryKey
		occ []calendar.OccurrenceAnswer
	}{
		"no such occurrence": {m.entry.Key(), []calendar.OccurrenceAnswer{{Key: calendar.AnswerKey{From: dayOf(9).Add(time.Hour)}, Response: calendar.ResponseDeclined}}},
		"a single entry":     {single.Key(), []calendar.OccurrenceAnswer{occ(9, calendar.ResponseDeclined)}},
		"NEEDS_ACTION":       {m.entry.Key(), []calendar.OccurrenceAnswer{occ(9, calendar.ResponseNeedsAction)}},
		"twice":              {m.entry.Key(), []calendar.OccurrenceAnswer{occ(9, calendar.ResponseDeclined), occ(9, calendar.ResponseAccepted)}},
		"following":          {m.entry.Key(), []calendar.OccurrenceAnswer{{Key: calendar.AnswerKey{From: dayOf(9), Following: true}, Response: calendar.ResponseDeclined}}},
		"eleven":             {m.entry.Key(), eleven},
	} {
		email := fmt.Sprintf("bad%d@example.com", len(name))
		_, err := f.store.ChangeAttendees(m.organizer, calendar.AttendeeDelta{Key: c.key, Add: []calendar.NewAttendee{{Email: email, Occurrences: c.occ}}})
		if calendar.ErrorCode(err) != calendar.CodeInvalid {
			t.Errorf("%s: got %v, want BAD_USER_INPUT", name, err)
		}
	}
	if n := len(f.allItems()); n != before {
		t.Errorf("refused adds changed the table: %d items, were %d", n, before)
	}
}
