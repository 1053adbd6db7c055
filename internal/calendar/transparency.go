package calendar

import (
	"slices"
	"time"
)

// Transparency is how an entry counts in free/busy time: BUSY blocks it,
// FREE does not (a birthday, a reminder to self), TENTATIVE blocks it
// tentatively, OUT_OF_OFFICE says its attendee is away.
type Transparency string

// The transparencies, in increasing precedence where they overlap (an
// absence over busy time over tentative time).
const (
	TransparencyFree        Transparency = "FREE"
	TransparencyTentative   Transparency = "TENTATIVE"
	TransparencyBusy        Transparency = "BUSY"
	TransparencyOutOfOffice Transparency = "OUT_OF_OFFICE"
)

var transparencies = []Transparency{TransparencyFree, TransparencyTentative, TransparencyBusy, TransparencyOutOfOffice}

// ValidateTransparency refuses a value that is not one of the four ("" is
// "the default for its kind" and is fine).
func ValidateTransparency(field string, t Transparency) error {
	if t != "" && !slices.Contains(transparencies, t) {
		return Invalidf(field, "%s must be BUSY, FREE, TENTATIVE or OUT_OF_OFFICE", field)
	}
	return nil
}

// Transparency returns how e counts in free/busy time: as set
// (TransparencySet), else
// its kind's default: a timed entry is BUSY, a whole-day or multi-day one
// FREE (a birthday or a trip on a calendar should not block the days; mark
// a conference BUSY), and a task never blocks anything (FREE).
func (e *Entry) Transparency() Transparency {
	if e.TransparencySet != "" {
		return e.TransparencySet
	}
	if e.Kind == KindTimed {
		return TransparencyBusy
	}
	return TransparencyFree
}

// rank orders transparencies by precedence.
func (t Transparency) rank() int { return slices.Index(transparencies, t) }

// BusyInterval is a stretch of time and how busy it is (BUSY, TENTATIVE or
// OUT_OF_OFFICE).
type BusyInterval struct {
	Interval
	Status Transparency
}

// MergeBusy joins the busy intervals of several calendars into one
// timeline, as Busy joins entries': where they overlap, out of office wins
// over busy and busy over tentative; adjacent stretches of one status join.
func MergeBusy(lists ...[]BusyInterval) []BusyInterval {
	var marks []BusyInterval
	for _, l := range lists {
		marks = append(marks, l...)
	}
	return statusTimeline(marks)
}

// statusTimeline returns, for marks of several statuses, the stretches of
// each status that wins there (the highest rank), in order, adjacent
// stretches of one status joined.
func statusTimeline(marks []BusyInterval) []BusyInterval {
	type edge struct {
		at    time.Time
		rank  int
		delta int
	}
	var edges []edge
	for _, m := range marks {
		if m.Start.Before(m.End) {
			edges = append(edges, edge{m.Start, m.Status.rank(), 1}, edge{m.End, m.Status.rank(), -1})
		}
	}
	slices.SortFunc(edges, func(a, b edge) int { return a.at.Compare(b.at) })
	open := make([]int, len(transparencies))
	var out []BusyInterval
	for i := 0; i < len(edges); {
		at := edges[i].at
		for ; i < len(edges) && edges[i].at.Equal(at); i++ {
			open[edges[i].rank] += edges[i].delta
		}
		top := -1
		for r := len(open) - 1; r > 0; r-- { // rank 0, FREE, never opens
			if open[r] > 0 {
				top = r
				break
			}
		}
		if n := len(out); n > 0 && out[n-1].End.IsZero() {
			if top >= 0 && transparencies[top] == out[n-1].Status {
				continue
			}
			out[n-1].End = at
		}
		if top >= 0 {
			out = append(out, BusyInterval{Interval: Interval{Start: at}, Status: transparencies[top]})
		}
	}
	return out
}
