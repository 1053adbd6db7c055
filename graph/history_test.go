package graph_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/calgraph/calgraph/internal/dynamo"
)

const historyOf = `query($id: ID!, $after: String) { node(id: $id) { ... on Entry {
	updatedBy { email }
	history(first: 1, after: $after) {
		edges { cursor node { action by { email } changes { field before after truncated } } }
		pageInfo { hasNextPage endCursor } } } } }`

// TestEntryHistoryThroughTheAPI: updatedBy names the last writer; history
// pages newest first with each change's fields; a reader of someone else's
// PRIVATE entry gets null, a stranger no entry at all.
func TestEntryHistoryThroughTheAPI(t *testing.T) {
	e := newEnv(t)
	w := e.world("hist")
	create := func(vis string) string {
		d := e.must(w.owner, `mutation($c: ID!, $v: Visibility) { createEntry(input: {calendarId: $c, title: "Review", visibility: $v,
			timing: {timed: {start: "2026-12-01T10:00:00Z", end: "2026-12-01T11:00:00Z"}}}) { entry { id } } }`,
			map[string]any{"c": w.calendarID, "v": vis})
		return str(d, "createEntry.entry.id")
	}
	open, private := create("DEFAULT"), create("PRIVATE")
	e.must(w.writer, `mutation($id: ID!) { updateEntry(input: {id: $id, expectedVersion: 1, title: "Design review",
		idempotencyKey: "hist-1"}) { entry { id } } }`, map[string]any{"id": open})

	var pages []string
	var after any
	for {
		d := e.must(w.reader, historyOf, map[string]any{"id": open, "after": after})
		if by := str(d, "node.updatedBy.email"); by != "writer-hist@example.com" {
			t.Errorf("updatedBy = %q, want the writer", by)
		}
		n := get(d, "node.history.edges.0.node").(map[string]any)
		var fields []string
		for _, c := range n["changes"].([]any) {
			c := c.(map[string]any)
			fields = append(fields, fmt.Sprintf("%v:%v→%v", c["field"], c["before"], c["after"]))
		}
		pages = append(pages, fmt.Sprintf("%s %s %s", n["action"], str(n, "by.email"), strings.Join(fields, " ")))
		if get(d, "node.history.pageInfo.hasNextPage") != true {
			break
		}
		after = str(d, "node.history.pageInfo.endCursor")
	}
	want := []string{
		"UPDATED writer-hist@example.com title:Review→Design review",
		"CREATED owner-hist@example.com calendarId:<nil>→" + w.calendarID + " title:<nil>→Review start:<nil>→2026-12-01T10:00:00Z end:<nil>→2026-12-01T11:00:00Z timeZone:<nil>→UTC",
	}
	if strings.Join(pages, "\n") != strings.Join(want, "\n") {
		t.Errorf("history pages:\n%s\nwant:\n%s", strings.Join(pages, "\n"), strings.Join(want, "\n"))
	}

	d := e.must(w.reader, historyOf, map[string]any{"id": private})
	if h := get(d, "node.history"); h != nil || get(d, "node.updatedBy") != nil {
		t.Errorf("a reader's view of a private entry: history %v, updatedBy %v; want both null", h, get(d, "node.updatedBy"))
	}
	if r := e.do(w.outsider, historyOf, map[string]any{"id": open}); r.code() != "NOT_FOUND" || get(r.Data, "node") != nil {
		t.Errorf("a stranger: code %q, node %v; want NOT_FOUND and no entry", r.code(), get(r.Data, "node"))
	}
	r := e.do(w.reader, historyOf, map[string]any{"id": open, "after": "nonsense"})
	if r.code() != "BAD_USER_INPUT" && r.code() != "INVALID" {
		t.Errorf("a bad cursor: code %q, want the invalid-input code", r.code())
	}
}

