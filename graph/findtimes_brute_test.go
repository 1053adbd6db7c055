package graph_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/calgraph/calgraph/internal/dynamotest"
)

// ftZones are the participants' and the requests' zones: three, two of
// which change to and from DST on different dates (and one never does).
var ftZones = []string{"Europe/Paris", "America/New_York", "Asia/Kolkata"}

// ftStarts are the first days of the ranges: weeks holding DST changes of
// New York (March 14, November 7 2027) and Paris (March 28, October 31).
var ftStarts = []string{"2027-03-11", "2027-03-25", "2027-10-28", "2027-11-04", "2027-06-14"}

// ftPerson is a test participant: a user with a calendar the viewer reads at
// FREE_BUSY, their zone and working hours as set.
type ftPerson struct {
	email, token, calID string
	zone                *time.Location
	weekly              [7][][2]int // minutes, by time.Weekday
	dated               map[string][][2]int
	hasHours            bool
	room                bool // a resource calendar: its hours are opening hours
}

// TestFindTimesBruteForce: for many seeded cases (series across DST
// changes with moved and cancelled occurrences, participants in three
// zones, all-day and multi-day entries, working hours with dated
// overrides, buffers, every transparency, groups of ALL and AT_LEAST, a
// calendar participant: a room with opening hours), made through the API, findTimes answers exactly
// what a minute-by-minute reckoning from a full read of every participant's
// entries (as their owner reads them) and working hours answers. The
// viewer is a FREE_BUSY member only, and no title reaches the answer.
func TestFindTimesBruteForce(t *testing.T) {
	cases := 200
	if os.Getenv(dynamotest.EnvEndpoint) != "" {
		cases = 12
	}
	if testing.Short() {
		cases = 20
	}
	e := newEnv(t)
	for c := range cases {
		ftCase(t, e, c)
	}
	e.consistent() // opening hours and working hours items included
}

func ftCase(t *testing.T, e *env, c int) {
	rng := rand.New(rand.NewPCG(uint64(c), 26))
	viewer := e.token(fmt.Sprintf("ftv%d@example.com", c))
	e.must(viewer, `{ viewer { user { id } } }`, nil)
	day0, _ := time.Parse(time.DateOnly, ftStarts[rng.IntN(len(ftStarts))])
	days := 2 + rng.IntN(5)
	people := make([]*ftPerson, 3+rng.IntN(2))
	for i := range people {
		p := &ftPerson{email: fmt.Sprintf("ft%d-%d@example.com", c, i), dated: map[string][][2]int{}}
		p.token = e.token(p.email)
		name := ftZones[(i+c)%3]
		p.zone, _ = time.LoadLocation(name)
		p.room = i == len(people)-1 // asked as a calendar: a resource with opening hours
		p.calID = str(e.must(p.token, `mutation($z: String!, $r: Boolean!) { createCalendar(input: {name: "Secret cal", timeZone: $z, isResource: $r}) { calendar { id } } }`,
			map[string]any{"z": name, "r": p.room}), "createCalendar.calendar.id")
		e.must(p.token, `mutation($c: ID!, $e: String!) { addMember(input: {calendarId: $c, email: $e, role: FREE_BUSY}) { membership { id } } }`,
			map[string]any{"c": p.calID, "e": emailOf(viewer)})
		if rng.IntN(4) > 0 {
			ftSetHours(e, rng, p, name, day0, days)
		}
		for range 2 + rng.IntN(4) {
			ftEntry(e, rng, p, day0, days)
		}
		people[i] = p
	}
	// The last person is asked as a calendar (a room), the others by email.
	zone := ftZones[rng.IntN(3)]
	duration := []int{15, 30, 45, 60, 90}[rng.IntN(5)]
	step := []int{15, 30, 60, 20}[rng.IntN(4)]
	before, after := []int{0, 0, 10, 15}[rng.IntN(4)], []int{0, 0, 5, 30}[rng.IntN(4)]
	respect := rng.IntN(3) > 0
	users := []any{people[0].email, people[1].email}
	g2users := []any{}
	for _, p := range people[2 : len(people)-1] {
		g2users = append(g2users, p.email)
	}
	room := people[len(people)-1]
	atLeast := 1 + rng.IntN(len(g2users)+1)
	g2 := map[string]any{"users": g2users, "calendars": []any{room.calID}, "required": "AT_LEAST", "atLeast": atLeast}
	if rng.IntN(3) == 0 {
		g2 = map[string]any{"users": g2users, "calendars": []any{room.calID}}
		atLeast = len(g2users) + 1
	}
	start, end := day0.Format(time.DateOnly), day0.AddDate(0, 0, days).Format(time.DateOnly)
	optional := rng.IntN(3) == 0 // the second person then only optional, reported last
	order := people
	if optional {
		users = users[:1]
		order = append(append([]*ftPerson{people[0]}, people[2:]...), people[1])
	}
	in := map[string]any{"groups": []any{map[string]any{"users": users}, g2}, "durationMinutes": duration, "stepMinutes": step,
		"bufferBeforeMinutes": before, "bufferAfterMinutes": after, "respectWorkingHours": respect, "timeZone": zone,
		"range": map[string]any{"dates": map[string]any{"start": start, "end": end}}}
	if optional {
		in["optional"] = map[string]any{"users": []any{people[1].email}}
	}
	r := e.do(viewer, `query($in: FindTimesInput!) { findTimes(input: $in) { timeZone truncated reason
		participants { email group calendar { id } } slots { start end states } groupReasons { group reason } } }`, map[string]any{"in": in})
	if len(r.Errors) > 0 {
		t.Fatalf("case %d: %s", c, r.Raw)
	}
	if strings.Contains(r.Raw, "Secret") || strings.Contains(r.Raw, "secret") {
		t.Fatalf("case %d: a title or name in the answer: %s", c, r.Raw)
	}
	var got []string
	for _, s := range get(r.Data, "findTimes.slots").([]any) {
		var states []string
		for _, st := range s.(map[string]any)["states"].([]any) {
			states = append(states, st.(string))
		}
		got = append(got, str(s, "start")+" "+strings.Join(states, ","))
	}
	loc, _ := time.LoadLocation(zone)
	from := time.Date(day0.Year(), day0.Month(), day0.Day(), 0, 0, 0, 0, loc)
	to := time.Date(day0.Year(), day0.Month(), day0.Day()+days, 0, 0, 0, 0, loc)
	o := ftOracle{from: from, to: to, zone: loc, step: step, dur: time.Duration(duration) * time.Minute,
		before: time.Duration(before) * time.Minute, after: time.Duration(after) * time.Minute, respect: respect}
	for _, p := range order {
		o.people = append(o.people, o.timeline(t, e, p))
	}
	groups := []ftGroup{{0, 2, 2}, {2, len(people), atLeast}}
	if optional {
		groups = []ftGroup{{0, 1, 1}, {1, len(people) - 1, atLeast}}
	}
	want := o.slots(groups)
	if len(want) > 500 {
		want = want[:500]
	}
	if !slices.Equal(got, want) {
		t.Fatalf("case %d (%s, %d days, %d min, step %d, buffers %d/%d, hours %v, atLeast %d):\n got %d %q\nwant %d %q", c, start, days,
			duration, step, before, after, respect, atLeast, len(got), ftFirstDiff(got, want), len(want), ftFirstDiff(want, got))
	}
	if (len(want) == 0) != (get(r.Data, "findTimes.reason") != nil) {
		t.Fatalf("case %d: reason %v with %d slots", c, get(r.Data, "findTimes.reason"), len(want))
	}
}

