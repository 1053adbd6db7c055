package graph_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Resuming INVITATION deliveries: a client that reconnects with the token
// of the last INVITATION delivery it got receives what it missed of them,
// then live ones.

const resumedInvitations = `subscription($r: String) { calendarChanges(resumeInvitations: $r) { kind calendarId syncToken
	changes { type id deleted node { ... on TimedEntry { title calendar { name viewerRole } } } } } }`

// invitedWorld is a guest invited to two entries of a calendar they do not
// read, subscribed and holding the token of a first INVITATION delivery.
type invitedWorld struct {
	p            party
	guest, other string // the guest's token; the second entry's ID
	from         string // the token of the last delivery before going away
}

func (e *env) invitedWorld(tag string) invitedWorld {
	e.t.Helper()
	p := e.party(tag, 1, 0, false)
	w := invitedWorld{p: p, guest: p.guests[0]}
	d := e.must(p.owner, `mutation($c: ID!) { createEntry(input: {calendarId: $c, title: "Other",
		timing: {timed: {start: "2026-11-25T10:00:00Z", end: "2026-11-25T11:00:00Z", timeZone: "UTC"}}}) { entry { id } } }`,
		map[string]any{"c": e.calendarOf(p.owner)})
	w.other = str(d, "createEntry.entry.id")
	e.must(p.owner, `mutation($id: ID!, $e: String!) { changeAttendees(input: {entryId: $id, add: [{email: $e}]}) { entry { id } } }`,
		map[string]any{"id": w.other, "e": "guest0-" + tag + "@example.com"})
	c := e.dial(w.guest)
	c.subscribe("1", resumedInvitations, nil)
	e.subscribed(1) // registered: a change before it would not be its to deliver
	e.must(w.guest, respond, map[string]any{"id": p.entryID, "v": 1, "r": "ACCEPTED"})
	got, tokens := collect(c, "1", resumeQuiet)
	if len(tokens) == 0 {
		e.t.Fatalf("after their answer: got %v, want a delivery with a token", got)
	}
	w.from = tokens[len(tokens)-1]
	_ = c.conn.CloseNow()
	return w
}

// resumeQuiet is how long a client waits for more deliveries: past a poll.
// subscribed waits until n subscriptions run on the env's hub: each has
// joined its logs, and gets every change committed from then on (a fixed
// sleep was too short on a loaded machine).
func (e *env) subscribed(n int) {
	e.t.Helper()
	for deadline := time.Now().Add(20 * time.Second); e.hub.Subscriptions() < n; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			e.t.Fatalf("%d subscriptions running after 20 s, want %d", e.hub.Subscriptions(), n)
		}
	}
}

const resumeQuiet = 3 * time.Second // a delivery under -race on a loaded 2-core machine took over 1.5 s

func (e *env) retitle(token, id string, version int, title string) {
	e.t.Helper()
	e.must(token, `mutation($id: ID!, $v: Int!, $t: String!) { updateEntry(input: {id: $id, expectedVersion: $v, title: $t}) { entry { id } } }`,
		map[string]any{"id": id, "v": version, "t": title})
}

// TestResumeInvitationDeliveries: away, the guest's invited entry is
// renamed, the other deleted, and they answer from another device; back
// with the last token, they get exactly those, in order, then live ones,
// and from the last token of those, nothing again.
func TestResumeInvitationDeliveries(t *testing.T) {
	t.Parallel() // its own server and table; it mostly waits for quiet spells
	e := newEnv(t)
	w := e.invitedWorld("rsm")
	e.retitle(w.p.owner, w.p.entryID, 2, "Talk, moved")
	e.must(w.p.owner, `mutation($id: ID!) { deleteEntry(input: {id: $id, expectedVersion: 1}) { deletedEntryId } }`, map[string]any{"id": w.other})
	e.must(w.guest, respond, map[string]any{"id": w.p.entryID, "v": 2, "r": "TENTATIVE"})

	c := e.dial(w.guest)
	c.subscribe("1", resumedInvitations, map[string]any{"r": w.from})
	got, _ := collect(c, "1", resumeQuiet)
	// The entry's edits (its log), then the deletion and the answer (the
	// guest's log): the deleted entry is no longer theirs, so its tombstone
	// comes as their invitation's removal.
	if want := []string{"INVITATION Talk, moved", "INVITATION -deleted", "INVITATION Talk, moved"}; !slices.Equal(got, want) {
		t.Fatalf("resumed: got %v, want %v", got, want)
	}
	e.retitle(w.p.owner, w.p.entryID, 3, "Talk, again")
	got, more := collect(c, "1", resumeQuiet)
	if want := []string{"INVITATION Talk, again"}; !slices.Equal(got, want) || len(more) == 0 {
		t.Fatalf("live after resuming: got %v (tokens %v), want %v with a token", got, more, want)
	}
	_ = c.conn.CloseNow()
	last := more[len(more)-1]
	c = e.dial(w.guest)
	c.subscribe("1", resumedInvitations, map[string]any{"r": last})
	if got, _ := collect(c, "1", resumeQuiet); len(got) != 0 {
		t.Errorf("resumed from the last token: got %v, want nothing", got)
	}
	// The token continues their invitation sync too.
	if changes, _ := e.invitationChangesOf(w.guest, last); len(changes) != 0 {
		t.Errorf("invitationChanges from the last token: got %v, want nothing", changes)
	}
}

