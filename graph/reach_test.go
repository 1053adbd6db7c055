package graph_test

import (
	"encoding/json"
	"maps"
	"slices"
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

const agendaWeek = `query($inv: Boolean) { viewer { agenda(range: {dates: {start: "2026-11-23", end: "2026-11-30"}}, timeZone: "UTC", includeInvitations: $inv) {
	entries { title calendar { name viewerRole description } } } } }`

// agendaTitles lists an agenda's titles with their calendar's role.
func agendaTitles(d map[string]any) []string {
	var out []string
	for _, en := range asList(get(d, "viewer.agenda.entries")) {
		out = append(out, str(en, "title")+"/"+str(en, "calendar.viewerRole"))
	}
	return out
}

// TestAgendaShowsInvitations: the agenda merges, in view order, the
// viewer's own calendars' entries and the entries of other calendars they
// are invited to and did not decline, each with its calendar as INVITED;
// never another entry of those calendars, nor one they were removed from.
func TestAgendaShowsInvitations(t *testing.T) {
	e := newEnv(t)
	p := e.party("agenda", 1, 0, false)
	guest, cal := p.guests[0], e.calendarOf(p.owner)
	d := e.must(guest, `mutation { createCalendar(input: {name: "Mine"}) { calendar { id } } }`, nil)
	mine := str(d, "createCalendar.calendar.id")
	newEntry := func(c, title, start string) string {
		d := e.must(p.owner, `mutation($c: ID!, $t: String!, $s: DateTime!) { createEntry(input: {calendarId: $c, title: $t,
			timing: {timed: {start: $s, timeZone: "UTC"}}}) { entry { id } } }`, map[string]any{"c": c, "t": title, "s": start})
		return str(d, "createEntry.entry.id")
	}
	invite := func(id string) {
		e.must(p.owner, `mutation($id: ID!) { changeAttendees(input: {entryId: $id, add: [{email: "guest0-agenda@example.com"}]}) { entry { id } } }`,
			map[string]any{"id": id})
	}
	e.must(guest, `mutation($c: ID!) { createEntry(input: {calendarId: $c, title: "Own", timing: {timed: {start: "2026-11-24T09:00:00Z", timeZone: "UTC"}}}) { entry { id } } }`,
		map[string]any{"c": mine})
	newEntry(cal, "Secret", "2026-11-24T12:00:00Z") // not invited
	declined := newEntry(cal, "Declined", "2026-11-25T12:00:00Z")
	invite(declined)
	e.must(guest, respond, map[string]any{"id": declined, "v": 1, "r": "DECLINED"})
	removed := newEntry(cal, "Removed", "2026-11-26T12:00:00Z")
	invite(removed)
	e.must(p.owner, `mutation($id: ID!) { changeAttendees(input: {entryId: $id, remove: ["guest0-agenda@example.com"]}) { entry { id } } }`,
		map[string]any{"id": removed})
	invite(newEntry(cal, "Next week", "2026-12-01T12:00:00Z"))
	e.consistent()

	want := []string{"Own/OWNER", "Talk/INVITED"}
	d = e.must(guest, agendaWeek, nil)
	if got := agendaTitles(d); !slices.Equal(got, want) {
		t.Errorf("agenda: got %v, want %v", got, want)
	}
	if got := agendaTitles(e.must(guest, agendaWeek, map[string]any{"inv": false})); !slices.Equal(got, want[:1]) {
		t.Errorf("agenda without invitations: got %v, want %v", got, want[:1])
	}
	// A member who reads the calendar sees its entries once, invited or not.
	e.must(p.owner, `mutation($c: ID!) { addMember(input: {calendarId: $c, email: "guest0-agenda@example.com", role: READER}) { membership { id } } }`,
		map[string]any{"c": cal})
	e.consistent()
	want = []string{"Own/OWNER", "Secret/READER", "Talk/READER", "Declined/READER", "Removed/READER"}
	if got := agendaTitles(e.must(guest, agendaWeek, nil)); !slices.Equal(got, want) {
		t.Errorf("agenda as a reader: got %v, want %v", got, want)
	}
}

// TestAgendaOfInvitationsPlan pins what invitations cost an agenda: one
// more Query (GSI1, beside the memberships' in the first wave) and their
// entries, invitations and calendars in the batch of the viewer's
// calendars: no extra wave. It logs the items read per entry shown.
func TestAgendaOfInvitationsPlan(t *testing.T) {
	e := newEnv(t, withWaveGate(), withoutViewCache())
	p := e.party("plan", 1, 0, false)
	guest, cal := p.guests[0], e.calendarOf(p.owner)
	d := e.must(guest, `mutation { createCalendar(input: {name: "Mine"}) { calendar { id } } }`, nil)
	mine := str(d, "createCalendar.calendar.id")
	e.must(guest, `mutation($c: ID!) { createEntry(input: {calendarId: $c, title: "Own", timing: {timed: {start: "2026-11-24T09:00:00Z", timeZone: "UTC"}}}) { entry { id } } }`,
		map[string]any{"c": mine})
	const invitations = 20 // and the party's: one in the week, 19 in the weeks after
	for i := 1; i < invitations; i++ {
		d := e.must(p.owner, `mutation($c: ID!, $s: DateTime!) { createEntry(input: {calendarId: $c, title: "Later",
			timing: {timed: {start: $s, timeZone: "UTC"}}}) { entry { id } } }`,
			map[string]any{"c": cal, "s": time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC).AddDate(0, 0, 3*i).Format(time.RFC3339)})
		e.must(p.owner, `mutation($id: ID!) { changeAttendees(input: {entryId: $id, add: [{email: "guest0-plan@example.com"}]}) { entry { id } } }`,
			map[string]any{"id": str(d, "createEntry.entry.id")})
	}
	measure := func(inv bool) (map[string]int, int, int) {
		e.rec.Reset()
		d := e.must(guest, agendaWeek, map[string]any{"inv": inv})
		items := 0
		for _, c := range e.rec.Calls() {
			items += c.Items
		}
		return planOf(e.rec.Calls()), items, len(agendaTitles(d))
	}
	without, itemsWithout, shownWithout := measure(false)
	with, items, shown := measure(true)
	if shown != 2 || shownWithout != 1 {
		t.Fatalf("shown: got %d with invitations and %d without, want 2 and 1", shown, shownWithout)
	}
	want := maps.Clone(without)
	want["wave 1 Query GSI1"]++ // the invitations, beside the memberships
	if !maps.Equal(with, want) {
		t.Errorf("plan with invitations: got %v, want %v (without: %v)", with, want, without)
	}
	t.Logf("agenda of a week, %d invitations of which 1 in it: %d items read for %d entries shown (%d for %d without invitations)",
		invitations, items, shown, itemsWithout, shownWithout)
}

