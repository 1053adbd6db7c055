package graph_test

import (
	"testing"
	"time"
)

const trashQuery = `query($c: ID!) { calendar(id: $c) { trash(first: 10) {
	edges { cursor node { entry { id title version } deletedBy { email } deletedAt purgeAt } } pageInfo { hasNextPage } } } }`

const restoreMutation = `mutation($id: ID!, $k: String) { restoreEntry(input: {id: $id, idempotencyKey: $k}) { entry { id title version } } }`

// TestTrashThroughTheAPI: a writer's deleted entry is in the trash (who
// deleted it, when, purged 30 days later) for writers and owners only;
// restoreEntry brings it back with its ID and version, once per
// idempotency key; a second restore is NOT_FOUND, and a reader, a
// FREE_BUSY member and an outsider can neither list nor restore.
func TestTrashThroughTheAPI(t *testing.T) {
	e := newEnv(t)
	w := e.world("trash")
	busy := e.token("busy-trash@example.com")
	e.must(busy, provision, nil)
	e.must(w.owner, `mutation($c: ID!) { addMember(input: {calendarId: $c, email: "busy-trash@example.com", role: FREE_BUSY}) { membership { id } } }`,
		map[string]any{"c": w.calendarID})
	d := e.must(w.writer, `mutation($c: ID!) { createEntry(input: {calendarId: $c, title: "Dentist",
		timing: {timed: {start: "2026-12-01T10:00:00Z", end: "2026-12-01T11:00:00Z"}}}) { entry { id version } } }`,
		map[string]any{"c": w.calendarID})
	id := str(d, "createEntry.entry.id")
	e.must(w.writer, `mutation($id: ID!) { deleteEntry(input: {id: $id, expectedVersion: 1}) { deletedEntryId } }`, map[string]any{"id": id})

	d = e.must(w.owner, trashQuery, map[string]any{"c": w.calendarID})
	node := "calendar.trash.edges.0.node."
	if str(d, node+"entry.id") != id || str(d, node+"entry.title") != "Dentist" || str(d, node+"deletedBy.email") != "writer-trash@example.com" {
		t.Fatalf("owner's trash: %v", d)
	}
	deleted, err1 := time.Parse(time.RFC3339, str(d, node+"deletedAt"))
	purge, err2 := time.Parse(time.RFC3339, str(d, node+"purgeAt"))
	if err1 != nil || err2 != nil || purge.Sub(deleted).Round(time.Minute) != 30*24*time.Hour {
		t.Errorf("deletedAt %s, purgeAt %s: want 30 days apart", str(d, node+"deletedAt"), str(d, node+"purgeAt"))
	}
	for name, tok := range map[string]string{"reader": w.reader, "free/busy": busy, "outsider": w.outsider} {
		if r := e.do(tok, trashQuery, map[string]any{"c": w.calendarID}); r.code() == "" {
			t.Errorf("%s listed the trash: %s", name, r.Raw)
		}
		if r := e.do(tok, restoreMutation, map[string]any{"id": id}); r.code() == "" {
			t.Errorf("%s restored: %s", name, r.Raw)
		}
	}

	d = e.must(w.writer, restoreMutation, map[string]any{"id": id, "k": "restore-1"})
	if str(d, "restoreEntry.entry.id") != id || num(d, "restoreEntry.entry.version") != 3 { // 2 was the deletion's (Entry.history)
		t.Fatalf("restored: %v", d)
	}
	if again := e.must(w.writer, restoreMutation, map[string]any{"id": id, "k": "restore-1"}); str(again, "restoreEntry.entry.id") != id {
		t.Errorf("replayed restore: %v", again)
	}
	if r := e.do(w.writer, restoreMutation, map[string]any{"id": id}); r.code() != "BAD_USER_INPUT" {
		t.Errorf("restore of a live entry: %s, want BAD_USER_INPUT", r.Raw)
	}
	e.must(w.writer, `mutation($id: ID!) { deleteEntry(input: {id: $id, expectedVersion: 3}) { deletedEntryId } }`, map[string]any{"id": id})
	e.must(w.writer, restoreMutation, map[string]any{"id": id})
	if r := e.do(w.writer, `query($c: ID!) { calendar(id: $c) { entries(range: {dates: {start: "2026-12-01", end: "2026-12-02"}}) { entries { id } } } }`,
		map[string]any{"c": w.calendarID}); r.code() != "" || str(r.Data, "calendar.entries.entries.0.id") != id {
		t.Errorf("the view after restore: %s", r.Raw)
	}
	if d := e.must(w.owner, trashQuery, map[string]any{"c": w.calendarID}); len(get(d, "calendar.trash.edges").([]any)) != 0 {
		t.Errorf("trash after restore: %v", d)
	}
	if r := e.do(w.writer, restoreMutation, map[string]any{"id": "bm90IGFuIGlk"}); r.code() != "BAD_USER_INPUT" {
		t.Errorf("restore of a malformed id: %s", r.Raw)
	}
}