// TestResumeInvitationsAfterRemoval: a guest removed from an entry while
// away gets their invitation's removal, and not the edit made after it.
func TestResumeInvitationsAfterRemoval(t *testing.T) {
	t.Parallel() // its own server and table
	e := newEnv(t)
	w := e.invitedWorld("rmv")
	e.must(w.p.owner, `mutation($id: ID!) { changeAttendees(input: {entryId: $id, remove: ["guest0-rmv@example.com"]}) { entry { id } } }`,
		map[string]any{"id": w.p.entryID})
	e.retitle(w.p.owner, w.p.entryID, 2, "Talk, secret now")
	c := e.dial(w.guest)
	c.subscribe("1", resumedInvitations, map[string]any{"r": w.from})
	if got, _ := collect(c, "1", resumeQuiet); !slices.Equal(got, []string{"INVITATION -deleted"}) {
		t.Errorf("resumed: got %v, want the removal alone", got)
	}
}

// TestResumeInvitationsRefused: a token that is not the viewer's, or no
// token at all, fails the subscription with BAD_USER_INPUT.
func TestResumeInvitationsRefused(t *testing.T) {
	t.Parallel() // its own server and table
	e := newEnv(t)
	w := e.invitedWorld("ref")
	c := e.dial(w.p.owner)
	for i, token := range []string{"garbage", "", w.from} {
		id := string(rune('a' + i))
		c.subscribe(id, resumedInvitations, map[string]any{"r": token})
		m, err := c.next(5 * time.Second)
		if err != nil || m.ID != id || !hasErrors(m.Payload) || !strings.Contains(string(m.Payload), `"code":"BAD_USER_INPUT","field":"resumeInvitations"`) {
			t.Errorf("token %.20q: %s %s %v, want an error with BAD_USER_INPUT", token, m.Type, m.Payload, err)
		}
		if m, err := c.next(5 * time.Second); err != nil || m.Type != "complete" || m.ID != id {
			t.Errorf("token %.20q: %s %s %v, want the subscription complete", token, m.Type, m.Payload, err)
		}
	}
}

