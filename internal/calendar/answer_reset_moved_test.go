package calendar_test

import (
	"testing"
	"time"

	"github.com/calgraph/calgraph/internal/calendar"
)

// TestMovedAlone: a THIS edit resets the answers to its occurrence only
// when it moves its time (start or end: an occurrence keeps its series'
// kind), not for a title, a new zone alone or a cancellation, nor on a series without attendees.
func TestMovedAlone(t *testing.T) {
	m := daily(t)
	m.Attendance = calendar.Attendance{Summary: calendar.AttendeeSummary{NeedsAction: 1, Accepted: 2}}
	orig := m.Start.AddDate(0, 0, 2)
	hourLater := calendar.Timing{Timed: &calendar.TimedTiming{Start: orig.Add(time.Hour), End: orig.Add(2 * time.Hour), TimeZone: "UTC"}}
	longer := calendar.Timing{Timed: &calendar.TimedTiming{Start: orig, End: orig.Add(90 * time.Minute), TimeZone: "UTC"}}
	zoned := calendar.Timing{Timed: &calendar.TimedTiming{Start: orig, End: orig.Add(time.Hour), TimeZone: "Europe/Paris"}}
	same := calendar.Timing{Timed: &calendar.TimedTiming{Start: orig, End: orig.Add(time.Hour), TimeZone: "UTC"}}
	for _, c := range []struct {
		name      string
		attendees bool
		u         calendar.EntryUpdate
		delete    bool
		want      bool
	}{
		{"an hour later", true, calendar.EntryUpdate{Timing: calendar.Set(hourLater)}, false, true},
		{"a longer end", true, calendar.EntryUpdate{Timing: calendar.Set(longer)}, false, true},
		{"another zone, the same instants", true, calendar.EntryUpdate{Timing: calendar.Set(zoned)}, false, false},
		{"the same time", true, calendar.EntryUpdate{Timing: calendar.Set(same)}, false, false},
		{"a title", true, calendar.EntryUpdate{Title: calendar.Set("Retro")}, false, false},
		{"a cancellation", true, calendar.EntryUpdate{}, true, false},
		{"no attendees", false, calendar.EntryUpdate{Timing: calendar.Set(hourLater)}, false, false},
	} {
		s := *m
		if !c.attendees {
			s.Attendance = calendar.Attendance{}
		}
		u := c.u
		u.ExpectedVersion = s.Version
		edit, err := calendar.PlanSeriesEdit(eng, calendar.SeriesEditInput{Series: &calendar.Series{Master: &s}, Occurrence: orig,
			Scope: calendar.ScopeThis, Update: u, Delete: c.delete, Now: m.Start})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if at, got := edit.MovedAlone(); got != c.want || got && !at.Equal(orig) {
			t.Errorf("%s: got %v at %v, want %v at %v", c.name, got, at, c.want, orig)
		}
	}
}
