package graph_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/calgraph/calgraph/internal/calendar"
)

// The series benchmarks read a month view of a calendar holding a daily
// series running through 2026 (its December month view expands from January)
// and a weekly series begun ten years before, with a dozen exceptions each.

const monthViewQuery = `{ viewer { calendars(first: 1) { edges { node { calendar { id
	entries(range: {dates: {start: "2026-12-01", end: "2027-01-01"}}, timeZone: "America/New_York") { entries {
		__typename id title isException originalStart series { id } calendar { id }
		... on TimedEntry { start end timeZone } } } } } } } } }`

func BenchmarkMonthViewOfSeries(b *testing.B) { benchmarkQuery(b, monthViewQuery, seriesData) }

var seriesTable seededTable

func seriesData(b *testing.B, opts []func(*envOptions)) (*env, string) {
	return seriesTable.env(b, opts, seedSeriesTable)
}

func seedSeriesTable(b *testing.B) string {
	name, cals, s, ctx := benchOwner(b, 1, nil)
	cal := cals[0]
	ny, _ := time.LoadLocation("America/New_York")
	for _, sr := range []struct {
		title string
		start time.Time
		rule  string
		every int // days between exceptions
	}{
		{"daily", time.Date(2026, 1, 1, 8, 30, 0, 0, ny), "FREQ=DAILY;UNTIL=20261231T235959Z", 30},
		{"weekly", time.Date(2016, 12, 6, 10, 0, 0, 0, ny), "FREQ=WEEKLY;BYDAY=TU", 7 * 40},
	} {
		m, _, err := s.CreateEntry(ctx, calendar.NewEntry{CalendarID: cal, Title: sr.title,
			Timing:     calendar.Timing{Timed: &calendar.TimedTiming{Start: sr.start.UTC(), End: sr.start.Add(30 * time.Minute).UTC(), TimeZone: "America/New_York"}},
			Recurrence: &calendar.Recurrence{Rule: sr.rule}})
		if err != nil {
			b.Fatal(err)
		}
		for i := 1; i <= 12; i++ {
			orig := sr.start.AddDate(0, 0, i*sr.every).UTC()
			_, _, err := s.UpdateOccurrence(ctx, calendar.OccurrenceKey{CalendarID: cal, SeriesID: m.ID, OriginalStart: orig},
				calendar.ScopeThis, calendar.EntryUpdate{ExpectedVersion: 1, Title: calendar.Set(fmt.Sprint(sr.title, " exception ", i))})
			if err != nil {
				b.Fatal(err)
			}
		}
	}
	return name
}
