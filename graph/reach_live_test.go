package graph_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"
)

// How an invited user who is no member of an entry's calendar follows
// their invitations: invitationChanges, and INVITATION deliveries.

const invitationSync = `query($t: String) { viewer { invitationChanges(syncToken: $t) { hasMore syncToken
	changes { entryId removed invitation { response waitlisted entry { title } } } } } }`

// held is the party's invitation as the first read finds it, which later
// reads within the log's overlap window may bring again (a sync may repeat
// what a client holds as it is, never leave anything out).
const held = "Talk NEEDS_ACTION"

// invitationChangesOf reads the viewer's invitation changes after token to
// the end, as "<title or entry ID> <response>[ waitlisted]" or
// "<entry ID> removed", and returns the last token; from a token, held is
// left out.
func (e *env) invitationChangesOf(tok, token string) ([]string, string) {
	e.t.Helper()
	var out []string
	for {
		var t any
		if token != "" {
			t = token
		}
		d := e.must(tok, invitationSync, map[string]any{"t": t})
		for _, c := range asList(get(d, "viewer.invitationChanges.changes")) {
			switch {
			case get(c, "removed") == true:
				out = append(out, str(c, "entryId")+" removed")
			case get(c, "invitation.waitlisted") == true:
				out = append(out, str(c, "invitation.entry.title")+" "+str(c, "invitation.response")+" waitlisted")
			default:
				out = append(out, str(c, "invitation.entry.title")+" "+str(c, "invitation.response"))
			}
		}
		out = slices.DeleteFunc(out, func(s string) bool { return s == held })
		token = str(d, "viewer.invitationChanges.syncToken")
		if get(d, "viewer.invitationChanges.hasMore") != true {
			return out, token
		}
	}
}

