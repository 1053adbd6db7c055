package graph_test

import (
	"fmt"
	"slices"
	"testing"
)

// TestMovingTheTimeResetsAnswers: through the API, a new title keeps an
// answer and a new time resets it: the invitee's viewerAttendee, the
// summary, the list's ACCEPTED filter and the inbox all read NEEDS_ACTION,
// and the invitee answers again with the version they hold.
func TestMovingTheTimeResetsAnswers(t *testing.T) {
	e := newEnv(t)
	p := e.party("reset", 1, 0, false)
	e.must(p.guests[0], respond, map[string]any{"id": p.entryID, "v": 1, "r": "ACCEPTED"})
	const read = `query($id: ID!) { node(id: $id) { ... on Entry { version viewerAttendee { response version }
		attendeeSummary { accepted needsAction headCount } attendees(response: [ACCEPTED]) { edges { node { email } } } } }
		viewer { invitations { edges { node { response } } } } }`
	state := func() (version int, got string) {
		d := e.must(p.guests[0], read, map[string]any{"id": p.entryID})
		return int(num(d, "node.version")), fmt.Sprint(get(d, "node.viewerAttendee"), get(d, "node.attendeeSummary"),
			len(asList(get(d, "node.attendees.edges"))), get(d, "viewer.invitations.edges"))
	}
	const accepted = "map[response:ACCEPTED version:2] map[accepted:1 headCount:1 needsAction:1] 1 [map[node:map[response:ACCEPTED]]]"
	v, got := state()
	if got != accepted {
		t.Fatalf("after the answer: %s, want %s", got, accepted)
	}
	e.must(p.owner, `mutation($id: ID!, $v: Int!) { updateEntry(input: {id: $id, expectedVersion: $v, title: "Talk (room 4)"}) { entry { id } } }`,
		map[string]any{"id": p.entryID, "v": v})
	v, got = state()
	if got != accepted {
		t.Errorf("after a new title: %s, want the answer kept: %s", got, accepted)
	}
	e.must(p.owner, `mutation($id: ID!, $v: Int!) { updateEntry(input: {id: $id, expectedVersion: $v,
		timing: {timed: {start: "2026-11-25T18:00:00Z", end: "2026-11-25T19:00:00Z", timeZone: "UTC"}}}) { entry { id } } }`,
		map[string]any{"id": p.entryID, "v": v})
	const reset = "map[response:NEEDS_ACTION version:2] map[accepted:0 headCount:0 needsAction:2] 0 [map[node:map[response:NEEDS_ACTION]]]"
	if _, got = state(); got != reset {
		t.Errorf("after a new time: %s, want %s", got, reset)
	}
	e.must(p.guests[0], respond, map[string]any{"id": p.entryID, "v": 2, "r": "ACCEPTED"})
	const again = "map[response:ACCEPTED version:3] map[accepted:1 headCount:1 needsAction:1] 1 [map[node:map[response:ACCEPTED]]]"
	if _, got = state(); got != again {
		t.Errorf("after answering again: %s, want %s", got, again)
	}
}

// TestADeclineBeforeAMoveIsVoid: an invitee who declined no longer sees the
// entry in their agenda; once the entry's time moves, their decline is
// void (NEEDS_ACTION), so the entry is back in their agenda and their
// invitation sync (read again after the move's entry change) says
// NEEDS_ACTION, not DECLINED.
func TestADeclineBeforeAMoveIsVoid(t *testing.T) {
	e := newEnv(t)
	p := e.party("void", 1, 0, false)
	guest := p.guests[0]
	_, before := e.invitationChangesOf(guest, "")
	e.must(guest, respond, map[string]any{"id": p.entryID, "v": 1, "r": "DECLINED"})
	e.consistent()
	if got := agendaTitles(e.must(guest, agendaWeek, nil)); len(got) != 0 {
		t.Fatalf("the agenda after declining: %v, want nothing", got)
	}
	_, token := e.invitationChangesOf(guest, "")
	d := e.must(p.owner, `query($id: ID!) { node(id: $id) { ... on Entry { version } } }`, map[string]any{"id": p.entryID})
	e.must(p.owner, `mutation($id: ID!, $v: Int!) { updateEntry(input: {id: $id, expectedVersion: $v,
		timing: {timed: {start: "2026-11-26T18:00:00Z", end: "2026-11-26T19:00:00Z", timeZone: "UTC"}}}) { entry { id } } }`,
		map[string]any{"id": p.entryID, "v": num(d, "node.version")})
	e.consistent()
	if got, want := agendaTitles(e.must(guest, agendaWeek, nil)), []string{"Talk/INVITED"}; !slices.Equal(got, want) {
		t.Errorf("the agenda after the move: %v, want %v", got, want)
	}
	// The move wrote no record in the guest's log (it would cost one action
	// per attendee in the entry's write): a full read shows the reset.
	if got, _ := e.invitationChangesOf(guest, token); len(got) != 0 {
		t.Errorf("changes since the decline: %v, want none recorded", got)
	}
	d = e.must(guest, invitationSync, map[string]any{"t": nil})
	if got := str(d, "viewer.invitationChanges.changes.0.invitation.response"); got != "NEEDS_ACTION" {
		t.Errorf("a full invitation sync after the move: %s, want NEEDS_ACTION", got)
	}
	// The decline's record, read after the move, tells the answer as it is.
	d = e.must(guest, invitationSync, map[string]any{"t": before})
	if got := str(d, "viewer.invitationChanges.changes.0.invitation.response"); got != "NEEDS_ACTION" {
		t.Errorf("the decline's record read after the move: %s, want NEEDS_ACTION", got)
	}
}
