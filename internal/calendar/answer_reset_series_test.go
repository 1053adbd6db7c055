package calendar_test

import (
	"reflect"
	"testing"
	"time"

	"github.com/calgraph/calgraph/internal/calendar"
)

// TestSeriesMoveRaisesTheMastersEpoch: an ALL edit that moves a series'
// time resets the answers its master keeps, as a single entry's move does;
// an ALL edit of its title keeps them.
func TestSeriesMoveRaisesTheMastersEpoch(t *testing.T) {
	m := daily(t)
	m.Attendance = calendar.Attendance{Epoch: 2, Rev: 5, Summary: calendar.AttendeeSummary{NeedsAction: 1, Accepted: 2}}
	s := &calendar.Series{Master: m}
	plan := func(u calendar.EntryUpdate) calendar.Attendance {
		t.Helper()
		u.ExpectedVersion = m.Version
		edit, err := calendar.PlanSeriesEdit(eng, calendar.SeriesEditInput{Series: s, Scope: calendar.ScopeAll, Update: u, Now: m.Start})
		if err != nil {
			t.Fatal(err)
		}
		return edit.Master.Attendance
	}
	if got := plan(calendar.EntryUpdate{Title: calendar.Set("Standup")}); !reflect.DeepEqual(got, m.Attendance) {
		t.Errorf("a new title: %+v, want the answers kept", got)
	}
	later := calendar.Timing{Timed: &calendar.TimedTiming{Start: m.Start.Add(time.Hour), End: m.End.Add(time.Hour), TimeZone: "UTC"}}
	want := calendar.Attendance{Epoch: 3, Rev: 6, Summary: calendar.AttendeeSummary{NeedsAction: 3}}
	if got := plan(calendar.EntryUpdate{Timing: calendar.Set(later)}); !reflect.DeepEqual(got, want) {
		t.Errorf("an hour later: %+v, want %+v", got, want)
	}
}