// TestHistoryCostsOneWave pins the request plan: the history of every entry
// of a week view of 3 calendars is one more wave, of one BatchGetItem (the
// access and the entry) and one Query (the history) per entry asked.
func TestHistoryCostsOneWave(t *testing.T) {
	e := newEnv(t, withWaveGate(), withoutViewCache())
	tok := e.token("histplan@example.com")
	e.must(tok, provision, nil)
	cals := seedCalendars(t, e, "histplan@example.com", 3, nil)
	seedEntriesWithout(t, e, "histplan@example.com", cals, 3)
	week := func(fields string) string {
		return `{ viewer { calendars(first: 10) { edges { node { calendar {
			entries(range: {dates: {start: "2026-11-23", end: "2026-11-30"}}) { entries { title ` + fields + ` } } } } } } } }`
	}
	var baseCalls, baseWaves int
	steadyPlan(t, e, func(e *env) (int, []string) {
		e.rec.Reset()
		e.must(tok, week(""), nil)
		calls := e.rec.Calls()
		baseCalls, baseWaves = len(calls), dynamo.Waves(calls)
		return len(calls), nil
	})
	steadyPlan(t, e, func(e *env) (int, []string) {
		e.rec.Reset()
		d := e.must(tok, week("history(first: 5) { edges { node { action } } }"), nil)
		calls := e.rec.Calls()
		plan := planOf(calls)
		var problems []string
		const entries = 9
		if w := dynamo.Waves(calls); w != baseWaves+1 || len(calls) != baseCalls+2*entries ||
			plan[fmt.Sprintf("wave %d BatchGetItem ", baseWaves+1)] != entries || plan[fmt.Sprintf("wave %d Query ", baseWaves+1)] != entries {
			problems = append(problems, fmt.Sprintf("got %d calls in %d waves, want %d in %d; plan:\n%s", len(calls), w, baseCalls+2*entries, baseWaves+1, describe(plan)))
		}
		if a := get(d, "viewer.calendars.edges.0.node.calendar.entries.entries.0.history.edges.0.node.action"); a != "CREATED" {
			problems = append(problems, fmt.Sprintf("first entry's history starts with %v, want CREATED", a))
		}
		return len(calls), problems
	})
}

// TestHistoryThroughSync: the change log's Change.node is an Entry like any
// other, so a sync client reads what changed in it there.
func TestHistoryThroughSync(t *testing.T) {
	e := newEnv(t)
	w := e.world("histsync")
	d := e.must(w.owner, `mutation($c: ID!) { createEntry(input: {calendarId: $c, title: "Review",
		timing: {timed: {start: "2026-12-01T10:00:00Z", end: "2026-12-01T11:00:00Z"}}}) { entry { id } } }`, map[string]any{"c": w.calendarID})
	id := str(d, "createEntry.entry.id")
	e.must(w.writer, `mutation($id: ID!) { updateEntry(input: {id: $id, expectedVersion: 1, location: "Room 4"}) { entry { id } } }`, map[string]any{"id": id})
	d = e.must(w.reader, `query($c: ID!) { calendar(id: $c) { changes { changes { node { ... on Entry {
		updatedBy { email } history(first: 1) { edges { node { action changes { field after } } } } } } } } } }`, map[string]any{"c": w.calendarID})
	var got []string
	for _, c := range get(d, "calendar.changes.changes").([]any) {
		n, _ := c.(map[string]any)["node"].(map[string]any)
		if _, entry := n["history"]; !entry {
			continue // the calendar's and its members' changes
		}
		got = append(got, fmt.Sprint(str(n, "updatedBy.email"), " ", get(n, "history.edges.0.node.action"), " ", get(n, "history.edges.0.node.changes.0.field"), "=", get(n, "history.edges.0.node.changes.0.after")))
	}
	if want := "writer-histsync@example.com UPDATED location=Room 4"; len(got) != 1 || got[0] != want {
		t.Errorf("the change log's entries: %q, want [%q]", got, want)
	}
}