// TestResumeInvitationsRacingEdits: while the owner renames the invited
// entry again and again, the guest drops their connection and resumes with
// their last token, over and over. No delivery takes the entry back to an
// older title, no edit comes twice (never more deliveries than edits), and
// the last title comes. (A title may come twice in a row: a read shows the
// entry as it is when read, which may be the next edit's, whose record the
// next read finds; calendar deliveries do the same.)
func TestResumeInvitationsRacingEdits(t *testing.T) {
	t.Parallel() // its own server and table; seconds of writes and reconnections
	e := newEnv(t)
	w := e.invitedWorld("race")
	const edits = 30
	done := make(chan struct{})
	var failed []string // the writer's (it may not stop the test)
	go func() {
		defer close(done)
		for i := 1; i <= edits; i++ {
			r := e.do(w.p.owner, `mutation($id: ID!, $v: Int!, $t: String!) { updateEntry(input: {id: $id, expectedVersion: $v, title: $t}) { entry { id } } }`,
				map[string]any{"id": w.p.entryID, "v": i + 1, "t": fmt.Sprint("t", i)})
			if len(r.Errors) > 0 {
				failed = append(failed, r.Raw)
				return
			}
			time.Sleep(40 * time.Millisecond) // edits spread over reconnections
		}
	}()
	defer func() { <-done }()
	var titles []int
	token, rounds := w.from, 0
	take := func(c *wsClient, until time.Time, quiet time.Duration) {
		for time.Now().Before(until) {
			got, tokens := collect(c, "1", quiet)
			for _, s := range got {
				n, err := strconv.Atoi(strings.TrimPrefix(s, "INVITATION t"))
				if err != nil {
					t.Errorf("round %d: got %q, want a renamed entry", rounds, s)
					continue
				}
				titles = append(titles, n)
			}
			if len(tokens) > 0 {
				token = tokens[len(tokens)-1]
			}
			if len(got) == 0 && quiet > 100*time.Millisecond {
				return
			}
		}
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for running := true; running; {
		select {
		case <-done:
			running = false
		default:
		}
		c := e.dial(w.guest)
		c.subscribe("1", resumedInvitations, map[string]any{"r": token})
		rounds++
		take(c, time.Now().Add(time.Duration(50+rng.IntN(200))*time.Millisecond), 20*time.Millisecond)
		_ = c.conn.CloseNow()
		time.Sleep(time.Duration(20+rng.IntN(150)) * time.Millisecond)
	}
	if len(failed) > 0 {
		t.Fatalf("an edit failed: %v", failed)
	}
	// One more edit while away, then back until quiet.
	e.retitle(w.p.owner, w.p.entryID, edits+2, fmt.Sprint("t", edits+1))
	c := e.dial(w.guest)
	c.subscribe("1", resumedInvitations, map[string]any{"r": token})
	take(c, time.Now().Add(time.Minute), resumeQuiet)
	if !slices.IsSorted(titles) || len(titles) == 0 || titles[len(titles)-1] != edits+1 || len(titles) > edits+1 {
		t.Errorf("over %d connections: delivered titles %v, want them in order, at most %d, ending with t%d", rounds, titles, edits+1, edits+1)
	}
	if rounds < 3 {
		t.Errorf("resumed only %d times", rounds)
	}
	t.Logf("%d connections, delivered titles %v", rounds, titles)
}

// TestResumeInvitationsOfTwoCalendars: invited to entries of two calendars
// they do not read, one renamed in each while away, the guest gets both
// on resuming, and from the token after them, nothing again: the token's
// one position serves both calendars' logs.
func TestResumeInvitationsOfTwoCalendars(t *testing.T) {
	t.Parallel() // its own server and table; it mostly waits for quiet spells
	e := newEnv(t)
	w := e.invitedWorld("two")
	d := e.must(w.p.owner, `mutation { createCalendar(input: {name: "Second"}) { calendar { id } } }`, nil)
	d = e.must(w.p.owner, `mutation($c: ID!) { createEntry(input: {calendarId: $c, title: "Elsewhere",
		timing: {timed: {start: "2026-11-26T10:00:00Z", end: "2026-11-26T11:00:00Z", timeZone: "UTC"}}}) { entry { id } } }`,
		map[string]any{"c": str(d, "createCalendar.calendar.id")})
	elsewhere := str(d, "createEntry.entry.id")
	e.must(w.p.owner, `mutation($id: ID!) { changeAttendees(input: {entryId: $id, add: [{email: "guest0-two@example.com"}]}) { entry { id } } }`,
		map[string]any{"id": elsewhere})
	// Back for the new invitation, and away again with the token after it.
	// (An invitation made while away may come twice, as it is: its entry's
	// changes in its calendar's log, then the invitation in the guest's.)
	c := e.dial(w.guest)
	c.subscribe("1", resumedInvitations, map[string]any{"r": w.from})
	got, tokens := collect(c, "1", resumeQuiet)
	if len(got) == 0 || slices.ContainsFunc(got, func(s string) bool { return s != "INVITATION Elsewhere" }) || len(tokens) == 0 {
		t.Fatalf("resumed after the invitation: got %v (tokens %v), want the new invitation", got, tokens)
	}
	_ = c.conn.CloseNow()
	e.retitle(w.p.owner, elsewhere, 1, "Elsewhere, moved")
	e.retitle(w.p.owner, w.p.entryID, 2, "Talk, moved")
	c = e.dial(w.guest)
	c.subscribe("1", resumedInvitations, map[string]any{"r": tokens[len(tokens)-1]})
	got, tokens = collect(c, "1", resumeQuiet)
	slices.Sort(got)
	if want := []string{"INVITATION Elsewhere, moved", "INVITATION Talk, moved"}; !slices.Equal(got, want) || len(tokens) == 0 {
		t.Fatalf("resumed: got %v (tokens %v), want %v", got, tokens, want)
	}
	_ = c.conn.CloseNow()
	c = e.dial(w.guest)
	c.subscribe("1", resumedInvitations, map[string]any{"r": tokens[len(tokens)-1]})
	if got, _ := collect(c, "1", resumeQuiet); len(got) != 0 {
		t.Errorf("resumed from the last token: got %v, want nothing", got)
	}
}

// TestResumeInvitationsFromInvitationChanges: a client that reads its
// invitations (invitationChanges) and subscribes later from that read's
// token gets what changed since the read. (The token of a whole read
// remembers no records: what was written in the 30 s before it may come
// again, as it is, here the invitation.)
func TestResumeInvitationsFromInvitationChanges(t *testing.T) {
	t.Parallel() // its own server and table
	e := newEnv(t)
	p := e.party("ich", 1, 0, false)
	_, token := e.invitationChangesOf(p.guests[0], "")
	e.retitle(p.owner, p.entryID, 2, "Talk, moved")
	c := e.dial(p.guests[0])
	c.subscribe("1", resumedInvitations, map[string]any{"r": token})
	if got, _ := collect(c, "1", resumeQuiet); len(got) == 0 || slices.ContainsFunc(got, func(s string) bool { return s != "INVITATION Talk, moved" }) {
		t.Errorf("resumed from an invitationChanges token: got %v, want the edit since", got)
	}
}
