package graph_test

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/calgraph/calgraph/graph/model"
	"github.com/calgraph/calgraph/internal/calendar"
	"github.com/calgraph/calgraph/internal/dynamo"
	"github.com/calgraph/calgraph/internal/recurrence"
)

const prefsFields = `calendarIncrementMinutes autoArchiveCompletedTasks autoArchiveDelayHours browserNotifications soundNotifications`

// TestSeedPreferences: the preferences of seed 002's USER_META beyond the
// first ones: their defaults, a change, and each refusal (with its field).
func TestSeedPreferences(t *testing.T) {
	e := newEnv(t)
	tok := e.token("prefs@example.com")
	d := e.must(tok, `{ viewer { user { version } preferences { `+prefsFields+` } } }`, nil)
	if got := fmt.Sprint(get(d, "viewer.preferences")); got != "map[autoArchiveCompletedTasks:false autoArchiveDelayHours:24 browserNotifications:true calendarIncrementMinutes:15 soundNotifications:true]" {
		t.Fatalf("defaults: %s", got)
	}
	d = e.must(tok, `mutation { updatePreferences(input: {expectedVersion: 1, calendarIncrementMinutes: 30, autoArchiveCompletedTasks: true,
		autoArchiveDelayHours: 48, browserNotifications: false, soundNotifications: false}) { preferences { `+prefsFields+` } } }`, nil)
	if got := fmt.Sprint(get(d, "updatePreferences.preferences")); got != "map[autoArchiveCompletedTasks:true autoArchiveDelayHours:48 browserNotifications:false calendarIncrementMinutes:30 soundNotifications:false]" {
		t.Fatalf("after the change: %s", got)
	}
	for _, bad := range []struct{ input, field string }{
		{"calendarIncrementMinutes: 20", "calendarIncrementMinutes"},
		{"autoArchiveDelayHours: 0", "autoArchiveDelayHours"},
		{"autoArchiveDelayHours: 2161", "autoArchiveDelayHours"},
		{"autoArchiveCompletedTasks: null", "autoArchiveCompletedTasks"},
		{"soundNotifications: null", "soundNotifications"},
	} {
		r := e.do(tok, `mutation { updatePreferences(input: {expectedVersion: 2, `+bad.input+`}) { preferences { theme } } }`, nil)
		if r.code() != "BAD_USER_INPUT" || r.Errors[0].Extensions.Field != bad.field {
			t.Errorf("%s: %s, want BAD_USER_INPUT on %s", bad.input, r.Raw, bad.field)
		}
	}
}

// TestArchivedTasks: with auto-archive on, tasks completed longer ago than
// the viewer's delay leave the completed list for the archived one; other
// members, who do not archive, still see them completed; open tasks stay.
func TestArchivedTasks(t *testing.T) {
	e := newEnv(t)
	w := e.world("archive")
	long := dynamo.New(dynamoClient(e), e.store.Table(), recurrence.Engine{},
		dynamo.WithClock(func() time.Time { return time.Now().Add(-72 * time.Hour) }))
	ownerID := decodeUserID(t, str(e.must(w.owner, `{ viewer { user { id } } }`, nil), "viewer.user.id"))
	ownerCtx := calendar.WithViewer(t.Context(), calendar.Viewer{ID: ownerID})
	create := func(title string) string {
		d := e.must(w.owner, createTask, map[string]any{"c": w.calendarID, "t": title})
		return str(d, "createEntry.entry.id")
	}
	old, recent := create("done long ago"), create("done now")
	create("open")
	key, err := model.DecodeEntryID("id", old)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := long.SetTaskCompleted(ownerCtx, key, 1, true); err != nil {
		t.Fatal(err)
	}
	e.must(w.owner, `mutation($id: ID!) { completeTask(input: {id: $id, expectedVersion: 1}) { task { completed } } }`, map[string]any{"id": recent})
	list := func(tok, args string) []string {
		d := e.must(tok, `query($c: ID!) { calendar(id: $c) { tasks(`+args+`) { edges { node { title } } } } }`, map[string]any{"c": w.calendarID})
		var out []string
		for _, x := range get(d, "calendar.tasks.edges").([]any) {
			out = append(out, str(x, "node.title"))
		}
		return out
	}
	e.must(w.reader, `mutation { updatePreferences(input: {expectedVersion: 1, autoArchiveCompletedTasks: true, autoArchiveDelayHours: 24}) { preferences { theme } } }`, nil)
	for _, c := range []struct {
		who, tok, args string
		want           []string
	}{
		{"reader: open", w.reader, "completed: false", []string{"open"}},
		{"reader: completed", w.reader, "completed: true", []string{"done now"}},
		{"reader: archived", w.reader, "archived: true", []string{"done long ago"}},
		{"owner (no archive): completed", w.owner, "completed: true", []string{"done now", "done long ago"}},
		{"owner (no archive): archived", w.owner, "archived: true", nil},
	} {
		if got := list(c.tok, c.args); !slices.Equal(got, c.want) {
			t.Errorf("%s: %q, want %q", c.who, got, c.want)
		}
	}
}
