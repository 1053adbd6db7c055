package graph_test

import (
	"fmt"
	"strings"
	"testing"
)

// TestSearch drives Viewer.search through the handler: a reader finds an
// entry by a prefix of an accented word with UTF-16 highlight offsets, pages
// through hits with the cursor, and never finds a PRIVATE entry's words; a
// FREE_BUSY member finds nothing; bad input fails with BAD_USER_INPUT on
// its argument.
func TestSearch(t *testing.T) {
	e := newEnv(t)
	w := e.world("search")
	peeker := e.token("peeker-search@example.com")
	e.must(peeker, provision, nil)
	e.must(w.owner, `mutation($c: ID!) { addMember(input: {calendarId: $c, email: "peeker-search@example.com", role: FREE_BUSY}) { membership { id } } }`,
		map[string]any{"c": w.calendarID})
	create := func(title, vis string) {
		e.must(w.writer, fmt.Sprintf(`mutation($c: ID!) { createEntry(input: {calendarId: $c, title: %q, visibility: %s,
			timing: {timed: {start: "2030-12-01T10:00:00Z", end: "2030-12-01T11:00:00Z"}}}) { entry { id } } }`, title, vis),
			map[string]any{"c": w.calendarID})
	}
	create("😀 Zahnarzt Müller", "DEFAULT")
	create("Müllabfuhr", "DEFAULT")
	create("Müller salary talk", "PRIVATE")

	const q = `query($q: String!, $first: Int, $after: String) { viewer { search(query: $q, first: $first, after: $after) {
		edges { cursor score node { title } highlights { field tagIndex start length } } pageInfo { hasNextPage endCursor } } } }`
	d := e.must(w.reader, q, map[string]any{"q": "ZAHN mull"})
	if got := fmt.Sprint(get(d, "viewer.search.edges")); got != "[map[cursor:"+str(d, "viewer.search.edges.0.cursor")+
		" highlights:[map[field:TITLE length:8 start:3 tagIndex:0] map[field:TITLE length:6 start:12 tagIndex:0]] node:map[title:😀 Zahnarzt Müller] score:16]]" {
		t.Errorf("reader's hits for ZAHN mull: %s", got)
	}
	d = e.must(w.reader, q, map[string]any{"q": "müll", "first": 1})
	first := str(d, "viewer.search.edges.0.node.title")
	if get(d, "viewer.search.pageInfo.hasNextPage") != true {
		t.Fatalf("page 1 of müll: %v", d)
	}
	d = e.must(w.reader, q, map[string]any{"q": "müll", "first": 1, "after": str(d, "viewer.search.pageInfo.endCursor")})
	second := str(d, "viewer.search.edges.0.node.title")
	if pair := first + "|" + second; pair != "Müllabfuhr|😀 Zahnarzt Müller" && pair != "😀 Zahnarzt Müller|Müllabfuhr" || get(d, "viewer.search.pageInfo.hasNextPage") != false {
		t.Errorf("the reader's two pages of müll: %q then %q (%v)", first, second, d)
	}
	if d := e.must(w.owner, q, map[string]any{"q": "salary"}); len(get(d, "viewer.search.edges").([]any)) != 1 {
		t.Errorf("the owner does not find the private entry: %v", d)
	}
	for who, tok := range map[string]string{"reader": w.reader, "free/busy member": peeker} {
		if d := e.must(tok, q, map[string]any{"q": "salary"}); len(get(d, "viewer.search.edges").([]any)) != 0 {
			t.Errorf("the %s finds the private entry: %v", who, d)
		}
	}
	if d := e.must(peeker, q, map[string]any{"q": "zahnarzt"}); len(get(d, "viewer.search.edges").([]any)) != 0 {
		t.Errorf("the free/busy member finds an entry: %v", d)
	}

	strangers := str(e.must(w.outsider, `mutation { createCalendar(input: {name: "Not shared"}) { calendar { id } } }`, nil), "createCalendar.calendar.id")
	for _, tc := range []struct {
		name, query string
		vars        map[string]any
		field       string
	}{
		{"10 KB query", q, map[string]any{"q": strings.Repeat("x", 10240)}, "query"},
		{"empty query", q, map[string]any{"q": ""}, "query"},
		{"first 0", q, map[string]any{"q": "x", "first": 0}, "first"},
		{"first 1000", q, map[string]any{"q": "x", "first": 1000}, "first"},
		{"bad cursor", q, map[string]any{"q": "x", "after": "nope"}, "after"},
		{"unknown calendar", `query($q: String!, $c: [ID!]) { viewer { search(query: $q, calendarIds: $c) { edges { cursor } } } }`,
			map[string]any{"q": "x", "c": []string{strangers}}, "calendarIds"},
		{"free/busy calendar", `query($q: String!, $c: [ID!]) { viewer { search(query: $q, calendarIds: $c) { edges { cursor } } } }`,
			map[string]any{"q": "x", "c": []string{w.calendarID}}, "calendarIds"},
	} {
		tok := w.reader
		if tc.name == "free/busy calendar" {
			tok = peeker
		}
		r := e.do(tok, tc.query, tc.vars)
		if r.code() != "BAD_USER_INPUT" || r.Errors[0].Extensions.Field != tc.field {
			t.Errorf("%s: got %s", tc.name, r.Raw)
		}
	}
}

