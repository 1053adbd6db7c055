package graph_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

const createWithKey = `mutation($c: ID!, $k: String, $t: String!) { createEntry(input: {calendarId: $c, title: $t,
	timing: {allDay: {date: "2026-03-02"}}, idempotencyKey: $k}) { entry { id title version } } }`

func (e *env) countTitled(token, calendarID, title string) int {
	e.t.Helper()
	d := e.must(token, `query($c: ID!) { calendar(id: $c) { entries(range: {dates: {start: "2026-03-01", end: "2026-03-08"}}) { entries { title } } } }`,
		map[string]any{"c": calendarID})
	n := 0
	for _, x := range get(d, "calendar.entries.entries").([]any) {
		if str(x, "title") == title {
			n++
		}
	}
	return n
}

func TestIdempotentMutations(t *testing.T) {
	e := newEnv(t)
	w := e.world("idem")
	vars := map[string]any{"c": w.calendarID, "k": "create-1", "t": "Launch"}
	first := e.must(w.writer, createWithKey, vars)
	again := e.must(w.writer, createWithKey, vars)
	if str(first, "createEntry.entry.id") != str(again, "createEntry.entry.id") || e.countTitled(w.writer, w.calendarID, "Launch") != 1 {
		t.Fatalf("a replay created again: %v / %v", first, again)
	}

	// The same key with other input, or for another mutation, is refused; a
	// null key too. Another user's key of the same name is theirs.
	r := e.do(w.writer, createWithKey, map[string]any{"c": w.calendarID, "k": "create-1", "t": "Other"})
	if r.code() != "BAD_USER_INPUT" || r.Errors[0].Extensions.Field != "idempotencyKey" {
		t.Fatalf("a key reused with other input: %s", r.Raw)
	}
	r = e.do(w.writer, `mutation($k: String) { updatePreferences(input: {expectedVersion: 1, theme: DARK, idempotencyKey: $k}) { preferences { theme } } }`,
		map[string]any{"k": "create-1"})
	if r.code() != "BAD_USER_INPUT" {
		t.Fatalf("a key reused for another mutation: %s", r.Raw)
	}
	r = e.do(w.writer, createWithKey, map[string]any{"c": w.calendarID, "k": nil, "t": "Null"})
	if r.code() != "BAD_USER_INPUT" {
		t.Fatalf("a null key: %s", r.Raw)
	}
	e.must(w.owner, createWithKey, vars)
	if n := e.countTitled(w.writer, w.calendarID, "Launch"); n != 2 {
		t.Fatalf("%d entries after the owner used the writer's key, want 2", n)
	}

	// An explicit null is other input than an omitted field.
	r = e.do(w.writer, `mutation($c: ID!, $k: String) { createEntry(input: {calendarId: $c, title: "Launch",
		timing: {allDay: {date: "2026-03-02"}}, description: null, idempotencyKey: $k}) { entry { id } } }`, map[string]any{"c": w.calendarID, "k": "create-1"})
	if r.code() != "BAD_USER_INPUT" {
		t.Fatalf("a key reused with a null field added: %s", r.Raw)
	}

	// A replayed update answers as the first time instead of VERSION_CONFLICT;
	// a replayed delete succeeds again.
	id := str(first, "createEntry.entry.id")
	update := `mutation($id: ID!) { updateEntry(input: {id: $id, expectedVersion: 1, title: "Launch!", idempotencyKey: "u-1"}) { entry { title version } } }`
	u1 := e.must(w.writer, update, map[string]any{"id": id})
	u2 := e.must(w.writer, update, map[string]any{"id": id})
	if num(u1, "updateEntry.entry.version") != 2 || num(u2, "updateEntry.entry.version") != 2 {
		t.Fatalf("replayed update: %v / %v", u1, u2)
	}
	del := `mutation($id: ID!) { deleteEntry(input: {id: $id, expectedVersion: 2, idempotencyKey: "d-1"}) { deletedEntryId } }`
	e.must(w.writer, del, map[string]any{"id": id})
	e.must(w.writer, del, map[string]any{"id": id})
	if n := e.countTitled(w.writer, w.calendarID, "Launch!"); n != 0 {
		t.Fatalf("%d deleted entries left", n)
	}
}

