package recurrence_test

import (
	"testing"
	"time"

	"github.com/calgraph/calgraph/internal/calendar"
)

// The expansion benchmarks time what a month view asks of the engine for one
// series: the occurrences of December 2026 (in New York).
//
//	go test ./internal/recurrence -run XXX -bench . -benchmem

var december = [2]time.Time{time.Date(2026, 12, 1, 5, 0, 0, 0, time.UTC), time.Date(2027, 1, 1, 5, 0, 0, 0, time.UTC)}

func benchmarkStarts(b *testing.B, s *calendar.Entry, want int) {
	for b.Loop() {
		got, err := engine.Starts(s, december[0], december[1], calendar.MaxOccurrencesPerRequest)
		if err != nil || len(got) != want {
			b.Fatalf("got %d occurrences (%v), want %d", len(got), err, want)
		}
	}
}

// A daily series through 2026, in its last month: expansion walks the year.
func BenchmarkDailySeriesOverAYearInAMonthView(b *testing.B) {
	benchmarkStarts(b, seriesIn(b, "America/New_York", "20260101T083000", "FREQ=DAILY;UNTIL=20261231T235959Z"), 31)
}

// A weekly series begun ten years before the month shown.
func BenchmarkWeeklySeriesTenYearsOldInAMonthView(b *testing.B) {
	benchmarkStarts(b, seriesIn(b, "America/New_York", "20161206T100000", "FREQ=WEEKLY;BYDAY=TU"), 5)
}

// The same with ten EXDATEs, which every step checks.
func BenchmarkWeeklySeriesWithExDates(b *testing.B) {
	s := seriesIn(b, "America/New_York", "20161206T100000", "FREQ=WEEKLY;BYDAY=TU")
	for i := range 10 {
		s.Recurrence.ExDates = append(s.Recurrence.ExDates, s.Start.AddDate(0, 0, 7*(i+1)))
	}
	benchmarkStarts(b, s, 5)
}

func seriesIn(b *testing.B, zone, local, rule string) *calendar.Entry {
	loc, _ := time.LoadLocation(zone)
	start, err := time.ParseInLocation("20060102T150405", local, loc)
	if err != nil {
		b.Fatal(err)
	}
	return &calendar.Entry{ID: "s", Kind: calendar.KindTimed, Start: start.UTC(), End: start.Add(30 * time.Minute).UTC(),
		TimeZone: zone, Recurrence: &calendar.Recurrence{Rule: rule}}
}

// The validation benchmarks time the density bound (checkDensity), which
// expands a rule over its first year and the longest view after it.
func benchmarkValidate(b *testing.B, rule string, ok bool) {
	for b.Loop() {
		s := seriesIn(b, "America/New_York", "20260105T090000", rule)
		if err := engine.Validate(s); (err == nil) != ok {
			b.Fatalf("Validate(%s): %v", rule, err)
		}
	}
}

// Every two hours for ever: the densest rule allowed, about 8,800
// occurrences in the two years expanded.
func BenchmarkValidateEveryTwoHours(b *testing.B) {
	benchmarkValidate(b, "FREQ=HOURLY;INTERVAL=2", true)
}

// Once a day written minutely: rrule-go walks every minute of every day.
func BenchmarkValidateMinutelyOnceADay(b *testing.B) {
	benchmarkValidate(b, "FREQ=MINUTELY;BYHOUR=9;BYMINUTE=0", true)
}

// Every minute for ever: refused at the 5,001st occurrence.
func BenchmarkValidateEveryMinuteRefused(b *testing.B) { benchmarkValidate(b, "FREQ=MINUTELY", false) }

// Weekly, the common case.
func BenchmarkValidateWeekly(b *testing.B) { benchmarkValidate(b, "FREQ=WEEKLY;BYDAY=MO,WE,FR", true) }