// TestSearchAttendees: a reader finds an entry by an attendee's name, the
// highlight naming the attendee by email with the word's place in their
// displayName.
func TestSearchAttendees(t *testing.T) {
	e := newEnv(t)
	w := e.world("search-people")
	d := e.must(w.writer, `mutation($c: ID!) { createEntry(input: {calendarId: $c, title: "Quarterly review",
		timing: {timed: {start: "2030-12-01T10:00:00Z", end: "2030-12-01T11:00:00Z"}}}) { entry { id } } }`, map[string]any{"c": w.calendarID})
	id := str(d, "createEntry.entry.id")
	e.must(w.writer, `mutation($id: ID!) { changeAttendees(input: {entryId: $id, add: [{email: "dana.scully@fbi.example", displayName: "Agent Dana Scully"}]}) { entry { id } } }`,
		map[string]any{"id": id})
	const q = `query($q: String!) { viewer { search(query: $q) { edges { score node { title } highlights { field attendeeEmail start length } } } } }`
	d = e.must(w.reader, q, map[string]any{"q": "scully"})
	want := "[map[highlights:[map[attendeeEmail:dana.scully@fbi.example field:ATTENDEE_NAME length:6 start:11] " +
		"map[attendeeEmail:dana.scully@fbi.example field:ATTENDEE_EMAIL length:6 start:5]] node:map[title:Quarterly review] score:2]]"
	if got := fmt.Sprint(get(d, "viewer.search.edges")); got != want {
		t.Errorf("the reader's hits for scully:\n got %s\nwant %s", got, want)
	}
	d = e.must(w.reader, q, map[string]any{"q": "review"})
	if got := fmt.Sprint(get(d, "viewer.search.edges.0.highlights")); got != "[map[attendeeEmail:<nil> field:TITLE length:6 start:10]]" {
		t.Errorf("a title's highlight: %s", got)
	}
}

// TestSearchBudget: a search's reads of the entries changed since its
// calendar was last searched count against the request's budget; over it,
// the search is REQUEST_TOO_LARGE. The first search's whole read of the
// calendar (into the instance's index) does not count.
func TestSearchBudget(t *testing.T) {
	e := newEnv(t, func(o *envOptions) { o.budget = 5 })
	w := e.world("search-budget")
	create := func(n int) {
		for i := range n {
			e.must(w.writer, fmt.Sprintf(`mutation($c: ID!) { createEntry(input: {calendarId: $c, title: "Filler %d",
				timing: {timed: {start: "2030-12-01T10:00:00Z", end: "2030-12-01T11:00:00Z"}}}) { entry { id } } }`, i),
				map[string]any{"c": w.calendarID})
		}
	}
	const q = `query { viewer { search(query: "nothing") { edges { cursor } } } }`
	create(8)
	e.must(w.owner, q, nil) // the build reads 8 entries: not charged
	create(8)
	if r := e.do(w.owner, q, nil); r.code() != "REQUEST_TOO_LARGE" {
		t.Errorf("a search reading 8 changed entries on a budget of 5: %s", r.Raw)
	}
}

// TestSearchInvitedReader: a READER invited to a PRIVATE entry and to a
// PRIVATE series finds both, shown whole, as Entry shows them to them; a
// reader not invited finds neither.
func TestSearchInvitedReader(t *testing.T) {
	e := newEnv(t)
	w := e.world("search-invited")
	other := e.token("other-reader-search@example.com")
	e.must(other, provision, nil)
	e.must(w.owner, `mutation($c: ID!) { addMember(input: {calendarId: $c, email: "other-reader-search@example.com", role: READER}) { membership { id } } }`,
		map[string]any{"c": w.calendarID})
	for _, tc := range []struct{ title, recurrence string }{{"Salary talk", ""}, {"Salary mentoring", `, recurrence: {rule: "FREQ=WEEKLY;COUNT=10"}`}} {
		d := e.must(w.writer, fmt.Sprintf(`mutation($c: ID!) { createEntry(input: {calendarId: $c, title: %q, visibility: PRIVATE%s,
			timing: {timed: {start: "2030-12-01T10:00:00Z", end: "2030-12-01T11:00:00Z"}}}) { entry { id } } }`, tc.title, tc.recurrence),
			map[string]any{"c": w.calendarID})
		e.must(w.writer, `mutation($id: ID!) { changeAttendees(input: {entryId: $id, add: [{email: "reader-search-invited@example.com"}]}) { entry { id } } }`,
			map[string]any{"id": str(d, "createEntry.entry.id")})
	}
	const q = `query { viewer { search(query: "salary", range: {dates: {start: "2030-11-01", end: "2030-12-31"}}) { edges { node { title redacted } } } } }`
	if got := fmt.Sprint(get(e.must(w.reader, q, nil), "viewer.search.edges")); got != "[map[node:map[redacted:false title:Salary mentoring]] map[node:map[redacted:false title:Salary talk]]]" &&
		got != "[map[node:map[redacted:false title:Salary talk]] map[node:map[redacted:false title:Salary mentoring]]]" {
		t.Errorf("the invited reader's hits: %s", got)
	}
	if got := fmt.Sprint(get(e.must(other, q, nil), "viewer.search.edges")); got != "[]" {
		t.Errorf("a reader not invited finds: %s", got)
	}
}
