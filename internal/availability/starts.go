package availability

import (
	"iter"
	"time"

	"github.com/calgraph/calgraph/internal/calendar"
)

// starts yields, in order, every start of a meeting r may propose: within
// [From, To − Duration], not before Now + MinNotice, at a whole minute of
// Zone's wall clock that is a multiple of Step after its midnight. Within a
// period of constant offset those are the instants t with (t + offset) a
// multiple of Step, so none is skipped or repeated across a DST change: a
// wall-clock time the change skips proposes nothing, one it repeats
// proposes both instants.
func (r Request) starts() iter.Seq[time.Time] {
	lo := r.From
	if notice := r.Now.Add(r.MinNotice); notice.After(lo) {
		lo = notice
	}
	last := r.To.Add(-r.Duration) // inclusive
	return func(yield func(time.Time) bool) {
		if last.Before(lo) {
			return
		}
		for _, p := range periods(r.Zone, lo, last.Add(time.Nanosecond)) {
			// the first t ≥ p.start with t + offset on the step's grid
			local := p.start.Add(p.offset)
			t := local.Truncate(r.Step).Add(-p.offset).UTC() // Truncate works on absolute time: UTC-midnight-aligned, as Step divides a day
			if t.Before(p.start) {
				t = t.Add(r.Step)
			}
			for ; t.Before(p.end); t = t.Add(r.Step) {
				if !yield(t) {
					return
				}
			}
		}
	}
}

// tracker answers, for one participant and meetings proposed in order of
// start, their state and whether the meeting lies within their hours. It
// keeps one cursor per list of intervals, which only moves forward.
type tracker struct {
	marks [3]cursor // Tentative, Busy, OutOfOffice, widened by the buffers
	hours *cursor   // nil: always within hours
}

func newTracker(p Participant, from, to time.Time, before, after time.Duration) (tracker, error) {
	var byState [3][]calendar.Interval
	for _, m := range p.Marks {
		iv := calendar.Interval{Start: m.Start.Add(-before), End: m.End.Add(after)}
		if !iv.Start.Before(iv.End) {
			continue
		}
		k := map[State]int{Tentative: 0, Busy: 1, OutOfOffice: 2}[m.State]
		byState[k] = append(byState[k], iv)
	}
	var t tracker
	for k := range byState {
		t.marks[k] = cursor{ivs: calendar.MergeIntervals(byState[k])}
	}
	if p.Hours != nil {
		ivs, err := WorkingIntervals(p.Hours, from, to)
		if err != nil {
			return t, err
		}
		t.hours = &cursor{ivs: ivs}
	}
	return t, nil
}

// state returns the participant's state in [start, end) and whether it lies
// within their hours. Calls must come in order of start.
func (t *tracker) state(start, end time.Time) (State, bool) {
	in := t.hours == nil || t.hours.covers(start, end)
	switch {
	case t.marks[2].overlaps(start, end):
		return OutOfOffice, in
	case t.marks[1].overlaps(start, end):
		return Busy, in
	case !in:
		return OutsideWorkingHours, in
	case t.marks[0].overlaps(start, end):
		return Tentative, in
	}
	return Free, in
}

// cursor walks sorted, merged intervals along increasing starts.
type cursor struct {
	ivs []calendar.Interval
	i   int // the first interval that ends after the last start asked
}

func (c *cursor) advance(start time.Time) {
	for c.i < len(c.ivs) && !c.ivs[c.i].End.After(start) {
		c.i++
	}
}

// overlaps says whether some interval meets [start, end).
func (c *cursor) overlaps(start, end time.Time) bool {
	c.advance(start)
	return c.i < len(c.ivs) && c.ivs[c.i].Start.Before(end)
}

// covers says whether one interval holds all of [start, end).
func (c *cursor) covers(start, end time.Time) bool {
	c.advance(start)
	return c.i < len(c.ivs) && !c.ivs[c.i].Start.After(start) && !c.ivs[c.i].End.Before(end)
}