// TestIdempotencyKeyReplayedConcurrently sends one mutation with one key from
// many clients at once: it is applied once, and every client gets its result.
func TestIdempotencyKeyReplayedConcurrently(t *testing.T) {
	e := newEnv(t)
	w := e.world("idemc")
	const n = 16
	ids := make([]string, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			r := e.do(w.writer, createWithKey, map[string]any{"c": w.calendarID, "k": "burst", "t": "Once"})
			if len(r.Errors) > 0 {
				t.Errorf("client %d: %s", i, r.Raw)
				return
			}
			ids[i] = str(r.Data, "createEntry.entry.id")
		})
	}
	wg.Wait()
	for i := range ids {
		if ids[i] != ids[0] {
			t.Fatalf("clients got different entries: %q", ids)
		}
	}
	if got := e.countTitled(w.writer, w.calendarID, "Once"); got != 1 {
		t.Fatalf("%d entries from %d concurrent attempts, want 1", got, n)
	}
}

// TestExpiredIdempotencyKey ages a key's marker past its window: the key
// then names a new request.
func TestExpiredIdempotencyKey(t *testing.T) {
	e := newEnv(t)
	w := e.world("idemx")
	vars := map[string]any{"c": w.calendarID, "k": "old", "t": "Twice"}
	e.must(w.writer, createWithKey, vars)
	db := dynamoClient(e)
	out, err := db.Scan(context.Background(), &dynamodb.ScanInput{TableName: aws.String(e.store.Table())})
	if err != nil {
		t.Fatal(err)
	}
	aged := 0
	for _, it := range out.Items {
		if v, ok := it["entityType"].(*types.AttributeValueMemberS); ok && v.Value == "IDEMPOTENCY" {
			it["expiresAt"] = &types.AttributeValueMemberN{Value: fmt.Sprint(1_000_000)}
			if _, err := db.PutItem(context.Background(), &dynamodb.PutItemInput{TableName: aws.String(e.store.Table()), Item: it}); err != nil {
				t.Fatal(err)
			}
			aged++
		}
	}
	if aged != 1 {
		t.Fatalf("%d idempotency markers, want 1", aged)
	}
	e.must(w.writer, createWithKey, vars)
	if n := e.countTitled(w.writer, w.calendarID, "Twice"); n != 2 {
		t.Fatalf("%d entries, want 2: an expired key is new again", n)
	}
}

// TestIdempotentImportWithRefusals: an import whose first event is refused
// (a clash on a resource calendar) and whose later items are created replays
// as it answered, creating nothing twice.
func TestIdempotentImportWithRefusals(t *testing.T) {
	e := newEnv(t)
	owner := e.token("room-owner@example.com")
	room := str(e.must(owner, `mutation { createCalendar(input: {name: "Room 101", timeZone: "Europe/Paris", isResource: true}) { calendar { id } } }`, nil),
		"createCalendar.calendar.id")
	e.must(owner, `mutation($c: ID!) { createEntry(input: {calendarId: $c, title: "Held", timing: {timed: {start: "2026-03-02T08:00:00Z", end: "2026-03-02T09:00:00Z"}}}) { entry { id } } }`,
		map[string]any{"c": room})
	doc := strings.Join([]string{"BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//test//EN",
		"BEGIN:VEVENT", "UID:clash", "DTSTAMP:20260101T000000Z", "DTSTART:20260302T080000Z", "DTEND:20260302T090000Z", "SUMMARY:Clash", "END:VEVENT",
		"BEGIN:VTODO", "UID:todo", "DTSTAMP:20260101T000000Z", "DUE;VALUE=DATE:20260303", "SUMMARY:Todo", "END:VTODO",
		"END:VCALENDAR", ""}, "\r\n")
	keyed := `mutation($c: ID!, $ics: String!) { importCalendar(input: {calendarId: $c, ics: $ics, idempotencyKey: "import-1"}) {
		entries { id title } errors { uid code } } }`
	first := e.must(owner, keyed, map[string]any{"c": room, "ics": doc})
	again := e.must(owner, keyed, map[string]any{"c": room, "ics": doc})
	if str(first, "importCalendar.entries.0.title") != "Todo" || str(first, "importCalendar.errors.0.code") != "SLOT_CONFLICT" ||
		str(again, "importCalendar.entries.0.id") != str(first, "importCalendar.entries.0.id") ||
		len(get(again, "importCalendar.errors").([]any)) != 1 {
		t.Fatalf("first %v, replay %v", first, again)
	}
	d := e.must(owner, `query($c: ID!) { calendar(id: $c) { tasks { edges { node { title } } } } }`, map[string]any{"c": room})
	if n := len(get(d, "calendar.tasks.edges").([]any)); n != 1 {
		t.Fatalf("%d tasks after a replayed import, want 1", n)
	}
}
