package calendar

import "time"

// How a change of a series' timing moves its occurrences, exceptions and
// dates: by whole days on the series' wall clock, so that a weekly 09:00
// meeting moved to 10:00 is at 10:00 on both sides of a DST change.

// sameTiming reports whether two versions of a series start and last alike.
func sameTiming(a, b *Entry) bool {
	return a.Start.Equal(b.Start) && a.End.Equal(b.End) && a.TimeZone == b.TimeZone &&
		a.StartDate == b.StartDate && a.EndDate == b.EndDate
}

// seriesZone is the zone a series recurs in (UTC for whole days).
func seriesZone(m *Entry) *time.Location {
	if m.Dated() {
		return time.UTC
	}
	loc, err := LoadLocation(m.TimeZone)
	if err != nil {
		return time.UTC
	}
	return loc
}

// daysFrom counts the days from a to b on the series' wall clock.
func daysFrom(m *Entry, a, b time.Time) int {
	loc := seriesZone(m)
	return DateOf(a.In(loc)).DaysUntil(DateOf(b.In(loc)))
}

// moveStart returns where an occurrence start of series from lands in series
// to: as many days after to's start, at to's time of day, in to's zone.
func moveStart(start time.Time, from, to *Entry) time.Time {
	days := daysFrom(from, from.FirstStart(), start)
	loc := seriesZone(to)
	first := to.FirstStart().In(loc)
	h, mi, s := first.Clock()
	return WallClock(DateOf(first).AddDays(days), h, mi, s, first.Nanosecond(), loc).UTC()
}

// moveDates returns from's recurrence with its RDATEs, EXDATEs and UNTIL
// moved as its start moved to to's.
func moveDates(eng RecurrenceEngine, from, to *Entry) (*Recurrence, error) {
	r := *from.Recurrence
	move := func(ds []time.Time) []time.Time {
		out := make([]time.Time, len(ds))
		for i, d := range ds {
			out[i] = moveStart(d, from, to)
		}
		return out
	}
	r.RDates, r.ExDates = move(r.RDates), move(r.ExDates)
	rule, err := eng.MoveUntil(from, func(t time.Time) time.Time { return moveStart(t, from, to) })
	if err != nil {
		return nil, err
	}
	r.Rule = rule
	return &r, nil
}

// shiftedTiming returns e's timing moved by a number of days on its wall clock.
func shiftedTiming(e *Entry, days int) Timing {
	if e.Dated() {
		d := e.StartDate.AddDays(days)
		return Timing{AllDay: &d}
	}
	loc := seriesZone(e)
	start := e.Start.In(loc)
	h, mi, s := start.Clock()
	ns := WallClock(DateOf(start).AddDays(days), h, mi, s, start.Nanosecond(), loc)
	return Timing{Timed: &TimedTiming{Start: ns.UTC(), End: ns.Add(e.End.Sub(e.Start)).UTC(), TimeZone: e.TimeZone}}
}
