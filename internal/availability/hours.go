package availability

import (
	"fmt"
	"time"

	"github.com/calgraph/calgraph/internal/calendar"
)

// WorkingIntervals returns the instants within [from, to) that h counts as working,
// as sorted, merged intervals: for each date and window, within each period
// of the zone, the instants whose wall clock reads inside the window.
func WorkingIntervals(h *calendar.WorkingHours, from, to time.Time) ([]calendar.Interval, error) {
	zone, err := calendar.LoadLocation(h.TimeZone)
	if err != nil {
		return nil, fmt.Errorf("working hours in zone %q: %w", h.TimeZone, err)
	}
	ps := periods(zone, from, to)
	var out []calendar.Interval
	for _, d := range localDates(zone, from, to) {
		for _, w := range h.WindowsOn(d) {
			for _, p := range ps {
				iv := clip(calendar.Interval{Start: wall(d, w.From).Add(-p.offset), End: wall(d, w.To).Add(-p.offset)}, p.start, p.end)
				if iv.Start.Before(iv.End) {
					out = append(out, iv)
				}
			}
		}
	}
	return calendar.MergeIntervals(out), nil
}

// clip returns iv within [from, to) (empty when they do not meet).
func clip(iv calendar.Interval, from, to time.Time) calendar.Interval {
	if iv.Start.Before(from) {
		iv.Start = from
	}
	if iv.End.After(to) {
		iv.End = to
	}
	return iv
}
