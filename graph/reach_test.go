package graph_test

import (
	"encoding/json"
	"testing"
	"time"
)

// What an invited user who is not a member of an entry's calendar reaches:
// the entry, and its calendar limited as FREE_BUSY members see it, with the
// viewerRole INVITED; nothing else of that calendar.

// calendarOf returns the global ID of the owner's first calendar.
func (e *env) calendarOf(owner string) string {
	e.t.Helper()
	d := e.must(owner, `{ viewer { calendars { edges { node { calendar { id } } } } } }`, nil)
	return str(d, "viewer.calendars.edges.0.node.calendar.id")
}

// TestInvitedNonMemberSeesTheCalendarAsFreeBusy: through the entry, the
// calendar's name, color, zone and the like, a null description and the
// role INVITED; every other field and connection of that calendar, every
// query and mutation naming it, and a subscription to it are refused as
// they are to anyone who is not a member.
func TestInvitedNonMemberSeesTheCalendarAsFreeBusy(t *testing.T) {
	e := newEnv(t)
	p := e.party("adv", 1, 0, false)
	cal := e.calendarOf(p.owner)
	e.must(p.owner, `mutation($c: ID!) { updateCalendar(input: {id: $c, expectedVersion: 1, description: "Only members read this"}) { calendar { id } } }`,
		map[string]any{"c": cal})
	guest := p.guests[0]
	d := e.must(guest, `query($id: ID!) { node(id: $id) { ... on Entry { calendar {
		id name color description timeZone isResource version createdAt updatedAt viewerRole } } } }`,
		map[string]any{"id": p.entryID})
	if str(d, "node.calendar.viewerRole") != "INVITED" || str(d, "node.calendar.name") != "Events" ||
		get(d, "node.calendar.description") != nil || str(d, "node.calendar.id") != cal {
		t.Errorf("the calendar through the entry: got %v, want Events, no description, INVITED", d)
	}
	// INVITED is never given.
	for _, q := range []string{
		`mutation($c: ID!) { addMember(input: {calendarId: $c, email: "guest0-adv@example.com", role: INVITED}) { membership { id } } }`,
		`mutation($c: ID!) { createInvitation(input: {calendarId: $c, role: INVITED}) { token } }`,
	} {
		if r := e.do(p.owner, q, map[string]any{"c": cal}); r.code() != "BAD_USER_INPUT" {
			t.Errorf("giving INVITED: got %s, want BAD_USER_INPUT", r.Raw)
		}
	}
	// A FREE_BUSY member invited to the entry keeps their role.
	e.must(p.owner, `mutation($c: ID!) { addMember(input: {calendarId: $c, email: "guest0-adv@example.com", role: FREE_BUSY}) { membership { id } } }`,
		map[string]any{"c": cal})
	d = e.must(guest, `query($id: ID!) { node(id: $id) { ... on Entry { calendar { viewerRole description } } } }`, map[string]any{"id": p.entryID})
	if str(d, "node.calendar.viewerRole") != "FREE_BUSY" {
		t.Errorf("invited FREE_BUSY member: got %v, want FREE_BUSY", d)
	}
}

// TestInvitedNonMemberReachesNothingElse: the adversary's list, each of
// which must fail as it does for a stranger.
func TestInvitedNonMemberReachesNothingElse(t *testing.T) {
	e := newEnv(t)
	p := e.party("adv2", 1, 0, false)
	cal := e.calendarOf(p.owner)
	d := e.must(p.owner, `mutation($c: ID!) { createEntry(input: {calendarId: $c, title: "Secret",
		timing: {timed: {start: "2026-11-24T10:00:00Z", end: "2026-11-24T11:00:00Z", timeZone: "UTC"}}}) { entry { id } } }`,
		map[string]any{"c": cal})
	other := str(d, "createEntry.entry.id")
	through := func(field string) string {
		return `query($id: ID!) { node(id: $id) { ... on Entry { calendar { ` + field + ` } } } }`
	}
	vars := map[string]any{"id": p.entryID, "c": cal, "other": other}
	week := `range: {dates: {start: "2026-11-23", end: "2026-11-30"}}`
	for _, tc := range []struct{ name, query string }{
		{"entries", through(`entries(` + week + `) { entries { id } }`)},
		{"tasks", through(`tasks { edges { node { id } } }`)},
		{"members", through(`members { edges { node { id } } }`)},
		{"changes", through(`changes { changes { id } }`)},
		{"invitation links", through(`invitations { edges { node { id } } }`)},
		{"node of the calendar", `query($c: ID!) { node(id: $c) { id } }`},
		{"calendar(id:)", `query($c: ID!) { calendar(id: $c) { name } }`},
		{"another entry", `query($other: ID!) { node(id: $other) { id } }`},
		{"freeBusy", `query($c: ID!) { freeBusy(calendarIds: [$c], ` + week + `) { calendars { busy { start } } } }`},
		{"agenda of it", `query($c: ID!) { viewer { agenda(calendarIds: [$c], ` + week + `) { entries { id } } } }`},
		{"rotate its feed", `mutation($c: ID!) { rotateCalendarFeed(input: {calendarId: $c}) { url } }`},
		{"import into it", `mutation($c: ID!) { importCalendar(input: {calendarId: $c, ics: "BEGIN:VCALENDAR\r\nEND:VCALENDAR\r\n"}) { entries { id } } }`},
		{"update it", `mutation($c: ID!) { updateCalendar(input: {id: $c, expectedVersion: 1, name: "Mine"}) { calendar { id } } }`},
		{"invite a link", `mutation($c: ID!) { createInvitation(input: {calendarId: $c, role: READER}) { token } }`},
		{"write an entry", `mutation($c: ID!) { createEntry(input: {calendarId: $c, title: "x", timing: {task: {dueDate: "2026-12-01"}}}) { entry { id } } }`},
		{"edit the entry", `mutation($id: ID!) { updateEntry(input: {id: $id, expectedVersion: 2, title: "Mine"}) { entry { id } } }`},
		{"leave it", `mutation($c: ID!) { leaveCalendar(input: {calendarId: $c, expectedVersion: 1}) { removedMembershipId } }`},
	} {
		r := e.do(p.guests[0], tc.query, vars)
		stranger := e.do(p.outsider, tc.query, vars)
		if r.code() == "" || r.code() != stranger.code() {
			t.Errorf("%s: invited got %s, a stranger %s: want the same refusal", tc.name, r.Raw, stranger.Raw)
		}
	}
	// The calendar is not in their list, nor in their list's sync.
	d = e.must(p.guests[0], `{ viewer { calendars { edges { node { id } } } calendarListChanges { changes { calendarId } } } }`, nil)
	if n := len(asList(get(d, "viewer.calendars.edges"))) + len(asList(get(d, "viewer.calendarListChanges.changes"))); n != 0 {
		t.Errorf("their list: got %v, want nothing", d)
	}
	// A subscription to the calendar fails before anything is delivered.
	c := e.dial(p.guests[0])
	c.subscribe("1", changesSubscription, map[string]any{"ids": []string{cal}})
	m, err := c.next(5 * time.Second)
	if err != nil || m.Type != "error" && !hasErrors(m.Payload) {
		t.Errorf("subscription to the calendar: got %s %s (%v), want an error", m.Type, m.Payload, err)
	}
}

// hasErrors reports whether a payload carries GraphQL errors.
func hasErrors(payload json.RawMessage) bool {
	var r struct {
		Errors []any `json:"errors"`
	}
	return json.Unmarshal(payload, &r) == nil && len(r.Errors) > 0
}
