package availability

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/calgraph/calgraph/internal/calendar"
)

var newYork = zones[0]

func at(zone *time.Location, y int, m time.Month, d, h, min int) time.Time {
	return time.Date(y, m, d, h, min, 0, 0, zone).UTC()
}

// nineToFive is Monday to Friday, 9:00 to 17:00 in zone.
func nineToFive(zone *time.Location) *calendar.WorkingHours {
	h := &calendar.WorkingHours{TimeZone: zone.String()}
	for wd := time.Monday; wd <= time.Friday; wd++ {
		h.Weekly[wd] = []calendar.TimeWindow{{From: 9 * 60, To: 17 * 60}}
	}
	return h
}

func startsOf(a Answer) []string {
	var out []string
	for _, s := range a.Slots {
		out = append(out, s.Start.In(newYork).Format("Jan 2 15:04 MST"))
	}
	return out
}

// TestStartsAcrossDSTChanges: starts follow the wall clock of the request's
// zone: on the night New York springs forward, 2:00 and 2:30 do not exist
// and are not proposed; on the night it falls back, 1:00 and 1:30 happen
// twice and are proposed twice.
func TestStartsAcrossDSTChanges(t *testing.T) {
	free := []Group{{Participants: []Participant{{}}}}
	for _, c := range []struct {
		name     string
		from, to time.Time
		want     string
	}{
		{"spring forward", at(newYork, 2026, 3, 8, 0, 0), at(newYork, 2026, 3, 8, 4, 0),
			"Mar 8 00:00 EST,Mar 8 00:30 EST,Mar 8 01:00 EST,Mar 8 01:30 EST,Mar 8 03:00 EDT,Mar 8 03:30 EDT"},
		{"fall back", at(newYork, 2026, 11, 1, 0, 0), at(newYork, 2026, 11, 1, 3, 0),
			"Nov 1 00:00 EDT,Nov 1 00:30 EDT,Nov 1 01:00 EDT,Nov 1 01:30 EDT,Nov 1 01:00 EST,Nov 1 01:30 EST,Nov 1 02:00 EST,Nov 1 02:30 EST"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := Request{Groups: free, From: c.from, To: c.to, Duration: 30 * time.Minute, Step: 30 * time.Minute, Zone: newYork}
			if err := r.Validate(); err != nil {
				t.Fatal(err)
			}
			if got := strings.Join(startsOf(mustFind(t, r)), ","); got != c.want {
				t.Errorf("got  %s\nwant %s", got, c.want)
			}
		})
	}
}

// TestGroupsBuffersAndStates: a team of two who must both come, a room, and
// an optional guest: busy time with a buffer after it, an out-of-office
// morning and tentative time each show as they should, and a group of "at
// least one of two rooms" is met by either.
func TestGroupsBuffersAndStates(t *testing.T) {
	day := func(h, m int) time.Time { return at(newYork, 2026, 12, 1, h, m) } // a Tuesday
	ada := Participant{Hours: nineToFive(newYork), Marks: []Mark{{Start: day(9, 0), End: day(10, 0), State: Busy}}}
	bob := Participant{Hours: nineToFive(newYork), Marks: []Mark{{Start: day(10, 30), End: day(11, 0), State: Tentative}}}
	roomA := Participant{Marks: []Mark{{Start: day(10, 0), End: day(12, 0), State: Busy}}}
	roomB := Participant{Marks: []Mark{{Start: day(9, 0), End: day(10, 30), State: Busy}}}
	guest := Participant{Marks: []Mark{{Start: day(0, 0), End: day(10, 45), State: OutOfOffice}}}
	r := Request{
		Groups:   []Group{{Participants: []Participant{ada, bob}}, {Participants: []Participant{roomA, roomB}, AtLeast: 1}},
		Optional: []Participant{guest},
		From:     day(8, 0), To: day(12, 0), Duration: 30 * time.Minute, Step: 15 * time.Minute, Zone: newYork,
		BufferAfter: 15 * time.Minute, WorkingHours: true,
	}
	if err := r.Validate(); err != nil {
		t.Fatal(err)
	}
	got := mustFind(t, r)
	// Room B is busy until 10:30 and buffered until 10:45, room A from 10:00
	// (a buffer only after): no room before 10:45. Bob's tentative time is
	// buffered until 11:15, the optional guest's absence until 11:00, which
	// is reported and does not stop the slot.
	want := []struct {
		start  string
		states []State
	}{
		{"Dec 1 10:45 EST", []State{Free, Tentative, Busy, Free, OutOfOffice}},
		{"Dec 1 11:00 EST", []State{Free, Tentative, Busy, Free, Free}},
		{"Dec 1 11:15 EST", []State{Free, Free, Busy, Free, Free}},
		{"Dec 1 11:30 EST", []State{Free, Free, Busy, Free, Free}},
	}
	if len(got.Slots) != len(want) {
		t.Fatalf("got starts %v, want %d of them", startsOf(got), len(want))
	}
	for i, w := range want {
		s := got.Slots[i]
		if s.Start.In(newYork).Format("Jan 2 15:04 MST") != w.start || !equalStates(s.States, w.states) {
			t.Errorf("slot %d: got %s %v, want %s %v", i, s.Start.In(newYork).Format("Jan 2 15:04 MST"), s.States, w.start, w.states)
		}
	}
}

