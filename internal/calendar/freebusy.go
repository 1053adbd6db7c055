package calendar

import (
	"slices"
	"time"
)

// Interval is a stretch of time, [Start, End).
type Interval struct {
	Start, End time.Time
}

// Busy returns when entries make a calendar busy within r, and how: the
// intervals of its entries and occurrences as seen in r's zone, clipped to r,
// each as busy as the entries there make it (OUT_OF_OFFICE over BUSY over
// TENTATIVE, Entry.Transparency), adjacent stretches of one status joined. FREE
// entries, tasks and cancelled occurrences do not count.
func Busy(entries []*Entry, r Range) []BusyInterval {
	var marks []BusyInterval
	for _, e := range entries {
		if e.Kind == KindTask || e.Cancelled || e.Transparency() == TransparencyFree || !e.Overlaps(r.Start, r.End, r.Zone) {
			continue
		}
		start, end := e.Interval(r.Zone)
		if start.Before(r.Start) {
			start = r.Start
		}
		if end.After(r.End) {
			end = r.End
		}
		marks = append(marks, BusyInterval{Interval: Interval{Start: start.UTC(), End: end.UTC()}, Status: e.Transparency()})
	}
	return statusTimeline(marks)
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
