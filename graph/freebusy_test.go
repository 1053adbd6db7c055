package graph_test

import (
	"slices"
	"testing"
)

const freeBusyQuery = `query($ids: [ID!]!) { freeBusy(calendarIds: $ids, range: {dates: {start: "2026-01-12", end: "2026-01-19"}}, timeZone: "Europe/Paris") {
	timeZone calendars { calendar { name } busy { start end status } } } }`

// TestFreeBusy checks what freeBusy shows: the merged intervals of entries
// and occurrences, not tasks, cancelled occurrences or FREE entries (a
// whole-day entry unless set otherwise), each with its status; and that a FREE_BUSY
// member sees that and the calendar's name, and nothing else.
func TestFreeBusy(t *testing.T) {
	e := newEnv(t)
	w := e.world("fb")
	e.weekly(w) // Mondays 09:00-09:15 Paris
	for _, q := range []string{
		`mutation($c: ID!) { createEntry(input: {calendarId: $c, title: "Overlapping", timing: {timed: {start: "2026-01-12T08:10:00Z", end: "2026-01-12T09:00:00Z"}}}) { entry { id } } }`,
		`mutation($c: ID!) { createEntry(input: {calendarId: $c, title: "Holiday", timing: {allDay: {date: "2026-01-14"}}, transparency: OUT_OF_OFFICE}) { entry { id } } }`,
		`mutation($c: ID!) { createEntry(input: {calendarId: $c, title: "Birthday", timing: {allDay: {date: "2026-01-16"}}}) { entry { id } } }`,
		`mutation($c: ID!) { createEntry(input: {calendarId: $c, title: "Maybe", timing: {timed: {start: "2026-01-15T10:00:00Z", end: "2026-01-15T11:00:00Z"}}, transparency: TENTATIVE}) { entry { id } } }`,
		`mutation($c: ID!) { createEntry(input: {calendarId: $c, title: "Focus", timing: {timed: {start: "2026-01-15T12:00:00Z", end: "2026-01-15T13:00:00Z"}}, transparency: FREE}) { entry { id } } }`,
		`mutation($c: ID!) { createEntry(input: {calendarId: $c, title: "Task", timing: {task: {dueDate: "2026-01-15"}}}) { entry { id } } }`,
	} {
		e.must(w.writer, q, map[string]any{"c": w.calendarID})
	}
	d := e.must(w.owner, `mutation($c: ID!) { createInvitation(input: {calendarId: $c, role: FREE_BUSY}) { token } }`, map[string]any{"c": w.calendarID})
	peeker := e.token("peeker@example.com")
	e.must(peeker, acceptInvitation, map[string]any{"t": str(d, "createInvitation.token")})

	d = e.must(peeker, freeBusyQuery, map[string]any{"ids": []string{w.calendarID}})
	var got []string
	for _, b := range get(d, "freeBusy.calendars.0.busy").([]any) {
		got = append(got, str(b, "start")+" "+str(b, "end")+" "+str(b, "status"))
	}
	want := []string{"2026-01-12T08:00:00Z 2026-01-12T09:00:00Z BUSY", "2026-01-13T23:00:00Z 2026-01-14T23:00:00Z OUT_OF_OFFICE",
		"2026-01-15T10:00:00Z 2026-01-15T11:00:00Z TENTATIVE"}
	if !slices.Equal(got, want) || str(d, "freeBusy.calendars.0.calendar.name") != "Team" {
		t.Fatalf("busy %q, want %q (%v)", got, want, d)
	}

	for name, q := range map[string]string{
		"entries": `query($c: ID!) { calendar(id: $c) { entries(range: {dates: {start: "2026-01-12", end: "2026-01-19"}}) { entries { title } } } }`,
		"tasks":   `query($c: ID!) { calendar(id: $c) { tasks { edges { node { title } } } } }`,
		"members": `query($c: ID!) { calendar(id: $c) { members { edges { node { role } } } } }`,
		"agenda":  `query($c: ID!) { viewer { agenda(range: {dates: {start: "2026-01-12", end: "2026-01-19"}}, calendarIds: [$c]) { entries { title } } } }`,
	} {
		if r := e.do(peeker, q, map[string]any{"c": w.calendarID}); r.code() != "FORBIDDEN" {
			t.Errorf("%s as FREE_BUSY: %s", name, r.Raw)
		}
	}
	d = e.must(peeker, `{ viewer { agenda(range: {dates: {start: "2026-01-12", end: "2026-01-19"}}) { entries { title } }
		calendars { edges { node { role calendar { name viewerRole } } } } } }`, nil)
	if n := len(get(d, "viewer.agenda.entries").([]any)); n != 0 || str(d, "viewer.calendars.edges.0.node.calendar.viewerRole") != "FREE_BUSY" {
		t.Fatalf("the agenda of a FREE_BUSY member shows %d entries: %v", n, d)
	}
	occ := e.january(w.reader, w.calendarID, false)[0]
	if r := e.do(peeker, `query($id: ID!) { node(id: $id) { id } }`, map[string]any{"id": str(occ, "id")}); r.code() != "FORBIDDEN" {
		t.Errorf("node of an occurrence as FREE_BUSY: %s", r.Raw)
	}
	// The calendar's description is for those who read it.
	v := num(e.must(w.owner, `query($c: ID!) { calendar(id: $c) { version } }`, map[string]any{"c": w.calendarID}), "calendar.version")
	e.must(w.owner, `mutation($c: ID!, $v: Int!) { updateCalendar(input: {id: $c, expectedVersion: $v, description: "Project Falcon"}) { calendar { id } } }`,
		map[string]any{"c": w.calendarID, "v": v})
	describe := `query($c: ID!) { calendar(id: $c) { name description } }`
	if d := e.must(peeker, describe, map[string]any{"c": w.calendarID}); get(d, "calendar.description") != nil || str(d, "calendar.name") != "Team" {
		t.Errorf("the calendar as FREE_BUSY: %v", d)
	}
	if d := e.must(w.reader, describe, map[string]any{"c": w.calendarID}); str(d, "calendar.description") != "Project Falcon" {
		t.Errorf("the calendar as READER: %v", d)
	}
	if r := e.do(w.outsider, freeBusyQuery, map[string]any{"ids": []string{w.calendarID}}); r.code() != "NOT_FOUND" {
		t.Errorf("freeBusy as a non-member: %s", r.Raw)
	}
}
