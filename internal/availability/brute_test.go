package availability

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/calgraph/calgraph/internal/calendar"
)

// bruteFind answers r the slow, obvious way, written apart from Find: it
// tries every minute of the range as a start, reads that minute on the wall
// clock of r.Zone for the step, and checks each minute of a proposed meeting
// against each participant's hours on their own wall clock. It knows
// nothing of periods, cursors or merged intervals.
func bruteFind(r Request) Answer {
	everyone := r.participants()
	d := int(r.Duration / time.Minute)
	step := int(r.Step / time.Minute)
	var ans Answer
	starts, working := 0, 0
	seen := make([]bool, len(everyone))
	for m := r.From; !m.Add(r.Duration).After(r.To); m = m.Add(time.Minute) {
		if m.Before(r.Now.Add(r.MinNotice)) {
			continue
		}
		if l := m.In(r.Zone); l.Second() != 0 || (l.Hour()*60+l.Minute())%step != 0 {
			continue
		}
		starts++
		states := make([]State, len(everyone))
		inHours := make([]bool, len(everyone))
		for i, p := range everyone {
			inHours[i] = true
			if p.Hours != nil {
				for k := range d {
					if !bruteWorking(p.Hours, m.Add(time.Duration(k)*time.Minute)) {
						inHours[i] = false
						break
					}
				}
			}
			worst := Free
			if !inHours[i] {
				worst = OutsideWorkingHours
			}
			for _, mk := range p.Marks {
				s, e := mk.Start.Add(-r.BufferBefore), mk.End.Add(r.BufferAfter)
				if s.Before(m.Add(r.Duration)) && e.After(m) && s.Before(e) {
					if mk.State == Tentative && worst == OutsideWorkingHours {
						continue // outside working hours ranks above tentative
					}
					worst = max(worst, mk.State)
				}
			}
			states[i] = worst
			if bruteAvailable(r, worst) {
				seen[i] = true
			}
		}
		if !r.WorkingHours || bruteGroupsHold(r, func(i int) bool { return inHours[i] }) {
			working++
		}
		if bruteGroupsHold(r, func(i int) bool { return bruteAvailable(r, states[i]) }) {
			ans.Slots = append(ans.Slots, Slot{Start: m, End: m.Add(r.Duration), States: states})
		}
	}
	if len(ans.Slots) > 0 {
		return ans
	}
	switch {
	case starts == 0:
		ans.Reason = NoStart
		return ans
	case working == 0:
		ans.Reason = NeverWorkingHours
	default:
		ans.Reason = NeverFree
	}
	for i, ok := range seen {
		if !ok {
			ans.Unavailable = append(ans.Unavailable, i)
		}
	}
	return ans
}

// bruteWorking says whether instant u lies in a window of its own date on
// the wall clock of h's zone.
func bruteWorking(h *calendar.WorkingHours, u time.Time) bool {
	l := u.In(zoneNamed[h.TimeZone])
	ws, ok := h.Dated[calendar.DateOf(l)]
	if !ok {
		ws = h.Weekly[l.Weekday()]
	}
	minute := l.Hour()*60 + l.Minute()
	for _, w := range ws {
		if w.From <= minute && minute < w.To {
			return true
		}
	}
	return false
}

func bruteAvailable(r Request, s State) bool {
	switch s {
	case Free, Tentative:
		return true
	case OutsideWorkingHours:
		return !r.WorkingHours
	}
	return false
}

func bruteGroupsHold(r Request, ok func(i int) bool) bool {
	i := 0
	for _, g := range r.Groups {
		n := 0
		for range g.Participants {
			if ok(i) {
				n++
			}
			i++
		}
		if (g.AtLeast == 0 && n < len(g.Participants)) || n < g.AtLeast {
			return false
		}
	}
	return true
}

// zones have DST changes of an hour (New York, London), of half an hour
// (Lord Howe), none with odd offsets (Kolkata +5:30, Kathmandu +5:45), and
// none at all (UTC).
var zones = func() []*time.Location {
	var out []*time.Location
	for _, name := range []string{"America/New_York", "Europe/London", "Australia/Lord_Howe", "Asia/Kolkata", "Asia/Kathmandu", "UTC"} {
		loc, err := time.LoadLocation(name)
		if err != nil {
			panic(err)
		}
		out = append(out, loc)
	}
	return out
}()

// zoneNamed finds the zones above by name.
var zoneNamed = func() map[string]*time.Location {
	out := map[string]*time.Location{}
	for _, z := range zones {
		out[z.String()] = z
	}
	return out
}()

// dstDays are days around which the zones above change their clocks in 2026.
var dstDays = []time.Time{
	time.Date(2026, 3, 7, 0, 0, 0, 0, time.UTC),   // New York springs forward on the 8th
	time.Date(2026, 3, 28, 0, 0, 0, 0, time.UTC),  // London on the 29th
	time.Date(2026, 4, 4, 0, 0, 0, 0, time.UTC),   // Lord Howe falls back half an hour on the 5th
	time.Date(2026, 10, 3, 0, 0, 0, 0, time.UTC),  // Lord Howe springs forward on the 4th
	time.Date(2026, 10, 24, 0, 0, 0, 0, time.UTC), // London falls back on the 25th
	time.Date(2026, 10, 31, 0, 0, 0, 0, time.UTC), // New York on 1 November
}

