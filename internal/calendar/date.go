package calendar

import (
	"fmt"
	"time"
)

// Date is a calendar day without a time zone: the day of an all-day entry, the
// bounds of a multi-day one, a task's due date. It means the same day wherever
// the viewer is, so it only becomes instants in a given zone.
type Date struct {
	Year  int
	Month time.Month
	Day   int
}

// Dates and instants are accepted within these years: key formats use four-digit
// years, and nothing in a calendar needs more. The day after the last one
// (MaxYear+1-01-01) is accepted too, as the exclusive end of a range or entry.
const (
	MinYear = 1900
	MaxYear = 2999
)

// ParseDate reads a "YYYY-MM-DD" date given as input. field names the input
// for errors.
func ParseDate(field, s string) (Date, error) {
	d, err := ReadDate(s)
	if err != nil {
		return Date{}, Invalidf(field, "%s must be a date like 2026-11-21, got %q", field, s)
	}
	if d.Year < MinYear || (d.Year > MaxYear && d != (Date{MaxYear + 1, time.January, 1})) {
		return Date{}, Invalidf(field, "%s must be between %d and %d", field, MinYear, MaxYear)
	}
	return d, nil
}

// ReadDate reads a "YYYY-MM-DD" date without the input limits, for dates the
// store wrote (an entry's exclusive end can be the day after MaxYear ends).
func ReadDate(s string) (Date, error) {
	t, err := time.Parse(time.DateOnly, s)
	if err != nil || len(s) != len(time.DateOnly) {
		return Date{}, fmt.Errorf("%q is not a date", s)
	}
	return DateOf(t), nil
}

// DateOf returns the date of t in t's location.
func DateOf(t time.Time) Date {
	y, m, d := t.Date()
	return Date{Year: y, Month: m, Day: d}
}

// String formats the date as "YYYY-MM-DD".
func (d Date) String() string { return fmt.Sprintf("%04d-%02d-%02d", d.Year, d.Month, d.Day) }

// IsZero reports whether d is the zero Date (no date).
func (d Date) IsZero() bool { return d == Date{} }

// In returns the first instant of the day in loc: midnight, or the first
// moment after a DST gap at midnight (time.Date would give the hour before
// midnight of the day before there: 23:00 on 5 September in Santiago).
func (d Date) In(loc *time.Location) time.Time {
	return WallClock(d, 0, 0, 0, 0, loc)
}

// AddDays returns the date n days later (earlier for negative n).
func (d Date) AddDays(n int) Date { return DateOf(d.utc().AddDate(0, 0, n)) }

// DaysUntil returns the number of days from d to e (negative when e is before d).
func (d Date) DaysUntil(e Date) int { return int((e.utc().Unix() - d.utc().Unix()) / 86400) }

// Before reports whether d is an earlier day than e.
func (d Date) Before(e Date) bool { return d.utc().Before(e.utc()) }

func (d Date) utc() time.Time { return d.In(time.UTC) }

// ValidateInstant checks that t lies within the supported years, up to the
// first instant after they end.
func ValidateInstant(field string, t time.Time) error {
	last := time.Date(MaxYear+1, time.January, 1, 0, 0, 0, 0, time.UTC)
	if y := t.UTC().Year(); y < MinYear || t.After(last) {
		return Invalidf(field, "%s must be between the years %d and %d", field, MinYear, MaxYear)
	}
	return nil
}

// WallClock returns the instant at which the clock in loc shows the given day
// and time, read as RFC 5545 section 3.3.5 reads local times: where the time
// happens twice (clocks going back) the first one, and where it does not
// happen at all (clocks going forward) with the offset in force before the gap,
// so 02:30 on the day New York jumps from 02:00 to 03:00 is 03:30 EDT.
func WallClock(d Date, hour, min, sec, nsec int, loc *time.Location) time.Time {
	wall := time.Date(d.Year, d.Month, d.Day, hour, min, sec, nsec, time.UTC)
	_, before := wall.Add(-24 * time.Hour).In(loc).Zone()
	_, after := wall.Add(24 * time.Hour).In(loc).Zone()
	if before == after { // no change of offset near: the common case
		return wall.Add(-time.Duration(before) * time.Second).In(loc)
	}
	var best time.Time
	for _, off := range []int{before, after} {
		c := wall.Add(-time.Duration(off) * time.Second).In(loc)
		if DateOf(c) == d && c.Hour() == hour && c.Minute() == min && c.Second() == sec && (best.IsZero() || c.Before(best)) {
			best = c
		}
	}
	if best.IsZero() { // in a gap
		best = wall.Add(-time.Duration(before) * time.Second).In(loc)
	}
	return best
}