// TestInvitationChangesResume: an invited user who is no member syncs their
// own invitations: all of them first, then from the token each invitation
// made, answered, seated from the waitlist or gone since, once, and
// nothing of anyone else's.
func TestInvitationChangesResume(t *testing.T) {
	e := newEnv(t)
	p := e.party("sync", 2, 0, false)
	guest, other, cal := p.guests[0], p.guests[1], e.calendarOf(p.owner)
	d := e.must(guest, invitationSync, nil)
	token := str(d, "viewer.invitationChanges.syncToken")
	if got := asList(get(d, "viewer.invitationChanges.changes")); len(got) != 1 || str(got[0], "invitation.entry.title") != "Talk" {
		t.Fatalf("full read: got %v, want the one invitation", d)
	}
	newEntry := func(title string) string {
		d := e.must(p.owner, `mutation($c: ID!, $t: String!) { createEntry(input: {calendarId: $c, title: $t,
			timing: {timed: {start: "2026-11-25T10:00:00Z", end: "2026-11-25T11:00:00Z", timeZone: "UTC"}}}) { entry { id } } }`,
			map[string]any{"c": cal, "t": title})
		return str(d, "createEntry.entry.id")
	}
	change := func(id, field, email string) {
		e.must(p.owner, `mutation($id: ID!, $e: String!) { changeAttendees(input: {entryId: $id, `+field+`: [{email: $e}]}) { entry { id } } }`,
			map[string]any{"id": id, "e": email})
	}
	// Another entry, invited to: seated from the waitlist when the other
	// guest declines.
	limited := newEntry("Limited")
	e.must(p.owner, `mutation($id: ID!) { updateEntry(input: {id: $id, expectedVersion: 1, capacity: 1, waitlist: true}) { entry { id } } }`,
		map[string]any{"id": limited})
	change(limited, "add", "guest1-sync@example.com")
	change(limited, "add", "guest0-sync@example.com")
	e.must(other, respond, map[string]any{"id": limited, "v": 1, "r": "ACCEPTED"})
	e.must(guest, respond, map[string]any{"id": limited, "v": 1, "r": "ACCEPTED"})
	got, token2 := e.invitationChangesOf(guest, token)
	if want := []string{"Limited ACCEPTED waitlisted"}; !slices.Equal(got, want) {
		t.Errorf("after the invitation and the answer: got %v, want %v", got, want)
	}
	e.must(other, respond, map[string]any{"id": limited, "v": 2, "r": "DECLINED"})
	got, token3 := e.invitationChangesOf(guest, token2)
	if want := []string{"Limited ACCEPTED"}; !slices.Equal(got, want) {
		t.Errorf("after the promotion: got %v, want %v", got, want)
	}
	// Removed from one entry, the other deleted; an invitation of someone
	// else is not theirs.
	gone := newEntry("Gone")
	change(gone, "add", "guest0-sync@example.com")
	e.must(p.owner, `mutation($id: ID!) { changeAttendees(input: {entryId: $id, remove: ["guest0-sync@example.com"]}) { entry { id } } }`,
		map[string]any{"id": gone})
	change(newEntry("Theirs"), "add", "guest1-sync@example.com")
	e.must(p.owner, `mutation($id: ID!) { deleteEntry(input: {id: $id, expectedVersion: 2}) { deletedEntryId } }`, map[string]any{"id": limited})
	got, token4 := e.invitationChangesOf(guest, token3)
	slices.Sort(got)
	if want := slices.Sorted(slices.Values([]string{gone + " removed", limited + " removed"})); !slices.Equal(got, want) {
		t.Errorf("after a removal and a deletion: got %v, want %v", got, want)
	}
	if got, _ := e.invitationChangesOf(guest, token4); len(got) != 0 {
		t.Errorf("from the last token: got %v, want nothing", got)
	}
	// From the first token, everything since, each once as it is now.
	got, _ = e.invitationChangesOf(guest, token)
	slices.Sort(got)
	if want := slices.Sorted(slices.Values([]string{gone + " removed", limited + " removed"})); !slices.Equal(got, want) {
		t.Errorf("from the first token: got %v, want %v", got, want)
	}
	// Their calendar list holds none of it.
	if d := e.must(guest, `query($t: String) { viewer { calendarListChanges(syncToken: $t) { changes { calendarId } } } }`, map[string]any{"t": token}); len(asList(get(d, "viewer.calendarListChanges.changes"))) != 0 {
		t.Errorf("their calendar list: got %v, want nothing", d)
	}
	e.consistent()
}

const invitedSubscription = `subscription { calendarChanges { kind calendarId syncToken
	changes { type id deleted node { ... on TimedEntry { title calendar { name viewerRole } } } } } }`

// collect reads deliveries of subscription id until none comes for quiet,
// as "<kind> <title, or -deleted, or null>[ token]" each change.
func collect(c *wsClient, id string, quiet time.Duration) ([]string, []string) {
	c.t.Helper()
	var out, tokens []string
	for {
		m, err := c.next(quiet)
		if err != nil {
			return out, tokens
		}
		if m.Type != "next" || m.ID != id || hasErrors(m.Payload) {
			c.t.Fatalf("got %s %s %s, want a delivery of %s", m.Type, m.ID, m.Payload, id)
		}
		var r struct {
			Data map[string]any `json:"data"`
		}
		if err := json.Unmarshal(m.Payload, &r); err != nil {
			c.t.Fatal(err)
		}
		d := r.Data["calendarChanges"]
		if tok := str(d, "syncToken"); tok != "" && str(d, "kind") == "INVITATION" {
			tokens = append(tokens, tok)
		}
		for _, ch := range asList(get(d, "changes")) {
			what := str(ch, "node.title")
			switch {
			case get(ch, "deleted") == true:
				what = "-deleted"
			case what == "":
				what = "null"
			case str(ch, "node.calendar.viewerRole") != "INVITED":
				what += " as " + str(ch, "node.calendar.viewerRole")
			}
			out = append(out, str(d, "kind")+" "+what)
		}
	}
}

