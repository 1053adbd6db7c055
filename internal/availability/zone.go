package availability

import (
	"time"

	"github.com/calgraph/calgraph/internal/calendar"
)

// period is a stretch of time over which a zone's offset from UTC does not
// change: there, an instant's wall clock is the instant plus the offset, so
// "instants whose wall clock reads X" is a plain subtraction. Every
// conversion between wall clocks and instants in this package goes through
// periods, which is what makes it exact across DST changes: a wall-clock
// time that does not exist (spring forward) matches no instant, and one that
// happens twice (fall back) matches both.
type period struct {
	start, end time.Time // [start, end); the zero end means "on for ever"
	offset     time.Duration
}

// periods returns the periods of zone that overlap [from, to), in order,
// clipped to it.
func periods(zone *time.Location, from, to time.Time) []period {
	var out []period
	for t := from; t.Before(to); {
		local := t.In(zone)
		_, off := local.Zone()
		_, end := local.ZoneBounds()
		end = end.UTC()
		if end.IsZero() || end.After(to) {
			end = to
		}
		if !end.After(t) { // never expected; guards the loop
			end = to
		}
		out = append(out, period{start: t, end: end, offset: time.Duration(off) * time.Second})
		t = end
	}
	return out
}

// wall is the instant whose UTC reading equals the wall clock of date d at
// minute m: subtracting a period's offset from it gives the instant that
// reads d at m in that period.
func wall(d calendar.Date, minute int) time.Time {
	return d.In(time.UTC).Add(time.Duration(minute) * time.Minute)
}

// localDates returns every date the wall clock of zone shows between from
// and to, with a day to spare on each side.
func localDates(zone *time.Location, from, to time.Time) []calendar.Date {
	var out []calendar.Date
	last := calendar.DateOf(to.In(zone)).AddDays(1)
	for d := calendar.DateOf(from.In(zone)).AddDays(-1); !last.Before(d); d = d.AddDays(1) {
		out = append(out, d)
	}
	return out
}
