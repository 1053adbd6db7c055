package graph_test

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestSeriesTrashThroughTheAPI: a series with an exception, deleted and
// restored through the API, reads as before in a range view (each
// occurrence's ID and title; versions two on), is in the trash between
// (for writers: a reader is FORBIDDEN, an outsider NOT_FOUND), is found by
// search again (once), its history says RESTORED after DELETED, its
// calendar's changes show it back, and a subscriber sees it back.
func TestSeriesTrashThroughTheAPI(t *testing.T) {
	e := newEnv(t)
	w := e.world("seriestrash")
	sub := e.dial(w.reader)
	sub.subscribe("c", changesSubscription, map[string]any{"ids": []string{w.calendarID}})
	time.Sleep(200 * time.Millisecond) // registered before the writes

	d := e.must(w.writer, `mutation($c: ID!) { createEntry(input: {calendarId: $c, title: "Physiotherapy Ærø",
		timing: {timed: {start: "2030-12-02T10:00:00Z", end: "2030-12-02T11:00:00Z"}}, recurrence: {rule: "FREQ=WEEKLY;COUNT=4"}}) { entry { id version } } }`,
		map[string]any{"c": w.calendarID})
	id := str(d, "createEntry.entry.id")
	const view = `query($c: ID!) { calendar(id: $c) { entries(range: {dates: {start: "2030-12-01", end: "2031-01-01"}}) { entries { id title version } } } }`
	occurrences := func() (ids []string, versions []int) {
		d := e.must(w.reader, view, map[string]any{"c": w.calendarID})
		for _, o := range get(d, "calendar.entries.entries").([]any) {
			ids = append(ids, str(o, "id")+" "+str(o, "title"))
			versions = append(versions, num(o, "version"))
		}
		return ids, versions
	}
	ids, _ := occurrences()
	if len(ids) != 4 {
		t.Fatalf("occurrences: %v", ids)
	}
	second := strings.Fields(ids[1])[0]
	e.must(w.writer, `mutation($id: ID!) { updateEntry(input: {id: $id, expectedVersion: 1, scope: THIS, title: "Physiotherapy (room 2)"}) { entry { id } } }`,
		map[string]any{"id": second})
	before, versions := occurrences()
	master := e.must(w.reader, `query($id: ID!) { node(id: $id) { ... on Entry { version } } }`, map[string]any{"id": id})
	version := num(master, "node.version")
	const find = `query { viewer { search(query: "physiotherapy") { edges { node { id } } } } }`
	hits := func() int { return len(get(e.must(w.reader, find, nil), "viewer.search.edges").([]any)) }
	if n := hits(); n != 1 {
		t.Fatalf("search finds the series %d times, want once", n)
	}
	_, token := e.changesSince(w.reader, w.calendarID, "")

	e.must(w.writer, `mutation($id: ID!, $v: Int!) { deleteEntry(input: {id: $id, expectedVersion: $v}) { deletedEntryId } }`,
		map[string]any{"id": id, "v": version})
	if gone, _ := occurrences(); len(gone) != 0 || hits() != 0 {
		t.Fatalf("after the deletion: %v occurrences, %d search hits", gone, hits())
	}
	d = e.must(w.writer, trashQuery, map[string]any{"c": w.calendarID})
	if str(d, "calendar.trash.edges.0.node.entry.id") != id {
		t.Fatalf("trash: %v, want the series", d)
	}
	for name, c := range map[string]struct{ tok, code string }{"reader": {w.reader, "FORBIDDEN"}, "outsider": {w.outsider, "NOT_FOUND"}} {
		if r := e.do(c.tok, restoreMutation, map[string]any{"id": id}); r.code() != c.code {
			t.Errorf("%s's restore: %s, want %s", name, r.Raw, c.code)
		}
	}

	d = e.must(w.writer, restoreMutation, map[string]any{"id": id, "k": "series-back"})
	if num(d, "restoreEntry.entry.version") != version+2 {
		t.Fatalf("restored: %v, want version %d", d, version+2)
	}
	after, versionsAfter := occurrences()
	if fmt.Sprint(after) != fmt.Sprint(before) {
		t.Errorf("occurrences after the restore:\n%v\nwant\n%v", after, before)
	}
	for i := range versions {
		if versionsAfter[i] != versions[i]+2 {
			t.Errorf("occurrence %d at version %d, want %d", i, versionsAfter[i], versions[i]+2)
		}
	}
	if n := hits(); n != 1 {
		t.Errorf("search finds the restored series %d times, want once", n)
	}
	d = e.must(w.reader, `query($id: ID!) { node(id: $id) { ... on Entry { history(first: 2) { edges { node { action } } } } } }`, map[string]any{"id": id})
	if a := fmt.Sprint(get(d, "node.history.edges.0.node.action"), get(d, "node.history.edges.1.node.action")); a != "RESTOREDDELETED" {
		t.Errorf("history: %v, want RESTORED after DELETED", d)
	}
	changes, _ := e.changesSince(w.reader, w.calendarID, token)
	back := false
	for _, c := range changes {
		back = back || str(c, "id") == id && get(c, "deleted") == false
	}
	if !back {
		t.Errorf("the calendar's changes after the restore: %v, want the series back", changes)
	}
	for deadline := time.Now().Add(10 * time.Second); ; {
		m := sub.delivery("c", time.Until(deadline))
		live := false
		for _, c := range get(m, "changes").([]any) {
			live = live || str(c, "id") == id && get(c, "deleted") == false && num(c, "node.version") == version+2
		}
		if live {
			break
		}
	}
}

// changesSince reads a calendar's changes from token (none: from the
// start) to the end, as who.
func (e *env) changesSince(who, calendarID, token string) ([]any, string) {
	e.t.Helper()
	var all []any
	for {
		vars := map[string]any{"c": calendarID}
		if token != "" {
			vars["t"] = token
		}
		d := e.must(who, `query($c: ID!, $t: String) { calendar(id: $c) { changes(syncToken: $t) {
			changes { id deleted } hasMore syncToken } } }`, vars)
		all = append(all, get(d, "calendar.changes.changes").([]any)...)
		token = str(d, "calendar.changes.syncToken")
		if get(d, "calendar.changes.hasMore") != true {
			return all, token
		}
	}
}
