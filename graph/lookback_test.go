package graph_test

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestDeleteRestoreAcrossFeatures: one entry deleted and restored, seen by
// everything issue 28 added beside the trash — search (gone the moment the
// deletion is acknowledged, back the moment the restore is), history
// (CREATED, DELETED, RESTORED, by whom) — and by live delivery (a
// subscriber sees it deleted, then back with its restored version).
func TestDeleteRestoreAcrossFeatures(t *testing.T) {
	e := newEnv(t)
	w := e.world("lookback")
	sub := e.dial(w.reader)
	sub.subscribe("c", changesSubscription, map[string]any{"ids": []string{w.calendarID}})
	time.Sleep(200 * time.Millisecond) // registered before the writes

	d := e.must(w.writer, `mutation($c: ID!) { createEntry(input: {calendarId: $c, title: "Orthodontist Dr. Øberg",
		timing: {timed: {start: "2030-12-01T10:00:00Z", end: "2030-12-01T11:00:00Z"}}}) { entry { id } } }`, map[string]any{"c": w.calendarID})
	id := str(d, "createEntry.entry.id")
	const find = `query($q: String!) { viewer { search(query: $q) { edges { node { id ... on Entry { version } } } } } }`
	found := func(who string) string {
		d := e.must(who, find, map[string]any{"q": "orthodont"})
		var out []string
		for _, edge := range get(d, "viewer.search.edges").([]any) {
			out = append(out, fmt.Sprint(str(edge, "node.id") == id, "@", num(edge, "node.version")))
		}
		return strings.Join(out, ",")
	}
	if got := found(w.reader); got != "true@1" {
		t.Fatalf("search after the create: %q, want the entry at version 1", got)
	}

	e.must(w.writer, `mutation($id: ID!) { deleteEntry(input: {id: $id, expectedVersion: 1}) { deletedEntryId } }`, map[string]any{"id": id})
	if got := found(w.reader); got != "" {
		t.Errorf("search right after the deletion: %q, want nothing", got)
	}
	d = e.must(w.owner, restoreMutation, map[string]any{"id": id})
	if num(d, "restoreEntry.entry.version") != 3 {
		t.Fatalf("restored: %v, want version 3", d)
	}
	if got := found(w.reader); got != "true@3" {
		t.Errorf("search right after the restore: %q, want the entry at version 3", got)
	}

	d = e.must(w.reader, `query($id: ID!) { node(id: $id) { ... on Entry { updatedBy { email }
		history(first: 10) { edges { node { action by { email } } } } } } }`, map[string]any{"id": id})
	var actions []string
	for _, edge := range get(d, "node.history.edges").([]any) {
		actions = append(actions, str(edge, "node.action")+" by "+strings.Split(str(edge, "node.by.email"), "@")[0])
	}
	if got, want := strings.Join(actions, ", "), "RESTORED by owner-lookback, DELETED by writer-lookback, CREATED by writer-lookback"; got != want ||
		!strings.HasPrefix(str(d, "node.updatedBy.email"), "owner-lookback") {
		t.Errorf("history: %q (updatedBy %v), want %q", got, get(d, "node.updatedBy"), want)
	}

	// Live: a delivery names the entry as it is when read, so the create
	// and the deletion may come as one tombstone; the last one shows it back,
	// at the restored version.
	for deadline := time.Now().Add(10 * time.Second); ; {
		m := sub.delivery("c", time.Until(deadline))
		back := false
		for _, c := range get(m, "changes").([]any) {
			back = back || str(c, "id") == id && get(c, "deleted") == false && num(c, "node.version") == 3
		}
		if back {
			break
		}
	}
}