// randomRequest makes a request whose answer is often neither empty nor
// everything: a few participants with busy time, hours and overrides, in
// several zones, over a few days around a DST change.
func randomRequest(rnd *rand.Rand) Request {
	pick := func(xs ...int) int { return xs[rnd.IntN(len(xs))] }
	minutes := func(n int) time.Duration { return time.Duration(n) * time.Minute }
	from := dstDays[rnd.IntN(len(dstDays))].Add(minutes(rnd.IntN(48*60)) - 24*time.Hour)
	length := minutes(60 + rnd.IntN(4*24*60))
	r := Request{
		From: from, To: from.Add(length),
		Duration:     minutes(pick(15, 30, 45, 60, 90, 120, 240)),
		Step:         minutes(pick(5, 10, 15, 20, 30, 60, 90)),
		Zone:         zones[rnd.IntN(len(zones))],
		BufferBefore: minutes(pick(0, 0, 5, 10, 15, 30)),
		BufferAfter:  minutes(pick(0, 0, 5, 10, 15, 30)),
		Now:          from.Add(minutes(rnd.IntN(24*60) - 12*60)),
		MinNotice:    minutes(pick(0, 0, 30, 120, 24*60)),
		WorkingHours: rnd.IntN(3) > 0,
	}
	if r.Duration > length {
		r.Duration = minutes(15)
	}
	person := func() Participant {
		var p Participant
		for range rnd.IntN(10) {
			start := from.Add(minutes(rnd.IntN(int(length/time.Minute)+6*60) - 3*60))
			long := minutes(pick(15, 30, 60, 60, 90, 180, 24*60, 3*24*60))
			p.Marks = append(p.Marks, Mark{Start: start, End: start.Add(long), State: State(pick(1, 3, 3, 3, 4))})
		}
		if rnd.IntN(4) > 0 {
			p.Hours = randomHours(rnd)
		}
		return p
	}
	for range 1 + rnd.IntN(3) {
		var g Group
		for range 1 + rnd.IntN(3) {
			g.Participants = append(g.Participants, person())
		}
		g.AtLeast = rnd.IntN(len(g.Participants) + 1)
		r.Groups = append(r.Groups, g)
	}
	for range rnd.IntN(3) {
		r.Optional = append(r.Optional, person())
	}
	return r
}

// randomHours makes valid hours: per weekday up to three windows, some
// touching, some at midnight, some around the small hours a DST change
// skips or repeats; and a few dated days (off, or other windows).
func randomHours(rnd *rand.Rand) *calendar.WorkingHours {
	day := func() []calendar.TimeWindow {
		var ws []calendar.TimeWindow
		at := 0
		for range rnd.IntN(4) {
			from := at + []int{0, 0, 30, 60, 7 * 60, 9 * 60}[rnd.IntN(6)]
			to := from + []int{30, 60, 90, 120, 8 * 60}[rnd.IntN(5)]
			if to > 24*60 {
				if from >= 24*60 {
					break
				}
				to = 24 * 60
			}
			ws = append(ws, calendar.TimeWindow{From: from, To: to})
			at = to
		}
		return ws
	}
	h := &calendar.WorkingHours{TimeZone: zones[rnd.IntN(len(zones))].String(), Dated: map[calendar.Date][]calendar.TimeWindow{}}
	for wd := range h.Weekly {
		h.Weekly[wd] = day()
	}
	for range rnd.IntN(3) {
		d := calendar.DateOf(dstDays[rnd.IntN(len(dstDays))]).AddDays(rnd.IntN(4))
		h.Dated[d] = day()
	}
	return h
}

// TestFindAgreesWithBruteForce: over 400 seeded random requests (several
// zones with DST changes of an hour and of half an hour and odd offsets,
// hours with dated overrides, long and multi-day busy time, buffers,
// notice, groups of "at least N"), Find's answer equals the brute force's,
// slot by slot and state by state, and so do its reasons when there is
// none. The cases must include answers with slots and each reason.
func TestFindAgreesWithBruteForce(t *testing.T) {
	cases := 400
	if testing.Short() {
		cases = 150
	}
	outcomes := map[string]int{}
	for seed := range cases {
		rnd := rand.New(rand.NewPCG(uint64(seed), 25))
		r := randomRequest(rnd)
		if err := r.Validate(); err != nil {
			t.Fatalf("seed %d: the generator made an invalid request: %v", seed, err)
		}
		got, want := mustFind(t, r), bruteFind(r)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("seed %d (%s, %v from %s, step %v): Find differs from the brute force\n%s", seed, r.Zone, r.Duration, r.From, r.Step, diff(got, want))
		}
		key := want.Reason.String()
		if len(want.Slots) > 0 {
			key = "slots"
		}
		outcomes[key]++
	}
	for _, k := range []string{"slots", "NO_START", "NEVER_WORKING_HOURS", "NEVER_FREE"} {
		if outcomes[k] == 0 {
			t.Errorf("no case ended with %s (%v): the generator tests too little", k, outcomes)
		}
	}
	t.Logf("outcomes: %v", outcomes)
}

// diff describes the first difference between two answers.
func diff(got, want Answer) string {
	if got.Reason != want.Reason || !slices.Equal(got.Unavailable, want.Unavailable) {
		return fmt.Sprintf("got reason %s, unavailable %v; want %s, %v", got.Reason, got.Unavailable, want.Reason, want.Unavailable)
	}
	for i := range min(len(got.Slots), len(want.Slots)) {
		if !reflect.DeepEqual(got.Slots[i], want.Slots[i]) {
			return fmt.Sprintf("slot %d: got %v, want %v", i, got.Slots[i], want.Slots[i])
		}
	}
	return fmt.Sprintf("got %d slots, want %d", len(got.Slots), len(want.Slots))
}
