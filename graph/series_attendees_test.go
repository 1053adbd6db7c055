package graph_test

import (
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/calgraph/calgraph/graph/model"
	"github.com/calgraph/calgraph/internal/dynamo"
)

// TestSeriesAnswersInAWeekView: attendees of a daily series answer through
// its occurrences (THIS, THIS_AND_FOLLOWING) and the series (ALL); a week
// view shows each occurrence's own summary at the calls and waves of the
// same view without it, and each occurrence's viewerAttendee and attendees
// with the answer there, in one batch for all of them.
func TestSeriesAnswersInAWeekView(t *testing.T) {
	e := newEnv(t, withWaveGate(), withoutViewCache())
	const owner = "series-org@example.com"
	tok, guest := e.token(owner), e.token("series-guest@example.com")
	e.must(tok, provision, nil)
	e.must(guest, provision, nil)
	cals := seedCalendars(t, e, owner, 1, []string{"series-guest@example.com"})
	d := e.must(tok, `mutation($c: ID!) { createEntry(input: {calendarId: $c, title: "Stand-up",
		timing: {timed: {start: "2026-11-23T09:00:00Z", end: "2026-11-23T09:15:00Z", timeZone: "UTC"}}, recurrence: {rule: "FREQ=DAILY"}}) { entry { id } } }`,
		map[string]any{"c": model.CalendarGID(cals[0])})
	seriesID := str(d, "createEntry.entry.id")
	const week = `{ viewer { calendars { edges { node { calendar {
		entries(range: {dates: {start: "2026-11-23", end: "2026-11-30"}}) { entries { id title %s } } } } } } } }`
	occ := func(tok string, fields string) []any {
		d := e.must(tok, fmt.Sprintf(week, fields), nil)
		return asList(get(d, "viewer.calendars.edges.0.node.calendar.entries.entries"))
	}
	days := occ(tok, "")
	if len(days) != 7 {
		t.Fatalf("got %d occurrences, want 7", len(days))
	}
	id := func(day int) string { return str(days[day], "id") }

	// Invited through an occurrence: the series' list.
	e.must(tok, `mutation($id: ID!) { changeAttendees(input: {entryId: $id, add: [{email: "series-guest@example.com"}, {email: "x@elsewhere.org"}]}) { entry { id } } }`,
		map[string]any{"id": id(3)})
	const answer = `mutation($id: ID!, $v: Int!, $r: AttendeeResponse!, $s: EditScope) {
		respondToEntry(input: {entryId: $id, expectedVersion: $v, response: $r, scope: $s}) { attendee { response version } } }`
	v := 1
	for _, a := range []struct {
		id, scope, resp string
	}{{seriesID, "ALL", "ACCEPTED"}, {id(2), "THIS", "DECLINED"}, {id(4), "THIS_AND_FOLLOWING", "TENTATIVE"}} {
		d := e.must(guest, answer, map[string]any{"id": a.id, "v": v, "r": a.resp, "s": a.scope})
		if got := str(d, "respondToEntry.attendee.response"); got != a.resp {
			t.Errorf("answer %s %s: got %s", a.scope, a.resp, got)
		}
		v = num(d, "respondToEntry.attendee.version")
	}
	if r := e.do(guest, answer, map[string]any{"id": seriesID, "v": v, "r": "ACCEPTED", "s": "THIS"}); r.code() != "BAD_USER_INPUT" {
		t.Errorf("THIS on the series itself: got %s, want BAD_USER_INPUT", r.Raw)
	}

	want := []string{"ACCEPTED", "ACCEPTED", "DECLINED", "ACCEPTED", "TENTATIVE", "TENTATIVE", "TENTATIVE"}
	for i, o := range occ(guest, "viewerAttendee { response } attendeeSummary { accepted declined tentative needsAction } attendees(response: [ACCEPTED, DECLINED, TENTATIVE]) { edges { node { email response } } }") {
		if got := str(o, "viewerAttendee.response"); got != want[i] {
			t.Errorf("day %d: viewerAttendee %s, want %s", i, got, want[i])
		}
		sum := fmt.Sprint(num(o, "attendeeSummary.accepted"), num(o, "attendeeSummary.declined"), num(o, "attendeeSummary.tentative"), num(o, "attendeeSummary.needsAction"))
		wantSum := map[string]string{"ACCEPTED": "1 0 0 1", "DECLINED": "0 1 0 1", "TENTATIVE": "0 0 1 1"}[want[i]]
		if sum != wantSum {
			t.Errorf("day %d: summary %s (accepted declined tentative needsAction), want %s", i, sum, wantSum)
		}
		if got := fmt.Sprint(get(o, "attendees.edges")); got != fmt.Sprintf("[map[node:map[email:series-guest@example.com response:%s]]]", want[i]) {
			t.Errorf("day %d: attendees %s, want the guest answering %s", i, got, want[i])
		}
	}

	calls := func(plan map[string]int) (n int) {
		for _, v := range plan {
			n += v
		}
		return n
	}
	steadyPlan(t, e, func(e *env) (int, []string) {
		view := func(fields string) (map[string]int, int) {
			e.rec.Reset()
			occ(guest, fields)
			calls := e.rec.Calls()
			return planOf(calls), dynamo.Waves(calls)
		}
		var problems []string
		plain, plainWaves := view("")
		with, withWaves := view("attendeeSummary { accepted declined tentative needsAction total headCount }")
		if !reflect.DeepEqual(with, plain) || withWaves != plainWaves {
			problems = append(problems, fmt.Sprintf("with summaries: %d waves\n%s\nwithout: %d waves\n%s", withWaves, describe(with), plainWaves, describe(plain)))
		}
		own, ownWaves := view("viewerAttendee { response }")
		if calls(own) != calls(plain)+1 || ownWaves != plainWaves+1 {
			problems = append(problems, fmt.Sprintf("with viewerAttendee: %d calls in %d waves, want %d in %d\n%s", calls(own), ownWaves, calls(plain)+1, plainWaves+1, describe(own)))
		}
		return calls(plain) + calls(with) + calls(own), problems
	})
}

