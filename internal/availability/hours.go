package availability

import (
	"fmt"
	"slices"
	"time"

	"github.com/calgraph/calgraph/internal/calendar"
)

// Window is a stretch of a day on the wall clock, in minutes after
// midnight: [From, To), 0 ≤ From < To ≤ 1440. A night shift is two windows,
// one ending at 1440 and one starting at 0 the next day; they join.
type Window struct {
	From, To int
}

// Limits of working hours, so that one person's hours stay a small value.
const (
	MaxWindowsPerDay = 8
	MaxDatedDays     = 366
)

// Hours are when someone works (or a room is open), on the wall clock of
// their own zone: windows per weekday, replaced on a given date by that
// date's windows (none: a day off). A wall-clock time that does not exist on
// a date (skipped by a DST change) is in no window; one that happens twice
// is in the window both times.
type Hours struct {
	Zone   *time.Location
	Weekly [7][]Window // indexed by time.Weekday
	Dated  map[calendar.Date][]Window
}

// Validate says what is wrong with h, naming field in the error.
func (h *Hours) Validate(field string) error {
	if h.Zone == nil {
		return calendar.Invalidf(field, "%s needs a time zone", field)
	}
	for wd, ws := range h.Weekly {
		if err := validateDay(field, time.Weekday(wd).String(), ws); err != nil {
			return err
		}
	}
	if len(h.Dated) > MaxDatedDays {
		return calendar.Invalidf(field, "%s may name at most %d dated days, got %d", field, MaxDatedDays, len(h.Dated))
	}
	for d, ws := range h.Dated {
		if err := validateDay(field, d.String(), ws); err != nil {
			return err
		}
	}
	return nil
}

// validateDay refuses a day's windows that are out of the day, empty,
// overlapping or too many (touching ones are fine: they join).
func validateDay(field, day string, ws []Window) error {
	if len(ws) > MaxWindowsPerDay {
		return calendar.Invalidf(field, "%s: %s has %d windows, at most %d", field, day, len(ws), MaxWindowsPerDay)
	}
	sorted := slices.Clone(ws)
	slices.SortFunc(sorted, func(a, b Window) int { return a.From - b.From })
	for i, w := range sorted {
		if w.From < 0 || w.To > 24*60 || w.From >= w.To {
			return calendar.Invalidf(field, "%s: on %s, a window must start before it ends, within the day (%s)", field, day, w)
		}
		if i > 0 && w.From < sorted[i-1].To {
			return calendar.Invalidf(field, "%s: on %s, windows %s and %s overlap", field, day, sorted[i-1], w)
		}
	}
	return nil
}

func (w Window) String() string {
	return fmt.Sprintf("%02d:%02d-%02d:%02d", w.From/60, w.From%60, w.To/60, w.To%60)
}

// windows returns the windows of date d.
func (h *Hours) windows(d calendar.Date) []Window {
	if ws, ok := h.Dated[d]; ok {
		return ws
	}
	return h.Weekly[d.In(time.UTC).Weekday()]
}

// intervals returns the instants within [from, to) that h counts as working,
// as sorted, merged intervals: for each date and window, within each period
// of the zone, the instants whose wall clock reads inside the window.
func (h *Hours) intervals(from, to time.Time) []calendar.Interval {
	ps := periods(h.Zone, from, to)
	var out []calendar.Interval
	for _, d := range localDates(h.Zone, from, to) {
		for _, w := range h.windows(d) {
			for _, p := range ps {
				iv := clip(calendar.Interval{Start: wall(d, w.From).Add(-p.offset), End: wall(d, w.To).Add(-p.offset)}, p.start, p.end)
				if iv.Start.Before(iv.End) {
					out = append(out, iv)
				}
			}
		}
	}
	return calendar.MergeIntervals(out)
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