func equalStates(a, b []State) bool {
	return strings.Join(stateNames(a), ",") == strings.Join(stateNames(b), ",")
}

func stateNames(ss []State) []string {
	var out []string
	for _, s := range ss {
		out = append(out, s.String())
	}
	return out
}

// TestReasons: an empty answer says why, and who was never available.
func TestReasons(t *testing.T) {
	sat := at(newYork, 2026, 12, 5, 0, 0) // a Saturday
	worker := Participant{Hours: nineToFive(newYork)}
	busy := Participant{Marks: []Mark{{Start: sat, End: sat.Add(48 * time.Hour), State: Busy}}}
	for _, c := range []struct {
		name        string
		r           Request
		want        Reason
		unavailable []int
	}{
		{"the notice leaves no start", Request{Groups: []Group{{Participants: []Participant{{}}}}, From: sat, To: sat.Add(time.Hour),
			Now: sat, MinNotice: 2 * time.Hour}, NoStart, nil},
		{"a weekend outside working hours", Request{Groups: []Group{{Participants: []Participant{worker, {}}}}, From: sat, To: sat.Add(24 * time.Hour),
			WorkingHours: true}, NeverWorkingHours, []int{0}},
		{"busy all along", Request{Groups: []Group{{Participants: []Participant{busy, {}}}}, From: sat, To: sat.Add(24 * time.Hour)}, NeverFree, []int{0}},
	} {
		t.Run(c.name, func(t *testing.T) {
			c.r.Duration, c.r.Step, c.r.Zone = 30*time.Minute, 15*time.Minute, newYork
			if err := c.r.Validate(); err != nil {
				t.Fatal(err)
			}
			got := mustFind(t, c.r)
			if len(got.Slots) != 0 || got.Reason != c.want || !slices.Equal(got.Unavailable, c.unavailable) {
				t.Errorf("got %d slots, reason %s, unavailable %v; want none, %s, %v", len(got.Slots), got.Reason, got.Unavailable, c.want, c.unavailable)
			}
		})
	}
}

