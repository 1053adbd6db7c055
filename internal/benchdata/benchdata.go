// Package benchdata makes the entries of calgraph's benchmarks, so that the
// in-process benchmarks (graph/bench_test.go) and the out-of-process one
// (internal/viewbench) measure the same data set.
package benchdata

import (
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/calgraph/calgraph/internal/calendar"
)

// Entry makes a plausible entry i of a calendar in 2026: 70% one-hour
// meetings in Europe/Paris, 15% all-day entries, 5% multi-day entries of 2 to
// 10 days, 10% dated tasks. Callers draw from one rand.NewPCG(1, 2) in order, so
// that every run makes the same entries.
func Entry(rng *rand.Rand, calendarID string, i int) calendar.NewEntry {
	n := calendar.NewEntry{CalendarID: calendarID, Title: fmt.Sprint("entry ", i), Tags: []string{[]string{"work", "home", "sport"}[i%3]}}
	day := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, rng.IntN(365))
	date := calendar.DateOf(day)
	switch r := rng.IntN(100); {
	case r < 70:
		start := day.Add(time.Duration(7+rng.IntN(12)) * time.Hour)
		n.Timing.Timed = &calendar.TimedTiming{Start: start, End: start.Add(time.Hour), TimeZone: "Europe/Paris"}
	case r < 85:
		n.Timing.AllDay = &date
	case r < 90:
		n.Timing.MultiDay = &calendar.DaySpan{Start: date, End: date.AddDays(2 + rng.IntN(9))}
	default:
		n.Timing.Task = &calendar.TaskDue{Date: &date}
	}
	return n
}