// ftFirstDiff returns a from its first element not in b, a few of them.
func ftFirstDiff(a, b []string) []string {
	for i, s := range a {
		if i >= len(b) || b[i] != s {
			return a[i:min(len(a), i+3)]
		}
	}
	return nil
}

// ftSetHours sets random working hours in the person's zone: a few
// windows on weekdays, sometimes on weekends, and a dated override or day
// off within the range.
func ftSetHours(e *env, rng *rand.Rand, p *ftPerson, zone string, day0 time.Time, days int) {
	p.hasHours = true
	names := []string{"SUNDAY", "MONDAY", "TUESDAY", "WEDNESDAY", "THURSDAY", "FRIDAY", "SATURDAY"}
	var in []any
	for wd := range 7 {
		if (wd == 0 || wd == 6) && rng.IntN(3) > 0 {
			continue
		}
		ws := ftWindows(rng)
		p.weekly[wd] = ws
		in = append(in, map[string]any{"day": names[wd], "windows": ftWindowsInput(ws)})
	}
	var exceptions []any
	if rng.IntN(2) == 0 {
		d := day0.AddDate(0, 0, rng.IntN(days)).Format(time.DateOnly)
		ws := ftWindows(rng)
		if rng.IntN(3) == 0 {
			ws = [][2]int{}
		}
		p.dated[d] = ws
		exceptions = append(exceptions, map[string]any{"date": d, "windows": ftWindowsInput(ws)})
	}
	h := map[string]any{"timeZone": zone, "days": in, "exceptions": exceptions}
	if p.room {
		e.must(p.token, `mutation($c: ID!, $h: WorkingHoursInput) { setOpeningHours(input: {calendarId: $c, openingHours: $h}) { calendar { id } } }`,
			map[string]any{"c": p.calID, "h": h})
		return
	}
	v := num(e.must(p.token, `{ viewer { user { version } } }`, nil), "viewer.user.version")
	e.must(p.token, `mutation($h: WorkingHoursInput, $v: Int!) { updatePreferences(input: {expectedVersion: $v, workingHours: $h}) { user { id } } }`,
		map[string]any{"v": v, "h": h})
}

func ftWindows(rng *rand.Rand) [][2]int {
	switch rng.IntN(4) {
	case 0:
		return [][2]int{{9 * 60, 17 * 60}}
	case 1:
		return [][2]int{{8*60 + 30, 12 * 60}, {13 * 60, 18 * 60}}
	case 2:
		return [][2]int{{0, 3 * 60}, {22 * 60, 24 * 60}} // a night shift, across the DST hour
	}
	return [][2]int{{7*60 + 15*rng.IntN(8), 14*60 + 15*rng.IntN(20)}}
}

