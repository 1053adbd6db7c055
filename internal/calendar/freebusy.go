package calendar

import (
	"slices"
	"time"
)

// Interval is a stretch of time, [Start, End).
type Interval struct {
	Start, End time.Time
}

// Busy returns when entries make a calendar busy within r: the intervals of
// its entries and occurrences as seen in r's zone, clipped to r and merged
// where they overlap or touch. Tasks and cancelled occurrences do not count.
func Busy(entries []*Entry, r Range) []Interval {
	var out []Interval
	for _, e := range entries {
		if e.Kind == KindTask || e.Cancelled || !e.Overlaps(r.Start, r.End, r.Zone) {
			continue
		}
		start, end := e.Interval(r.Zone)
		if start.Before(r.Start) {
			start = r.Start
		}
		if end.After(r.End) {
			end = r.End
		}
		out = append(out, Interval{Start: start.UTC(), End: end.UTC()})
	}
	return MergeIntervals(out)
}

// MergeIntervals sorts ivs by start and joins those that overlap or touch,
// in place.
func MergeIntervals(ivs []Interval) []Interval {
	slices.SortFunc(ivs, func(a, b Interval) int { return a.Start.Compare(b.Start) })
	merged := ivs[:0]
	for _, iv := range ivs {
		if n := len(merged); n > 0 && !iv.Start.After(merged[n-1].End) {
			if iv.End.After(merged[n-1].End) {
				merged[n-1].End = iv.End
			}
			continue
		}
		merged = append(merged, iv)
	}
	return merged
}
