package dynamo_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/calgraph/calgraph/internal/calendar"
)

// TestMovingAnHourlySeriesKeepsItsExceptions moves an hourly series half an
// hour later with scope ALL, through one of its occurrences, when 50 of its
// occurrences (more than one transaction holds, and many on each day) have
// exceptions: each exception follows its own occurrence.
func TestMovingAnHourlySeriesKeepsItsExceptions(t *testing.T) {
	f := newFixture(t)
	ada := f.user("ada@example.com")
	cal := f.calendarOf(ada, "Work")
	f.series(ada, cal.ID, "Hourly", timed("2026-01-05T09:00:00Z", "2026-01-05T09:15:00Z", "UTC"), "FREQ=HOURLY;COUNT=100")
	days := calendar.RangeSpec{FromDate: day("2026-01-05"), ToDate: day("2026-01-10")}
	view := f.occurrences(ada, cal.ID, days, "UTC", false)
	if len(view) != 100 {
		t.Fatalf("%d occurrences, want 100", len(view))
	}
	for i := range 50 {
		f.edit(ada, view[i], calendar.ScopeThis, title(fmt.Sprint("Hour ", i)))
	}
	view = f.occurrences(ada, cal.ID, days, "UTC", false)
	f.edit(ada, view[3], calendar.ScopeAll, calendar.EntryUpdate{Timing: calendar.Set(timed("2026-01-05T12:30:00Z", "2026-01-05T12:45:00Z", "UTC"))})
	view = f.occurrences(ada, cal.ID, days, "UTC", false)
	if len(view) != 100 {
		t.Fatalf("%d occurrences after the move, want 100", len(view))
	}
	first := at("2026-01-05T09:30:00Z")
	for i, occ := range view {
		want := "Hourly"
		if i < 50 {
			want = fmt.Sprint("Hour ", i)
		}
		if at := first.Add(time.Duration(i) * time.Hour); occ.Title != want || !occ.Start.Equal(at) || !occ.OriginalStart.Equal(at) {
			t.Fatalf("occurrence %d: %q at %v (originally %v), want %q at %v", i, occ.Title, occ.Start, occ.OriginalStart, want, at)
		}
	}
	if n := f.countEntities()["EXCEPTION"]; n != 50 {
		t.Fatalf("%d exception items, want 50", n)
	}
}