// TestInvitedSeriesInTheAgendaAndInbox: an invited non-member's agenda
// shows a series they are invited to as its calendar's readers see it,
// with a moved occurrence where it was moved (the series' exceptions are
// read with it), and their inbox finds the series in a week long after its
// first occurrence.
func TestInvitedSeriesInTheAgendaAndInbox(t *testing.T) {
	e := newEnv(t)
	p := e.party("iseries", 1, 0, false)
	guest, cal := p.guests[0], e.calendarOf(p.owner)
	d := e.must(p.owner, `mutation($c: ID!) { createEntry(input: {calendarId: $c, title: "Stand-up",
		timing: {timed: {start: "2026-11-02T09:00:00Z", end: "2026-11-02T09:15:00Z", timeZone: "UTC"}}, recurrence: {rule: "FREQ=DAILY"}}) { entry { id } } }`,
		map[string]any{"c": cal})
	series := str(d, "createEntry.entry.id")
	e.must(p.owner, `mutation($id: ID!) { changeAttendees(input: {entryId: $id, add: [{email: "guest0-iseries@example.com"}]}) { entry { id } } }`,
		map[string]any{"id": series})
	const week = `query($c: ID!) { calendar(id: $c) { entries(range: {dates: {start: "2026-11-23", end: "2026-11-30"}}, timeZone: "UTC") {
		entries { id title ... on TimedEntry { start } } } } }`
	d = e.must(p.owner, week, map[string]any{"c": cal})
	var tuesday string
	for _, x := range asList(get(d, "calendar.entries.entries")) {
		if str(x, "start") == "2026-11-24T09:00:00Z" {
			tuesday = str(x, "id")
		}
	}
	e.must(p.owner, `mutation($id: ID!) { updateEntry(input: {id: $id, expectedVersion: 1, scope: THIS,
		timing: {timed: {start: "2026-11-24T15:00:00Z", end: "2026-11-24T15:15:00Z", timeZone: "UTC"}}}) { entry { id } } }`,
		map[string]any{"id": tuesday})
	e.consistent()

	var readers []string
	for _, x := range asList(get(e.must(p.owner, week, map[string]any{"c": cal}), "calendar.entries.entries")) {
		if str(x, "title") == "Stand-up" {
			readers = append(readers, str(x, "start"))
		}
	}
	d = e.must(guest, `{ viewer { agenda(range: {dates: {start: "2026-11-23", end: "2026-11-30"}}, timeZone: "UTC") {
		entries { title ... on TimedEntry { start } } } } }`, nil)
	var invited []string
	for _, x := range asList(get(d, "viewer.agenda.entries")) {
		if str(x, "title") == "Stand-up" {
			invited = append(invited, str(x, "start"))
		}
	}
	if len(readers) != 7 || !slices.Contains(readers, "2026-11-24T15:00:00Z") || !slices.Equal(invited, readers) {
		t.Errorf("the invitee's agenda shows the series at %v, its readers at %v", invited, readers)
	}
	d = e.must(guest, `{ viewer { invitations(range: {dates: {start: "2026-11-23", end: "2026-11-30"}}) { edges { node { entry { title } } } } } }`, nil)
	var titles []string
	for _, x := range asList(get(d, "viewer.invitations.edges")) {
		titles = append(titles, str(x, "node.entry.title"))
	}
	if !slices.Contains(titles, "Stand-up") {
		t.Errorf("the inbox for a week of the series: %v, want the series among them", titles)
	}
}