// TestBadRequests: each bad request is refused with BAD_USER_INPUT naming
// its field.
func TestBadRequests(t *testing.T) {
	from := at(newYork, 2026, 12, 1, 0, 0)
	good := func() Request {
		return Request{Groups: []Group{{Participants: []Participant{{}}}}, From: from, To: from.Add(48 * time.Hour),
			Duration: time.Hour, Step: 15 * time.Minute, Zone: newYork}
	}
	many := make([]Participant, MaxParticipants+1)
	for _, c := range []struct {
		name, field string
		change      func(r *Request)
	}{
		{"no participants", "participants", func(r *Request) { r.Groups = nil }},
		{"an empty group", "participants", func(r *Request) { r.Groups = append(r.Groups, Group{}) }},
		{"too many participants", "participants", func(r *Request) { r.Groups[0].Participants = many }},
		{"at least more than the group", "atLeast", func(r *Request) { r.Groups[0].AtLeast = 2 }},
		{"a negative at least", "atLeast", func(r *Request) { r.Groups[0].AtLeast = -1 }},
		{"a range ending before it starts", "range", func(r *Request) { r.To = r.From }},
		{"a range too long", "range", func(r *Request) { r.To = r.From.Add(MaxRange + time.Minute) }},
		{"a duration longer than the range", "duration", func(r *Request) { r.Duration = 24 * time.Hour; r.To = r.From.Add(23 * time.Hour) }},
		{"a duration of seconds", "duration", func(r *Request) { r.Duration = 90 * time.Second }},
		{"a zero duration", "duration", func(r *Request) { r.Duration = 0 }},
		{"a step that does not divide a day", "step", func(r *Request) { r.Step = 7 * time.Minute }},
		{"a step too small", "step", func(r *Request) { r.Step = time.Minute }},
		{"a negative buffer", "buffer", func(r *Request) { r.BufferBefore = -time.Minute }},
		{"a negative notice", "minimumNotice", func(r *Request) { r.MinNotice = -time.Minute }},
		{"overlapping windows", "workingHours", func(r *Request) {
			h := nineToFive(newYork)
			h.Weekly[time.Monday] = []calendar.TimeWindow{{From: 9 * 60, To: 12 * 60}, {From: 11 * 60, To: 17 * 60}}
			r.Groups[0].Participants[0].Hours = h
		}},
		{"a window past midnight", "workingHours", func(r *Request) {
			h := nineToFive(newYork)
			h.Dated = map[calendar.Date][]calendar.TimeWindow{{Year: 2026, Month: 12, Day: 24}: {{From: 22 * 60, To: 26 * 60}}}
			r.Groups[0].Participants[0].Hours = h
		}},
		{"hours without a zone", "workingHours.timeZone", func(r *Request) { r.Groups[0].Participants[0].Hours = &calendar.WorkingHours{} }},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := good()
			c.change(&r)
			err := r.Validate()
			var e *calendar.Error
			if err == nil || calendar.ErrorCode(err) != calendar.CodeInvalid {
				t.Fatalf("got %v, want BAD_USER_INPUT", err)
			}
			if e, _ = err.(*calendar.Error); e.Field != c.field {
				t.Errorf("got field %q (%v), want %q", e.Field, err, c.field)
			}
		})
	}
	if err := good().Validate(); err != nil {
		t.Fatalf("the good request is refused: %v", err)
	}
}

// BenchmarkFind: ten people in two zones with working hours, 40 busy
// entries each, over two weeks in 15-minute steps (1,344 starts).
func BenchmarkFind(b *testing.B) {
	from := at(newYork, 2026, 12, 1, 0, 0)
	london := zones[1]
	var g Group
	for i := range 10 {
		zone := newYork
		if i%2 == 1 {
			zone = london
		}
		p := Participant{Hours: nineToFive(zone)}
		for k := range 40 {
			start := from.Add(time.Duration(k*8+i) * time.Hour)
			p.Marks = append(p.Marks, Mark{Start: start, End: start.Add(time.Hour), State: Busy})
		}
		g.Participants = append(g.Participants, p)
	}
	g.AtLeast = 7
	r := Request{Groups: []Group{g}, From: from, To: from.Add(14 * 24 * time.Hour), Duration: time.Hour,
		Step: 15 * time.Minute, Zone: newYork, BufferAfter: 10 * time.Minute, WorkingHours: true}
	if err := r.Validate(); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Find(r); err != nil {
			b.Fatal(err)
		}
	}
}

func mustFind(t *testing.T, r Request) Answer {
	t.Helper()
	a, err := Find(r)
	if err != nil {
		t.Fatal(err)
	}
	return a
}
