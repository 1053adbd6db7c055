package calendar

import (
	"context"
	"fmt"
	"slices"
	"time"
)

// TimeWindow is a stretch of a day on the wall clock, in minutes after
// midnight: [From, To), 0 ≤ From < To ≤ 1440. A night shift is two
// windows, one ending at 1440 and one starting at 0 the next day; they join.
type TimeWindow struct {
	From, To int
}

func (w TimeWindow) String() string {
	return fmt.Sprintf("%02d:%02d-%02d:%02d", w.From/60, w.From%60, w.To/60, w.To%60)
}

// Limits of working hours, so that one person's stay a small item.
const (
	MaxWindowsPerDay = 8
	MaxDatedDays     = 100
)

// WorkingHours are when someone works, on the wall clock of their own zone:
// windows per weekday, replaced on a given date by that date's windows
// (none: a day off). A wall-clock time that does not exist on a date
// (skipped by a DST change) is in no window; one that happens twice is in
// the window both times. Hours are a user's own: kept beside their
// preferences and changed with them (the user's version).
type WorkingHours struct {
	TimeZone string
	Weekly   [7][]TimeWindow // indexed by time.Weekday
	Dated    map[Date][]TimeWindow
}

// WindowsOn returns the windows of date d.
func (h *WorkingHours) WindowsOn(d Date) []TimeWindow {
	if ws, ok := h.Dated[d]; ok {
		return ws
	}
	return h.Weekly[d.In(time.UTC).Weekday()]
}

// Validate says what is wrong with h, naming field in the error: a zone
// that is not one, a window out of its day, empty or overlapping another
// (touching is fine), too many windows in a day or too many dated days.
func (h *WorkingHours) Validate(field string) error {
	if err := ValidateTimeZone(field+".timeZone", h.TimeZone); err != nil {
		return err
	}
	for wd, ws := range h.Weekly {
		if err := validateDay(field, time.Weekday(wd).String(), ws); err != nil {
			return err
		}
	}
	if len(h.Dated) > MaxDatedDays {
		return Invalidf(field, "%s may name at most %d dated days, got %d", field, MaxDatedDays, len(h.Dated))
	}
	for d, ws := range h.Dated {
		if err := validateDay(field, d.String(), ws); err != nil {
			return err
		}
	}
	return nil
}

// validateDay refuses a day's windows that are out of the day, empty,
// overlapping or too many.
func validateDay(field, day string, ws []TimeWindow) error {
	if len(ws) > MaxWindowsPerDay {
		return Invalidf(field, "%s: %s has %d windows, at most %d", field, day, len(ws), MaxWindowsPerDay)
	}
	sorted := slices.Clone(ws)
	slices.SortFunc(sorted, func(a, b TimeWindow) int { return a.From - b.From })
	for i, w := range sorted {
		if w.From < 0 || w.To > 24*60 || w.From >= w.To {
			return Invalidf(field, "%s: on %s, a window must start before it ends, within the day (%s)", field, day, w)
		}
		if i > 0 && w.From < sorted[i-1].To {
			return Invalidf(field, "%s: on %s, windows %s and %s overlap", field, day, sorted[i-1], w)
		}
	}
	return nil
}

// Normalized returns h with each day's windows sorted and the dated days
// before yesterday (in h's zone, at now) left out: they can no longer
// matter, and keeping them would let the item grow with time.
func (h WorkingHours) Normalized(now time.Time) WorkingHours {
	out := WorkingHours{TimeZone: h.TimeZone}
	sortDay := func(ws []TimeWindow) []TimeWindow {
		ws = slices.Clone(ws)
		slices.SortFunc(ws, func(a, b TimeWindow) int { return a.From - b.From })
		return ws
	}
	for wd, ws := range h.Weekly {
		out.Weekly[wd] = sortDay(ws)
	}
	zone, err := LoadLocation(h.TimeZone)
	if err != nil {
		zone = time.UTC
	}
	yesterday := DateOf(now.In(zone)).AddDays(-1)
	for d, ws := range h.Dated {
		if d.Before(yesterday) {
			continue
		}
		if out.Dated == nil {
			out.Dated = map[Date][]TimeWindow{}
		}
		out.Dated[d] = sortDay(ws)
	}
	return out
}

// OpeningHoursService sets a resource calendar's opening hours: the same
// value as a user's working hours, acting as the calendar's working hours
// when findTimes counts it.
type OpeningHoursService interface {
	// SetOpeningHours replaces the opening hours of a resource calendar
	// (nil removes them). Errors: CodeNotFound, CodeForbidden (not an
	// owner), CodeInvalid (not a resource calendar, bad hours).
	SetOpeningHours(ctx context.Context, calendarID string, h *WorkingHours) (*Calendar, error)
}
