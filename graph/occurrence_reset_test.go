package graph_test

import (
	"fmt"
	"strings"
	"testing"
)

// TestMovingOneOccurrenceResetsItsAnswers: through the API, an organizer
// moving one occurrence of a series alone (THIS) sends the answers at it
// to NEEDS_ACTION in every read — the occurrence's viewerAttendee, summary,
// attendee list and its response filter, and the feed's PARTSTAT on its
// override — while the next day keeps them; a THIS answer after the move
// counts there.
func TestMovingOneOccurrenceResetsItsAnswers(t *testing.T) {
	e := newEnv(t)
	p := e.party("occreset", 2, 0, false)
	cal := e.calendarOf(p.owner)
	d := e.must(p.owner, `mutation($c: ID!) { createEntry(input: {calendarId: $c, title: "Stand-up",
		timing: {timed: {start: "2026-11-23T09:00:00Z", end: "2026-11-23T09:15:00Z", timeZone: "UTC"}}, recurrence: {rule: "FREQ=DAILY;COUNT=5"}}) { entry { id } } }`,
		map[string]any{"c": cal})
	series := str(d, "createEntry.entry.id")
	// guest 0 reads the calendar too, so reads the occurrences by ID.
	e.must(p.owner, `mutation($c: ID!) { addMember(input: {calendarId: $c, email: "guest0-occreset@example.com", role: READER}) { membership { id } } }`,
		map[string]any{"c": cal})
	e.must(p.owner, `mutation($id: ID!) { changeAttendees(input: {entryId: $id, add: [{email: "guest0-occreset@example.com"}, {email: "guest1-occreset@example.com"}]}) { entry { id } } }`,
		map[string]any{"id": series})
	const answer = `mutation($id: ID!, $v: Int!, $r: AttendeeResponse!, $s: EditScope) {
		respondToEntry(input: {entryId: $id, expectedVersion: $v, response: $r, scope: $s}) { attendee { response version } } }`
	e.must(p.guests[0], answer, map[string]any{"id": series, "v": 1, "r": "ACCEPTED", "s": "ALL"})
	e.must(p.guests[1], answer, map[string]any{"id": series, "v": 1, "r": "DECLINED", "s": "ALL"})
	d = e.must(p.owner, `query($c: ID!) { calendar(id: $c) { entries(range: {dates: {start: "2026-11-23", end: "2026-11-30"}}, timeZone: "UTC") {
		entries { id version ... on TimedEntry { start } } } } }`, map[string]any{"c": cal})
	ids := map[string]string{}
	var tuesdayVersion int
	for _, x := range asList(get(d, "calendar.entries.entries")) {
		ids[str(x, "start")] = str(x, "id")
		if str(x, "start") == "2026-11-24T09:00:00Z" {
			tuesdayVersion = num(x, "version")
		}
	}
	tuesday, wednesday := ids["2026-11-24T09:00:00Z"], ids["2026-11-25T09:00:00Z"]
	const read = `query($id: ID!) { node(id: $id) { ... on Entry { viewerAttendee { response }
		attendeeSummary { accepted declined needsAction } accepted: attendees(response: [ACCEPTED]) { edges { node { email } } }
		attendees { edges { node { email response } } } } } }`
	state := func(id string) string {
		t.Helper()
		d := e.must(p.guests[0], read, map[string]any{"id": id})
		return fmt.Sprint(get(d, "node.viewerAttendee"), get(d, "node.attendeeSummary"), len(asList(get(d, "node.accepted.edges"))),
			get(d, "node.attendees.edges"))
	}
	const answered = "map[response:ACCEPTED] map[accepted:1 declined:1 needsAction:0] 1 " +
		"[map[node:map[email:guest0-occreset@example.com response:ACCEPTED]] map[node:map[email:guest1-occreset@example.com response:DECLINED]]]"
	if got := state(tuesday); got != answered {
		t.Fatalf("Tuesday before the move: %s, want %s", got, answered)
	}
	e.must(p.owner, `mutation($id: ID!, $v: Int!) { updateEntry(input: {id: $id, expectedVersion: $v, scope: THIS,
		timing: {timed: {start: "2026-11-24T15:00:00Z", end: "2026-11-24T15:15:00Z", timeZone: "UTC"}}}) { entry { id } } }`,
		map[string]any{"id": tuesday, "v": tuesdayVersion})
	const reset = "map[response:NEEDS_ACTION] map[accepted:0 declined:0 needsAction:2] 0 " +
		"[map[node:map[email:guest0-occreset@example.com response:NEEDS_ACTION]] map[node:map[email:guest1-occreset@example.com response:NEEDS_ACTION]]]"
	if got := state(tuesday); got != reset {
		t.Errorf("Tuesday after its move: %s, want %s", got, reset)
	}
	if got := state(wednesday); got != answered {
		t.Errorf("Wednesday after Tuesday's move: %s, want %s", got, answered)
	}

	d = e.must(p.owner, rotate, map[string]any{"c": cal})
	_, ics, _ := e.getFeed(str(d, "rotateCalendarFeed.path"), "")
	var masterEvent, exceptionEvent string
	for _, ev := range strings.Split(strings.ReplaceAll(ics, "\r\n ", ""), "BEGIN:VEVENT")[1:] {
		if strings.Contains(ev, "RECURRENCE-ID") {
			exceptionEvent = ev
		} else {
			masterEvent = ev
		}
	}
	for _, c := range []struct{ event, want string }{
		{masterEvent, "PARTSTAT=ACCEPTED;ROLE=REQ-PARTICIPANT:mailto:guest0-occreset@example.com"},
		{exceptionEvent, "PARTSTAT=NEEDS-ACTION;ROLE=REQ-PARTICIPANT;RSVP=TRUE:mailto:guest0-occreset@example.com"},
		{exceptionEvent, "PARTSTAT=NEEDS-ACTION;ROLE=REQ-PARTICIPANT;RSVP=TRUE:mailto:guest1-occreset@example.com"},
	} {
		if !strings.Contains(c.event, c.want) {
			t.Errorf("the feed lacks %s in:\n%s", c.want, c.event)
		}
	}

	d = e.must(p.guests[0], answer, map[string]any{"id": tuesday, "v": 2, "r": "TENTATIVE", "s": "THIS"})
	if got := str(d, "respondToEntry.attendee.response"); got != "TENTATIVE" {
		t.Errorf("answering Tuesday again: got %s, want TENTATIVE", got)
	}
	const again = "map[response:TENTATIVE] map[accepted:0 declined:0 needsAction:1] 0 " +
		"[map[node:map[email:guest0-occreset@example.com response:TENTATIVE]] map[node:map[email:guest1-occreset@example.com response:NEEDS_ACTION]]]"
	if got := state(tuesday); got != again {
		t.Errorf("Tuesday answered again: %s, want %s", got, again)
	}
	e.consistent()
}
