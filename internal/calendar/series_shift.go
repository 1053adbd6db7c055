package calendar

import "time"

// How a change of a series' timing moves its occurrences, exceptions and
// dates: every occurrence by the same span of the series' wall clock, the
// span its start moved by, so that a weekly 09:00 meeting moved to 10:00 is
// at 10:00 on both sides of a DST change, and an hourly series moved half an
// hour later keeps each exception on its own occurrence, half an hour later.
// The rule's own times of day (BYHOUR, BYMINUTE, BYSECOND) move with them
// (RecurrenceEngine.MoveRule).

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

// floating returns t's wall clock in loc, labelled UTC: a clock without DST,
// on which spans of wall-clock time can be added.
func floating(t time.Time, loc *time.Location) time.Time {
	t = t.In(loc)
	return time.Date(t.Year(), t.Month(), t.Day(), t.Hour(), t.Minute(), t.Second(), t.Nanosecond(), time.UTC)
}

// firstWall is the wall clock of a series' start (or an entry's), labelled
// UTC: LocalStart when a DST gap skipped it; midnight UTC of the first date
// for a series of whole days.
func firstWall(e *Entry) time.Time {
	switch {
	case e.Dated():
		return e.StartDate.In(time.UTC)
	case !e.LocalStart.IsZero():
		return e.LocalStart
	}
	return floating(e.Start, seriesZone(e))
}

// wallOf returns the wall clock, labelled UTC, of an occurrence of series m
// that starts at t: t read in m's zone, except where t is the reading of the
// series' own time of day in a DST gap (02:30 read as 03:30), where it is
// that time of day, as the rule gave it.
func wallOf(m *Entry, t time.Time) time.Time {
	if t.Equal(m.FirstStart()) || m.Dated() {
		return firstWall(m).Add(t.Sub(m.FirstStart()))
	}
	loc, first := seriesZone(m), firstWall(m)
	w := floating(t, loc)
	h, mi, s := first.Clock()
	// A gap can push the reading past midnight, onto the next day's date.
	for _, d := range []Date{DateOf(w), DateOf(w).AddDays(-1)} {
		if WallClock(d, h, mi, s, first.Nanosecond(), loc).Equal(t) {
			return time.Date(d.Year, d.Month, d.Day, h, mi, s, first.Nanosecond(), time.UTC)
		}
	}
	return w
}

// moveStart returns where an occurrence start of series from lands in series
// to: its wall clock moved by as much as to's start is after from's, read in
// to's zone.
func moveStart(start time.Time, from, to *Entry) time.Time {
	if start.Equal(from.FirstStart()) {
		return to.FirstStart()
	}
	w := wallOf(from, start).Add(firstWall(to).Sub(firstWall(from)))
	return WallClock(DateOf(w), w.Hour(), w.Minute(), w.Second(), w.Nanosecond(), seriesZone(to)).UTC()
}

// moveDates returns from's recurrence with its RDATEs, EXDATEs, UNTIL and
// its rule's own times of day moved as its start moved to to's. Errors:
// CodeInvalid when the rule's times cannot move so (see MoveRule).
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
	rule, err := eng.MoveRule(from, to, func(t time.Time) time.Time { return moveStart(t, from, to) })
	if err != nil {
		return nil, err
	}
	r.Rule = rule
	return &r, nil
}

// shiftedTiming returns e's timing with its start moved by d on its wall
// clock (whole days for an entry of whole days), lasting as long.
func shiftedTiming(e *Entry, d time.Duration) Timing {
	if e.Dated() {
		s := e.StartDate.AddDays(int(d / (24 * time.Hour)))
		return Timing{AllDay: &s}
	}
	loc := seriesZone(e)
	w := firstWall(e).Add(d)
	start := WallClock(DateOf(w), w.Hour(), w.Minute(), w.Second(), w.Nanosecond(), loc).UTC()
	t := &TimedTiming{Start: start, End: start.Add(e.End.Sub(e.Start)), TimeZone: e.TimeZone}
	if !floating(start, loc).Equal(w) { // in a DST gap: keep the wall clock
		t.Start, t.LocalStart = time.Time{}, w
	}
	return Timing{Timed: t}
}
