package graph_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/calgraph/calgraph/internal/calendar"
	"github.com/calgraph/calgraph/internal/dynamo"
	"github.com/calgraph/calgraph/internal/dynamotest"
	"github.com/calgraph/calgraph/internal/recurrence"
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
	db := dynamotest.Client(b)
	name := fmt.Sprintf("bench-series-%d", time.Now().UnixNano())
	if err := dynamo.EnsureTable(context.Background(), db, name); err != nil {
		b.Fatal(err)
	}
	e := newEnv(b, func(o *envOptions) { o.table = name })
	e.must(e.token("bench@example.com"), provision, nil)
	cal := seedCalendars(b, e, "bench@example.com", 1, nil)[0]
	s := dynamo.New(dynamoClient(e), name, recurrence.Engine{})
	id, err := s.ResolveIdentity(context.Background(), calendar.SignUp{Identity: calendar.Identity{Provider: "calgraph-local", Subject: "bench@example.com"}, Email: "bench@example.com"})
	if err != nil {
		b.Fatal(err)
	}
	ctx := calendar.WithViewer(context.Background(), id)
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
		m, err := s.CreateEntry(ctx, calendar.NewEntry{CalendarID: cal, Title: sr.title,
			Timing:     calendar.Timing{Timed: &calendar.TimedTiming{Start: sr.start.UTC(), End: sr.start.Add(30 * time.Minute).UTC(), TimeZone: "America/New_York"}},
			Recurrence: &calendar.Recurrence{Rule: sr.rule}})
		if err != nil {
			b.Fatal(err)
		}
		for i := 1; i <= 12; i++ {
			orig := sr.start.AddDate(0, 0, i*sr.every).UTC()
			_, err := s.UpdateOccurrence(ctx, calendar.OccurrenceKey{CalendarID: cal, SeriesID: m.ID, OriginalStart: orig},
				calendar.ScopeThis, calendar.EntryUpdate{ExpectedVersion: 1, Title: calendar.Set(fmt.Sprint(sr.title, " exception ", i))})
			if err != nil {
				b.Fatal(err)
			}
		}
	}
	return name
}
