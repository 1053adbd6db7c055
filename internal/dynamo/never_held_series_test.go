package dynamo_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/calgraph/calgraph/internal/calendar"
	"github.com/calgraph/calgraph/internal/dynamo"
	"github.com/calgraph/calgraph/internal/dynamotest"
	"github.com/calgraph/calgraph/internal/recurrence"
)

// TestNeverHeldSeries follows the mark through every way a series enters a
// calendar, and through an update of the calendar racing one: once a series
// is there, range reads look for series again, for good.
func TestNeverHeldSeries(t *testing.T) {
	f := newFixture(t)
	ada := f.user("ada@example.com")
	start := time.Date(2026, 6, 16, 9, 0, 0, 0, time.UTC)
	timed := calendar.Timing{Timed: &calendar.TimedTiming{Start: start, End: start.Add(time.Hour), TimeZone: "UTC"}}
	weekly := &calendar.Recurrence{Rule: "FREQ=WEEKLY"}
	from, to := start.AddDate(0, 0, 7), start.AddDate(0, 0, 14)

	read := func(id string) *calendar.Calendar {
		t.Helper()
		items, err := f.store.Read(context.Background(), calendar.Keys{Calendars: []string{id}})
		f.mustDo(err)
		return items.Calendars[id]
	}
	// queries reads the range as a view does, with the calendar as stored,
	// and returns how many Queries it took and what it found.
	queries := func(id string) (int, []*calendar.Entry) {
		t.Helper()
		rec := &dynamo.Recorder{}
		s := dynamo.New(dynamotest.Client(t, dynamo.WithRecorder(rec)), f.store.Table(), recurrence.Engine{})
		found, err := s.EntriesReaching(ada, calendar.ReadScope{}, read(id), from, to)
		f.mustDo(err)
		n := 0
		for _, c := range rec.Calls() {
			if c.Op == "Query" { // not the check of a read of two (range_reads.go)
				n++
			}
		}
		return n, found
	}

	created := f.calendarOf(ada, "created with a series")
	if !created.NeverHeldSeries {
		t.Fatal("a new calendar is not marked")
	}
	_, _, err := f.store.CreateEntry(ada, calendar.NewEntry{CalendarID: created.ID, Title: "single", Timing: timed})
	f.mustDo(err)
	if n, found := queries(created.ID); n != 1 || len(found) != 0 {
		t.Fatalf("with a single entry: %d Queries, %d entries; want 1 and none in the range", n, len(found))
	}
	_, _, err = f.store.CreateEntry(ada, calendar.NewEntry{CalendarID: created.ID, Title: "weekly", Timing: timed, Recurrence: weekly})
	f.mustDo(err)
	if n, found := queries(created.ID); n != 2 || len(found) != 1 || found[0].Title != "weekly" {
		t.Fatalf("after a series: %d Queries, %v; want 2 and the series", n, found)
	}

	made := f.calendarOf(ada, "single made to repeat")
	e, _, err := f.store.CreateEntry(ada, calendar.NewEntry{CalendarID: made.ID, Title: "made weekly", Timing: timed})
	f.mustDo(err)
	_, _, err = f.store.UpdateEntry(ada, calendar.EntryUpdate{Key: calendar.EntryKey{CalendarID: made.ID, EntryID: e.ID},
		ExpectedVersion: e.Version, Recurrence: calendar.Set(*weekly)})
	f.mustDo(err)
	if n, found := queries(made.ID); n != 2 || len(found) != 1 {
		t.Fatalf("after an entry was made to repeat: %d Queries, %d entries; want 2 and the series", n, len(found))
	}

	// A calendar update that read the calendar before a series came in must
	// not bring the mark back.
	raced := f.calendarOf(ada, "updated meanwhile")
	var raced1 atomic.Bool
	dynamo.SetBeforeTransact(f.store, func(ctx context.Context) {
		if raced1.CompareAndSwap(false, true) { // the series' own transaction passes here too
			_, _, err := f.store.CreateEntry(ada, calendar.NewEntry{CalendarID: raced.ID, Title: "raced in", Timing: timed, Recurrence: weekly})
			f.mustDo(err)
		}
	})
	_, err = f.store.UpdateCalendar(ada, calendar.CalendarUpdate{ID: raced.ID, ExpectedVersion: raced.Version, Name: calendar.Set("renamed")})
	dynamo.SetBeforeTransact(f.store, nil)
	f.mustDo(err)
	if c := read(raced.ID); c.Name != "renamed" || c.NeverHeldSeries {
		t.Fatalf("after the race: %+v; want renamed and no longer marked", c)
	}
	if n, found := queries(raced.ID); n != 2 || len(found) != 1 {
		t.Fatalf("after the race: %d Queries, %d entries; want 2 and the series", n, len(found))
	}
}