func ftWindowsInput(ws [][2]int) []any {
	out := []any{}
	for _, w := range ws {
		out = append(out, map[string]any{"start": fmt.Sprintf("%02d:%02d", w[0]/60, w[0]%60), "end": fmt.Sprintf("%02d:%02d", w[1]/60, w[1]%60)})
	}
	return out
}

// ftEntry creates a random entry on the person's calendar: timed (in their
// zone), all-day or multi-day, sometimes a series (whose one occurrence is
// then moved or cancelled), of a random transparency.
func ftEntry(e *env, rng *rand.Rand, p *ftPerson, day0 time.Time, days int) {
	d := day0.AddDate(0, 0, rng.IntN(days+2)-1)
	var timing map[string]any
	switch rng.IntN(6) {
	case 0:
		timing = map[string]any{"allDay": map[string]any{"date": d.Format(time.DateOnly)}}
	case 1:
		timing = map[string]any{"multiDay": map[string]any{"startDate": d.Format(time.DateOnly), "endDate": d.AddDate(0, 0, 2+rng.IntN(2)).Format(time.DateOnly)}}
	default:
		s := time.Date(d.Year(), d.Month(), d.Day(), 6+rng.IntN(14), 5*rng.IntN(12), 0, 0, p.zone)
		if rng.IntN(8) == 0 {
			s = time.Date(d.Year(), d.Month(), d.Day(), 1, 30, 0, 0, p.zone) // in the DST hour, some days
		}
		length := time.Duration(10+5*rng.IntN(30)) * time.Minute
		if p.room { // bookings of a resource are on quarter hours
			s, length = s.Truncate(15*time.Minute), time.Duration(15*(1+rng.IntN(8)))*time.Minute
		}
		timing = map[string]any{"timed": map[string]any{"start": s.UTC().Format(time.RFC3339), "end": s.Add(length).UTC().Format(time.RFC3339),
			"timeZone": p.zone.String()}}
	}
	in := map[string]any{"calendarId": p.calID, "title": "Entry secret", "timing": timing}
	if t := rng.IntN(6); t < 4 {
		in["transparency"] = []string{"BUSY", "FREE", "TENTATIVE", "OUT_OF_OFFICE"}[t]
	}
	series := rng.IntN(3) == 0 && timing["multiDay"] == nil && (!p.room || timing["timed"] != nil)
	if series {
		rule := []string{"FREQ=DAILY;COUNT=6", "FREQ=WEEKLY;COUNT=3", "FREQ=DAILY;INTERVAL=2"}[rng.IntN(3)]
		if p.room { // a resource's series are bounded: 40 quarter hours in all
			rule = "FREQ=DAILY;COUNT=3"
		}
		in["recurrence"] = map[string]any{"rule": rule}
	}
	r := e.do(p.token, `mutation($in: CreateEntryInput!) { createEntry(input: $in) { entry { id } } }`, map[string]any{"in": in})
	if r.code() == "SLOT_CONFLICT" && p.room {
		return // a room holds no two overlapping entries
	}
	if len(r.Errors) > 0 {
		e.t.Fatalf("createEntry: %s", r.Raw)
	}
	if !series || timing["timed"] == nil {
		return
	}
	occs := get(e.must(p.token, `query($c: ID!, $s: Date!, $e: Date!) { calendar(id: $c) { entries(range: {dates: {start: $s, end: $e}}, timeZone: "UTC") {
		entries { id version ... on TimedEntry { start end } } } } }`,
		map[string]any{"c": p.calID, "s": day0.AddDate(0, 0, -2).Format(time.DateOnly), "e": day0.AddDate(0, 0, days+2).Format(time.DateOnly)}), "calendar.entries.entries").([]any)
	occs = slices.DeleteFunc(occs, func(o any) bool { return str(o, "start") == "" })
	if len(occs) < 2 {
		return
	}
	occ := occs[1+rng.IntN(len(occs)-1)]
	if rng.IntN(2) == 0 {
		e.must(p.token, `mutation($id: ID!, $v: Int!) { deleteEntry(input: {id: $id, expectedVersion: $v}) { deletedEntryId } }`,
			map[string]any{"id": str(occ, "id"), "v": num(occ, "version")})
		return
	}
	s, _ := time.Parse(time.RFC3339, str(occ, "start"))
	en, _ := time.Parse(time.RFC3339, str(occ, "end"))
	shift := time.Duration(rng.IntN(9)-4) * 45 * time.Minute
	r = e.do(p.token, `mutation($id: ID!, $v: Int!, $s: DateTime!, $e: DateTime!) { updateEntry(input: {id: $id, expectedVersion: $v,
		timing: {timed: {start: $s, end: $e}}}) { entry { id } } }`,
		map[string]any{"id": str(occ, "id"), "v": num(occ, "version"), "s": s.Add(shift).Format(time.RFC3339), "e": en.Add(shift).Format(time.RFC3339)})
	if len(r.Errors) > 0 && !(p.room && r.code() == "SLOT_CONFLICT") {
		e.t.Fatalf("updateEntry: %s", r.Raw)
	}
}