// TestCachedViewShowsAnOccurrenceAnswer: an answer to one occurrence raises
// its calendar's revision as any answer does, so a week view the cache kept
// shows that occurrence's new summary at once.
func TestCachedViewShowsAnOccurrenceAnswer(t *testing.T) {
	e := newEnv(t)
	tok, guest := e.token("cached-org@example.com"), e.token("cached-guest@example.com")
	e.must(tok, provision, nil)
	e.must(guest, provision, nil)
	d := e.must(tok, `mutation { createCalendar(input: {name: "Team"}) { calendar { id } } }`, nil)
	d = e.must(tok, `mutation($c: ID!) { createEntry(input: {calendarId: $c, title: "Stand-up",
		timing: {timed: {start: "2026-11-23T09:00:00Z", end: "2026-11-23T09:15:00Z", timeZone: "UTC"}}, recurrence: {rule: "FREQ=DAILY"}}) { entry { id } } }`,
		map[string]any{"c": str(d, "createCalendar.calendar.id")})
	e.must(tok, `mutation($id: ID!) { changeAttendees(input: {entryId: $id, add: [{email: "cached-guest@example.com"}]}) { entry { id } } }`,
		map[string]any{"id": str(d, "createEntry.entry.id")})
	const week = `{ viewer { calendars { edges { node { calendar { entries(range: {dates: {start: "2026-11-23", end: "2026-11-30"}}) {
		entries { id attendeeSummary { declined needsAction } } } } } } } } }`
	view := func() []any {
		return asList(get(e.must(tok, week, nil), "viewer.calendars.edges.0.node.calendar.entries.entries"))
	}
	view()
	time.Sleep(1100 * time.Millisecond) // the cache keeps reads of a revision seen for a second (viewcache.go)
	view()                              // fills the cache
	e.rec.Reset()
	days := view()
	if q := rangeQueries(planOf(e.rec.Calls())); q != 0 {
		t.Fatalf("the repeated view read the range again (%d Queries): the cache did not answer it", q)
	}
	e.must(guest, `mutation($id: ID!) { respondToEntry(input: {entryId: $id, expectedVersion: 1, response: DECLINED}) { attendee { version } } }`,
		map[string]any{"id": str(days[2], "id")})
	for i, o := range view() {
		want := "map[declined:0 needsAction:1]"
		if i == 2 {
			want = "map[declined:1 needsAction:0]"
		}
		if got := fmt.Sprint(get(o, "attendeeSummary")); got != want {
			t.Errorf("day %d after the answer: got %s, want %s", i, got, want)
		}
	}
}
