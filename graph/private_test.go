package graph_test

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestPrivateEntries: a PRIVATE entry (and a private series' occurrences)
// shows whole to the calendar's owner and writers, to its organizer and to
// a reader invited to it, and redacted to other readers — title "Busy",
// no description, location or people, `redacted: true` — on every read
// path: the calendar's view, the agenda, node, changes, a live delivery;
// a FREE_BUSY member sees the busy time and nothing else; an invited
// non-member sees it whole; the owner's feed carries it with CLASS:PRIVATE.
// A writer's and a reader's reads in one instance, the view cache warm,
// never mix.
func TestPrivateEntries(t *testing.T) {
	e := newEnv(t)
	w := e.world("priv")
	invitedReader, guest, peeker := e.token("ireader-priv@example.com"), e.token("guest-priv@example.com"), e.token("peeker-priv@example.com")
	for _, tok := range []string{invitedReader, guest, peeker} {
		e.must(tok, provision, nil)
	}
	for email, role := range map[string]string{"ireader-priv@example.com": "READER", "peeker-priv@example.com": "FREE_BUSY"} {
		e.must(w.owner, `mutation($c: ID!, $e: String!, $r: Role!) { addMember(input: {calendarId: $c, email: $e, role: $r}) { membership { id } } }`,
			map[string]any{"c": w.calendarID, "e": email, "r": role})
	}
	reader := w.reader
	const live = `subscription($ids: [ID!]) { calendarChanges(calendarIds: $ids) { changes { node { ... on TimedEntry { title description redacted } } } } }`
	sub, wsub := e.dial(reader), e.dial(w.writer)
	sub.subscribe("1", live, map[string]any{"ids": []string{w.calendarID}})
	wsub.subscribe("1", live, map[string]any{"ids": []string{w.calendarID}})
	time.Sleep(100 * time.Millisecond)
	d := e.must(w.writer, `mutation($c: ID!) { createEntry(input: {calendarId: $c, title: "Secret interview", description: "Secret notes", location: "Secret room",
		visibility: PRIVATE, timing: {timed: {start: "2026-12-01T10:00:00Z", end: "2026-12-01T11:00:00Z"}}}) { entry { id visibility redacted title } } }`,
		map[string]any{"c": w.calendarID})
	id := str(d, "createEntry.entry.id")
	if str(d, "createEntry.entry.visibility") != "PRIVATE" || get(d, "createEntry.entry.redacted") != false {
		t.Fatalf("created: %v", d)
	}
	if got := fmt.Sprint(sub.delivery("1", 5*time.Second)); strings.Contains(got, "Secret") || !strings.Contains(got, "redacted:true") {
		t.Errorf("the reader's live delivery: %s", got)
	}
	if got := fmt.Sprint(wsub.delivery("1", 5*time.Second)); !strings.Contains(got, "Secret notes") || !strings.Contains(got, "redacted:false") {
		t.Errorf("the writer's live delivery: %s", got)
	}
	e.must(w.writer, `mutation($c: ID!) { createEntry(input: {calendarId: $c, title: "Secret weekly", visibility: PRIVATE,
		timing: {timed: {start: "2026-12-02T10:00:00Z", end: "2026-12-02T11:00:00Z"}}, recurrence: {rule: "FREQ=WEEKLY;COUNT=3"}}) { entry { id } } }`,
		map[string]any{"c": w.calendarID})
	e.must(w.writer, `mutation($id: ID!) { changeAttendees(input: {entryId: $id, add: [{email: "ireader-priv@example.com"}, {email: "guest-priv@example.com"}]}) { entry { id } } }`,
		map[string]any{"id": id})

	const fields = `title description location redacted visibility organizer { email } attendeeSummary { needsAction }`
	paths := map[string]func(tok string) string{
		"view": func(tok string) string {
			r := e.do(tok, `query($c: ID!) { calendar(id: $c) { entries(range: {dates: {start: "2026-12-01", end: "2026-12-03"}}) { entries { `+fields+` } } } }`, map[string]any{"c": w.calendarID})
			return r.Raw
		},
		"agenda": func(tok string) string {
			return e.do(tok, `{ viewer { agenda(range: {dates: {start: "2026-12-01", end: "2026-12-03"}}) { entries { `+fields+` } } } }`, nil).Raw
		},
		"node": func(tok string) string {
			return e.do(tok, `query($id: ID!) { node(id: $id) { ... on Entry { `+fields+` } } }`, map[string]any{"id": id}).Raw
		},
		"changes": func(tok string) string {
			return e.do(tok, `query($c: ID!) { calendar(id: $c) { changes { changes { node { ... on Entry { `+fields+` } } } } } }`, map[string]any{"c": w.calendarID}).Raw
		},
	}
	for name, read := range paths {
		for _, c := range []struct {
			who   string
			tok   string
			whole bool
		}{{"owner", w.owner, true}, {"writer", w.writer, true}, {"reader", reader, false}, {"invited reader", invitedReader, true}, {"reader again", reader, false}} {
			got := read(c.tok)
			if strings.Contains(got, `"errors"`) {
				t.Errorf("%s, %s: %s", name, c.who, got)
				continue
			}
			if has := strings.Contains(got, "Secret"); has != c.whole || !c.whole && !strings.Contains(got, `"title":"Busy"`) {
				t.Errorf("%s, %s (whole %v): %s", name, c.who, c.whole, got)
			}
			if !c.whole && (strings.Contains(got, "writer-priv") || strings.Contains(got, `"redacted":false`) && name != "changes" && name != "agenda") {
				t.Errorf("%s, %s shows people or an unredacted private entry: %s", name, c.who, got)
			}
		}
	}
	// The invited reader sees the whole entry, and the other private series redacted.
	if got := paths["view"](invitedReader); !strings.Contains(got, "Secret interview") || strings.Contains(got, "Secret weekly") {
		t.Errorf("the invited reader's view: %s", got)
	}
	// An invited non-member sees it whole through node and the agenda.
	if got := paths["node"](guest); !strings.Contains(got, "Secret interview") {
		t.Errorf("the invited guest: %s", got)
	}
	// A FREE_BUSY member: the busy time only, as ever.
	fb := e.do(peeker, `query($c: [ID!]!) { freeBusy(calendarIds: $c, range: {dates: {start: "2026-12-01", end: "2026-12-03"}}, timeZone: "UTC") {
		calendars { busy { start end } } } }`, map[string]any{"c": []string{w.calendarID}})
	if strings.Contains(fb.Raw, "Secret") || strings.Count(fb.Raw, `"start"`) != 2 {
		t.Errorf("FREE_BUSY: %s", fb.Raw)
	}
	if r := e.do(peeker, `query($id: ID!) { node(id: $id) { ... on Entry { title } } }`, map[string]any{"id": id}); r.code() != "FORBIDDEN" || strings.Contains(r.Raw, "Secret") {
		t.Errorf("FREE_BUSY node: %s", r.Raw)
	}
	// A reader cannot write the redacted values back: readers do not write.
	if r := e.do(reader, `mutation($id: ID!) { updateEntry(input: {id: $id, expectedVersion: 1, title: "Busy"}) { entry { id } } }`, map[string]any{"id": id}); r.code() != "FORBIDDEN" {
		t.Errorf("a reader's write: %s", r.Raw)
	}
	// The owner's feed carries the details, marked private.
	d = e.must(w.owner, rotate, map[string]any{"c": w.calendarID})
	_, ics, _ := e.getFeed(str(d, "rotateCalendarFeed.path"), "")
	if !strings.Contains(ics, "CLASS:PRIVATE") || !strings.Contains(ics, "SUMMARY:Secret interview") {
		t.Errorf("the feed lacks CLASS:PRIVATE or the details:\n%s", ics)
	}
	// Back to DEFAULT: the reader sees it whole.
	e.must(w.writer, `mutation($id: ID!) { updateEntry(input: {id: $id, expectedVersion: 1, visibility: null}) { entry { id } } }`, map[string]any{"id": id})
	if got := paths["node"](reader); !strings.Contains(got, "Secret interview") || !strings.Contains(got, `"visibility":"DEFAULT"`) {
		t.Errorf("after visibility null: %s", got)
	}
	if r := e.do(w.writer, `mutation($id: ID!) { updateEntry(input: {id: $id, expectedVersion: 2, visibility: SECRET}) { entry { id } } }`, map[string]any{"id": id}); r.code() == "" {
		t.Errorf("a bad visibility: %s", r.Raw)
	}
}