// TestSubscriptionDeliversInvitations: a user invited to entries of a
// calendar they do not read, subscribed to all they read, learns of each
// invitation made, answered and removed and of those entries' edits, and
// of nothing else of that calendar; the token of an invitation delivery
// resumes their invitation sync without a gap.
func TestSubscriptionDeliversInvitations(t *testing.T) {
	t.Parallel() // its own server and table; it mostly waits for deliveries and quiet spells
	e := newEnv(t)
	p := e.party("live", 1, 0, false)
	guest, cal := p.guests[0], e.calendarOf(p.owner)
	d := e.must(p.owner, `mutation($c: ID!) { createEntry(input: {calendarId: $c, title: "Secret",
		timing: {timed: {start: "2026-11-24T10:00:00Z", end: "2026-11-24T11:00:00Z", timeZone: "UTC"}}}) { entry { id } } }`,
		map[string]any{"c": cal})
	secret := str(d, "createEntry.entry.id")
	c := e.dial(guest)
	c.subscribe("1", invitedSubscription, nil)
	e.subscribed(1)
	retitle := func(id string, v int, title string) {
		e.must(p.owner, `mutation($id: ID!, $v: Int!, $t: String!) { updateEntry(input: {id: $id, expectedVersion: $v, title: $t}) { entry { id } } }`,
			map[string]any{"id": id, "v": v, "t": title})
	}
	const quiet = 3 * time.Second // a delivery under -race on a loaded 2-core machine took over 1.5 s
	retitle(p.entryID, 2, "Talk, moved")
	retitle(secret, 1, "Secret, renamed")
	if got, _ := collect(c, "1", quiet); !slices.Equal(got, []string{"INVITATION Talk, moved"}) {
		t.Errorf("after two edits: got %v, want the invited entry's alone", got)
	}
	// Invited to the other entry: it follows from now on.
	e.must(p.owner, `mutation($id: ID!) { changeAttendees(input: {entryId: $id, add: [{email: "guest0-live@example.com"}]}) { entry { id } } }`,
		map[string]any{"id": secret})
	got, tokens := collect(c, "1", quiet)
	if !slices.Contains(got, "INVITATION Secret, renamed") || len(tokens) == 0 || slices.ContainsFunc(got, func(s string) bool { return !strings.HasPrefix(s, "INVITATION Secret, renamed") }) {
		t.Errorf("after an invitation: got %v (tokens %v), want the entry with a token", got, tokens)
	}
	from := tokens[len(tokens)-1]
	e.must(guest, respond, map[string]any{"id": secret, "v": 1, "r": "TENTATIVE"})
	if got, tokens = collect(c, "1", quiet); len(got) == 0 || len(tokens) == 0 {
		t.Errorf("after their answer: got %v (tokens %v), want a delivery with a token", got, tokens)
	}
	// Removed from the first: a tombstone, and nothing of it after.
	e.must(p.owner, `mutation($id: ID!) { changeAttendees(input: {entryId: $id, remove: ["guest0-live@example.com"]}) { entry { id } } }`,
		map[string]any{"id": p.entryID})
	if got, _ = collect(c, "1", quiet); !slices.Contains(got, "INVITATION -deleted") || slices.ContainsFunc(got, func(s string) bool { return strings.Contains(s, "Talk") }) {
		t.Errorf("after the removal: got %v, want a tombstone and nothing of the entry", got)
	}
	retitle(p.entryID, 3, "Talk, again")
	if got, _ = collect(c, "1", quiet); len(got) != 0 {
		t.Errorf("an entry they were removed from: got %v, want nothing", got)
	}
	// The token of a delivery resumes their invitation sync: the answer and
	// the removal since.
	changes, _ := e.invitationChangesOf(guest, from)
	slices.Sort(changes)
	want := slices.Sorted(slices.Values([]string{p.entryID + " removed", "Secret, renamed TENTATIVE"}))
	if !slices.Equal(changes, want) {
		t.Errorf("resumed from a delivery's token: got %v, want %v", changes, want)
	}
}
