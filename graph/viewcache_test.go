package graph_test

import (
	"fmt"
	"maps"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/calgraph/calgraph/graph/model"
	"github.com/calgraph/calgraph/internal/calendar"
)

// TestViewCache: the week view's and the members view's per-calendar
// Queries are answered from the store's view cache for calendars that did
// not change since the same view was read (and had settled), whichever
// instance wrote to them: a repeated view costs two waves; after another instance writes to one
// calendar, that calendar alone is read again, and shows the write; a
// mutation's payload reads its views afresh, and shows its own write.
func TestViewCache(t *testing.T) {
	e := newEnv(t, withWaveGate())
	const owner = "cache@example.com"
	tok := e.token(owner)
	e.must(tok, provision, nil)
	cals := seedCalendars(t, e, owner, 3, []string{"member@example.com"})
	seedEntries(t, e, owner, cals, 3)
	const week = `{ viewer { calendars(first: 10) { edges { node { calendar { id
		entries(range: {dates: {start: "2026-11-23", end: "2026-11-30"}}) { entries { title } }
		members(first: 10) { edges { node { role user { email } } } } } } } } } }`
	view := func() (map[string]int, []any) {
		e.rec.Reset()
		d := e.must(tok, week, nil)
		return planOf(e.rec.Calls()), get(d, "viewer.calendars.edges").([]any)
	}
	queries := func(plan map[string]int) map[string]int {
		q := map[string]int{}
		for k, n := range plan {
			if k[len("wave N "):] != "Query GSI1" && k[len("wave N "):len("wave N Query")] == "Query" {
				q[k[len("wave N "):]] += n
			}
		}
		return q
	}
	calendarOf := func(edges []any, id string) map[string]any {
		for _, edge := range edges {
			if c := get(edge, "node.calendar").(map[string]any); c["id"] == model.CalendarGID(id) {
				return c
			}
		}
		t.Fatalf("calendar %s not shown", id)
		return nil
	}

	first, shown := view()
	if want := map[string]int{"Query LSI1": 3, "Query LSI2": 3, "Query ": 3}; !maps.Equal(queries(first), want) {
		t.Fatalf("first view: got Queries %v, want %v (entries, series, members of each)", queries(first), want)
	}
	// The store caches reads at a calendar revision once it has seen it for
	// a second (internal/dynamo/viewcache.go): the view after that fills the
	// cache, the next is answered from it.
	time.Sleep(1100 * time.Millisecond)
	if filling, _ := view(); !maps.Equal(queries(filling), queries(first)) {
		t.Fatalf("the view filling the cache: got Queries %v, want %v", queries(filling), queries(first))
	}
	again, shownAgain := view()
	if q := queries(again); len(q) != 0 {
		t.Errorf("repeated view: got Queries %v, want none", q)
	}
	if !reflect.DeepEqual(shownAgain, shown) {
		t.Errorf("repeated view differs:\n%v\n%v", shownAgain, shown)
	}

	// Another instance (ownerStore is a store of its own) changes calendar 0.
	s, as := ownerStore(t, e, owner)
	start := time.Date(2026, 11, 25, 14, 0, 0, 0, time.UTC)
	if _, _, err := s.CreateEntry(as, calendar.NewEntry{CalendarID: cals[0], Title: "elsewhere",
		Timing: calendar.Timing{Timed: &calendar.TimedTiming{Start: start, End: start.Add(time.Hour)}}}); err != nil {
		t.Fatal(err)
	}
	after, shownAfter := view()
	if want := map[string]int{"Query LSI1": 1, "Query LSI2": 1, "Query ": 1}; !maps.Equal(queries(after), want) {
		t.Errorf("after a write to one calendar: got Queries %v, want %v", queries(after), want)
	}
	if got := len(get(calendarOf(shownAfter, cals[0]), "entries.entries").([]any)); got != 5 {
		t.Errorf("after a write to it, calendar 0 shows %d entries, want 5", got)
	}
	if !reflect.DeepEqual(calendarOf(shownAfter, cals[1]), calendarOf(shown, cals[1])) {
		t.Error("calendar 1, unchanged, shows something else")
	}

	// A mutation whose payload reads the view of the calendar it writes to,
	// which the cache holds at the revision its permission check reads.
	d := e.must(tok, `mutation($c: ID!) { createEntry(input: {calendarId: $c, title: "mine",
		timing: {timed: {start: "2026-11-26T09:00:00Z", end: "2026-11-26T10:00:00Z"}}}) {
		entry { calendar { entries(range: {dates: {start: "2026-11-23", end: "2026-11-30"}}) { entries { title } } } } } }`,
		map[string]any{"c": model.CalendarGID(cals[1])})
	titles := fmt.Sprint(get(d, "createEntry.entry.calendar.entries.entries"))
	if got := len(get(d, "createEntry.entry.calendar.entries.entries").([]any)); got != 5 {
		t.Errorf("the mutation's payload shows %d entries of its calendar, want 5 (its own among them): %s", got, titles)
	}

	// A new member shows in the members view of its calendar.
	e.must(e.token("member2@example.com"), provision, nil)
	if _, _, err := s.AddMember(as, cals[2], "member2@example.com", calendar.RoleReader); err != nil {
		t.Fatal(err)
	}
	_, shownLast := view()
	if got := len(get(calendarOf(shownLast, cals[2]), "members.edges").([]any)); got != 3 {
		t.Errorf("after a member joined, calendar 2 shows %d members, want 3", got)
	}
}

// TestQueriesOverAWebSocketReadAfresh: a query sent over a WebSocket is read
// as a request of its own: after a write elsewhere, the same query on the same
// connection shows it (the connection's loaders would keep the calendar as
// first read, and name its old revision to the view cache).
func TestQueriesOverAWebSocketReadAfresh(t *testing.T) {
	t.Parallel() // its own server and table; it mostly waits for deliveries and quiet spells
	e := newEnv(t)
	w := e.world("wsquery")
	c := e.dial(w.reader)
	const week = `query($c: ID!) { calendar(id: $c) { entries(range: {dates: {start: "2026-11-23", end: "2026-11-30"}}) { entries { title } } } }`
	titles := func(id string) string {
		t.Helper()
		c.subscribe(id, week, map[string]any{"c": w.calendarID})
		m, err := c.next(2 * time.Second)
		if err != nil || m.Type != "next" || m.ID != id {
			t.Fatalf("query %s: got %+v, %v", id, m, err)
		}
		if done, err := c.next(2 * time.Second); err != nil || done.Type != "complete" {
			t.Fatalf("query %s: got %+v, %v after its answer, want complete", id, done, err)
		}
		return string(m.Payload)
	}
	titles("1")
	time.Sleep(1100 * time.Millisecond) // the revision settles: the next read is cached
	before := titles("2")
	e.must(w.writer, `mutation($c: ID!) { createEntry(input: {calendarId: $c, title: "over there",
		timing: {timed: {start: "2026-11-25T09:00:00Z", end: "2026-11-25T10:00:00Z"}}}) { entry { id } } }`,
		map[string]any{"c": w.calendarID})
	after := titles("3")
	if strings.Contains(before, "over there") || !strings.Contains(after, "over there") {
		t.Fatalf("the second query on the connection does not show the write made between them:\nbefore %s\nafter  %s", before, after)
	}
}
