package graph_test

import (
	"strings"
	"testing"
	"time"
)

// ftOracle reckons findTimes' answer minute by minute, from what each
// participant's owner reads of their calendar and from their working hours
// as set: independent of internal/availability.
type ftOracle struct {
	from, to           time.Time
	zone               *time.Location
	step               int
	dur, before, after time.Duration
	respect            bool
	people             []ftTimeline
	lo                 time.Time // the first minute of the timelines
}

// ftTimeline is one participant minute by minute from the oracle's lo:
// how busy (0 free, 1 tentative, 2 busy, 3 out of office) and whether
// working.
type ftTimeline struct {
	level   []int
	working []bool
}

type ftGroup struct{ lo, hi, need int }

var ftLevels = map[string]int{"TENTATIVE": 1, "BUSY": 2, "OUT_OF_OFFICE": 3}

// timeline reads p's calendar whole around the range, as its owner, dates in
// the request's zone (freeBusy's and findTimes' reading of all-day entries).
func (o *ftOracle) timeline(t *testing.T, e *env, p *ftPerson) ftTimeline {
	o.lo = o.from.Add(-36 * time.Hour)
	hi := o.to.Add(36 * time.Hour)
	n := int(hi.Sub(o.lo) / time.Minute)
	tl := ftTimeline{level: make([]int, n), working: make([]bool, n)}
	d := e.must(p.token, `query($c: ID!, $s: DateTime!, $e: DateTime!, $z: String!) { calendar(id: $c) {
		entries(range: {instants: {start: $s, end: $e}}, timeZone: $z) { entries { transparency
		... on TimedEntry { start end } ... on AllDayEntry { date } ... on MultiDayEntry { startDate endDate } } } } }`,
		map[string]any{"c": p.calID, "s": o.lo.UTC().Format(time.RFC3339), "e": hi.UTC().Format(time.RFC3339), "z": o.zone.String()})
	for _, en := range get(d, "calendar.entries.entries").([]any) {
		lv := ftLevels[str(en, "transparency")]
		if lv == 0 {
			continue
		}
		var s, f time.Time
		switch {
		case str(en, "start") != "":
			s, _ = time.Parse(time.RFC3339, str(en, "start"))
			f, _ = time.Parse(time.RFC3339, str(en, "end"))
		case str(en, "date") != "":
			s = ftMidnight(str(en, "date"), o.zone)
			f = ftMidnight(str(en, "date"), o.zone).AddDate(0, 0, 1)
			f = time.Date(f.Year(), f.Month(), f.Day(), 0, 0, 0, 0, o.zone)
		default:
			s, f = ftMidnight(str(en, "startDate"), o.zone), ftMidnight(str(en, "endDate"), o.zone)
		}
		for m := s; m.Before(f); m = m.Add(time.Minute) {
			if i := int(m.Sub(o.lo) / time.Minute); i >= 0 && i < n {
				tl.level[i] = max(tl.level[i], lv)
			}
		}
	}
	for i := range n {
		tl.working[i] = !p.hasHours || p.works(o.lo.Add(time.Duration(i)*time.Minute))
	}
	return tl
}

func ftMidnight(date string, zone *time.Location) time.Time {
	d, _ := time.Parse(time.DateOnly, date)
	return time.Date(d.Year(), d.Month(), d.Day(), 0, 0, 0, 0, zone)
}

// works says whether the instant's wall clock in p's zone is in one of the
// windows of its date.
func (p *ftPerson) works(at time.Time) bool {
	local := at.In(p.zone)
	ws, ok := p.dated[local.Format(time.DateOnly)]
	if !ok {
		ws = p.weekly[local.Weekday()]
	}
	m := local.Hour()*60 + local.Minute()
	for _, w := range ws {
		if w[0] <= m && m < w[1] {
			return true
		}
	}
	return false
}

// state is a participant's state for a meeting at s: the highest level
// within the meeting widened by the buffers, else outside working hours if
// any minute of the meeting is, else tentative or free.
func (o *ftOracle) state(tl ftTimeline, s time.Time) string {
	top, outside := 0, false
	for m := s.Add(-o.after); m.Before(s.Add(o.dur + o.before)); m = m.Add(time.Minute) {
		top = max(top, tl.level[int(m.Sub(o.lo)/time.Minute)])
	}
	for m := s; m.Before(s.Add(o.dur)); m = m.Add(time.Minute) {
		outside = outside || !tl.working[int(m.Sub(o.lo)/time.Minute)]
	}
	switch {
	case top == 3:
		return "OUT_OF_OFFICE"
	case top == 2:
		return "BUSY"
	case outside:
		return "OUTSIDE_WORKING_HOURS"
	case top == 1:
		return "TENTATIVE"
	}
	return "FREE"
}

// slots lists every start, minute by minute, whose wall clock in the zone
// is a multiple of the step, at which each group has enough available.
func (o *ftOracle) slots(groups []ftGroup) []string {
	var out []string
	for s := o.from; !s.Add(o.dur).After(o.to); s = s.Add(time.Minute) {
		wall := s.In(o.zone)
		if (wall.Hour()*60+wall.Minute())%o.step != 0 {
			continue
		}
		states := make([]string, len(o.people))
		for i, tl := range o.people {
			states[i] = o.state(tl, s)
		}
		ok := true
		for _, g := range groups {
			n := 0
			for _, st := range states[g.lo:g.hi] {
				if st == "FREE" || st == "TENTATIVE" || (st == "OUTSIDE_WORKING_HOURS" && !o.respect) {
					n++
				}
			}
			ok = ok && n >= g.need
		}
		if ok {
			out = append(out, s.UTC().Format(time.RFC3339)+" "+strings.Join(states, ","))
		}
	}
	return out
}
