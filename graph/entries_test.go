package graph_test

import (
	"fmt"

	"github.com/calgraph/calgraph/graph/model"
	"slices"
	"strings"
	"testing"
)

// entryWorld is a world with a task on the shared calendar and, for each
// actor, a calendar of their own to move entries into.
type entryWorld struct {
	world
	taskID string
	own    map[string]string // actor name -> their own calendar
}

func (e *env) entryWorld(tag string) entryWorld {
	e.t.Helper()
	w := entryWorld{world: e.world(tag), own: map[string]string{}}
	d := e.must(w.owner, `mutation($c: ID!) { createEntry(input: {calendarId: $c, title: "Pay rent",
		timing: {task: {dueDate: "2026-11-25"}}}) { entry { id } } }`, map[string]any{"c": w.calendarID})
	w.taskID = str(d, "createEntry.entry.id")
	for _, a := range actors[:4] {
		d := e.must(a.token(w.world), `mutation { createCalendar(input: {name: "own"}) { calendar { id } } }`, nil)
		w.own[a.name] = str(d, "createCalendar.calendar.id")
	}
	return w
}

func TestEntryAuthorizationMatrix(t *testing.T) {
	t.Parallel() // seconds of requests on a table of its own, beside the tests that wait
	week := `{dates: {start: "2026-11-23", end: "2026-11-30"}}`
	ops := []struct {
		name  string
		query string
		vars  func(entryWorld, string) map[string]any
		want  want
	}{
		{"entries in a range", `query($c: ID!) { calendar(id: $c) { entries(range: ` + week + `) { entries { title } } } }`,
			func(w entryWorld, _ string) map[string]any { return map[string]any{"c": w.calendarID} },
			want{ok, ok, ok, absent, unauth}},
		{"tasks", `query($c: ID!) { calendar(id: $c) { tasks { edges { node { title } } } } }`,
			func(w entryWorld, _ string) map[string]any { return map[string]any{"c": w.calendarID} },
			want{ok, ok, ok, absent, unauth}},
		{"node(entry)", `query($id: ID!) { node(id: $id) { ... on Task { title } } }`,
			func(w entryWorld, _ string) map[string]any { return map[string]any{"id": w.taskID} },
			want{ok, ok, ok, absent, unauth}},
		{"agenda of the calendar", `query($c: ID!) { viewer { agenda(range: ` + week + `, calendarIds: [$c]) { entries { title } } } }`,
			func(w entryWorld, _ string) map[string]any { return map[string]any{"c": w.calendarID} },
			want{ok, ok, ok, absent, unauth}},
		{"create entry", `mutation($c: ID!) { createEntry(input: {calendarId: $c, title: "x", timing: {allDay: {date: "2026-11-24"}}}) { entry { id } } }`,
			func(w entryWorld, _ string) map[string]any { return map[string]any{"c": w.calendarID} },
			want{ok, ok, forbid, absent, unauth}},
		{"update entry", `mutation($id: ID!) { updateEntry(input: {id: $id, expectedVersion: 1, title: "y"}) { entry { title } } }`,
			func(w entryWorld, _ string) map[string]any { return map[string]any{"id": w.taskID} },
			want{ok, ok, forbid, absent, unauth}},
		{"complete task", `mutation($id: ID!) { completeTask(input: {id: $id, expectedVersion: 1}) { task { completed } } }`,
			func(w entryWorld, _ string) map[string]any { return map[string]any{"id": w.taskID} },
			want{ok, ok, forbid, absent, unauth}},
		{"reopen task", `mutation($id: ID!) { reopenTask(input: {id: $id, expectedVersion: 2}) { task { completed } } }`,
			func(w entryWorld, _ string) map[string]any { return map[string]any{"id": w.taskID} },
			want{ok, ok, forbid, absent, unauth}},
		{"delete entry", `mutation($id: ID!) { deleteEntry(input: {id: $id, expectedVersion: 1}) { deletedEntryId } }`,
			func(w entryWorld, _ string) map[string]any { return map[string]any{"id": w.taskID} },
			want{ok, ok, forbid, absent, unauth}},
		{"move entry to the actor's own calendar", `mutation($id: ID!, $to: ID!) { moveEntry(input: {id: $id, expectedVersion: 1, toCalendarId: $to}) { entry { id } previousId } }`,
			func(w entryWorld, actor string) map[string]any {
				to, ok := w.own[actor]
				if !ok {
					to = w.own["owner"] // anonymous: any well-formed calendar ID
				}
				return map[string]any{"id": w.taskID, "to": to}
			},
			want{ok, ok, forbid, absent, unauth}},
		{"update preferences", `mutation { updatePreferences(input: {expectedVersion: 1, theme: DARK}) { preferences { theme } } }`,
			func(entryWorld, string) map[string]any { return nil },
			want{ok, ok, ok, ok, unauth}},
	}
	for _, op := range ops {
		t.Run(op.name, func(t *testing.T) {
			e := newEnv(t)
			for i, a := range actors {
				t.Run(a.name, func(t *testing.T) {
					w := e.entryWorld(a.name)
					if op.name == "reopen task" {
						e.must(w.owner, `mutation($id: ID!) { completeTask(input: {id: $id, expectedVersion: 1}) { task { completed } } }`, map[string]any{"id": w.taskID})
					}
					r := e.do(a.token(w.world), op.query, op.vars(w, a.name))
					if got := r.code(); got != op.want[i] {
						t.Fatalf("got code %q, want %q\n%s", got, op.want[i], r.Raw)
					}
				})
			}
		})
	}
}

func TestEntryVersionConflictsAndValidation(t *testing.T) {
	e := newEnv(t)
	w := e.entryWorld("v")
	e.must(w.owner, `mutation($id: ID!) { updateEntry(input: {id: $id, expectedVersion: 1, location: "Home"}) { entry { version } } }`,
		map[string]any{"id": w.taskID})
	tests := []struct {
		name, query string
		vars        map[string]any
		code, field string
	}{
		{"stale update", `mutation($id: ID!) { updateEntry(input: {id: $id, expectedVersion: 1, title: "x"}) { entry { id } } }`,
			map[string]any{"id": w.taskID}, "VERSION_CONFLICT", ""},
		{"stale delete", `mutation($id: ID!) { deleteEntry(input: {id: $id, expectedVersion: 1}) { deletedEntryId } }`,
			map[string]any{"id": w.taskID}, "VERSION_CONFLICT", ""},
		{"stale completion", `mutation($id: ID!) { completeTask(input: {id: $id, expectedVersion: 1}) { task { id } } }`,
			map[string]any{"id": w.taskID}, "VERSION_CONFLICT", ""},
		{"stale move", `mutation($id: ID!, $to: ID!) { moveEntry(input: {id: $id, expectedVersion: 1, toCalendarId: $to}) { previousId } }`,
			map[string]any{"id": w.taskID, "to": w.own["owner"]}, "VERSION_CONFLICT", ""},
		{"two timings", `mutation($c: ID!) { createEntry(input: {calendarId: $c, title: "x", timing: {allDay: {date: "2026-01-01"}, task: {dueDate: "2026-01-01"}}}) { entry { id } } }`,
			map[string]any{"c": w.calendarID}, "GRAPHQL_VALIDATION_FAILED", ""},
		{"two timings in variables", `mutation($c: ID!, $t: EntryTimingInput!) { createEntry(input: {calendarId: $c, title: "x", timing: $t}) { entry { id } } }`,
			map[string]any{"c": w.calendarID, "t": map[string]any{"allDay": map[string]any{"date": "2026-01-01"}, "task": map[string]any{"dueDate": "2026-01-01"}}}, "", ""},
		{"end before start", `mutation($c: ID!) { createEntry(input: {calendarId: $c, title: "x", timing: {timed: {start: "2026-01-01T10:00:00Z", end: "2026-01-01T09:00:00Z"}}}) { entry { id } } }`,
			map[string]any{"c": w.calendarID}, "BAD_USER_INPUT", "end"},
		{"bad date", `mutation($c: ID!) { createEntry(input: {calendarId: $c, title: "x", timing: {allDay: {date: "2026-02-30"}}}) { entry { id } } }`,
			map[string]any{"c": w.calendarID}, "BAD_USER_INPUT", "date"},
		{"bad instant", `mutation($c: ID!) { createEntry(input: {calendarId: $c, title: "x", timing: {timed: {start: "tomorrow"}}}) { entry { id } } }`,
			map[string]any{"c": w.calendarID}, "BAD_USER_INPUT", "start"},
		{"untitled", `mutation($c: ID!) { createEntry(input: {calendarId: $c, title: " ", timing: {allDay: {date: "2026-01-01"}}}) { entry { id } } }`,
			map[string]any{"c": w.calendarID}, "BAD_USER_INPUT", "title"},
		{"null title", `mutation($id: ID!) { updateEntry(input: {id: $id, expectedVersion: 2, title: null}) { entry { id } } }`,
			map[string]any{"id": w.taskID}, "BAD_USER_INPUT", "title"},
		{"complete a non-task", `mutation($id: ID!) { completeTask(input: {id: $id, expectedVersion: 1}) { task { id } } }`,
			map[string]any{"id": e.createAllDay(w.owner, w.calendarID, "day")}, "BAD_USER_INPUT", "id"},
		{"range with both forms", `query($c: ID!) { calendar(id: $c) { entries(range: {dates: {start: "2026-01-01", end: "2026-01-02"}, instants: {start: "2026-01-01T00:00:00Z", end: "2026-01-02T00:00:00Z"}}) { timeZone } } }`,
			map[string]any{"c": w.calendarID}, "GRAPHQL_VALIDATION_FAILED", ""},
		{"range over a year", `query($c: ID!) { calendar(id: $c) { entries(range: {dates: {start: "2026-01-01", end: "2027-06-01"}}) { timeZone } } }`,
			map[string]any{"c": w.calendarID}, "BAD_USER_INPUT", "range"},
		{"unknown zone", `query($c: ID!) { calendar(id: $c) { entries(range: {dates: {start: "2026-01-01", end: "2026-01-02"}}, timeZone: "Moon/Tranquility") { timeZone } } }`,
			map[string]any{"c": w.calendarID}, "BAD_USER_INPUT", "timeZone"},
		{"move into the same calendar", `mutation($id: ID!, $to: ID!) { moveEntry(input: {id: $id, expectedVersion: 2, toCalendarId: $to}) { previousId } }`,
			map[string]any{"id": w.taskID, "to": w.calendarID}, "BAD_USER_INPUT", "toCalendarId"},
		{"instant before 1900", `query($c: ID!) { calendar(id: $c) { entries(range: {instants: {start: "1899-12-31T00:00:00Z", end: "1900-01-02T00:00:00Z"}}) { timeZone } } }`,
			map[string]any{"c": w.calendarID}, "BAD_USER_INPUT", "start"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := e.do(w.owner, tt.query, tt.vars)
			code := r.code()
			if tt.code == "" { // either refused by validation or by the domain: never accepted
				if code != "BAD_USER_INPUT" && code != "GRAPHQL_VALIDATION_FAILED" {
					t.Fatalf("got %s, want the input refused", r.Raw)
				}
				return
			}
			if code != tt.code || (tt.field != "" && r.Errors[0].Extensions.Field != tt.field) {
				t.Fatalf("got %s, want %s about %q", r.Raw, tt.code, tt.field)
			}
			if msg := r.Errors[0].Message; strings.ContainsRune(msg, 0) {
				t.Fatalf("the message holds a NUL: %q", msg)
			}
		})
	}
	d := e.must(w.owner, `query($id: ID!) { node(id: $id) { ... on Task { title version location } } }`, map[string]any{"id": w.taskID})
	if num(d, "node.version") != 2 || str(d, "node.title") != "Pay rent" {
		t.Fatalf("the refused writes changed the task: %v", d)
	}
}

// createAllDay creates an all-day entry and returns its ID.
func (e *env) createAllDay(token, calendarID, title string) string {
	e.t.Helper()
	d := e.must(token, `mutation($c: ID!, $t: String!) { createEntry(input: {calendarId: $c, title: $t, timing: {allDay: {date: "2026-11-24"}}}) { entry { id } } }`,
		map[string]any{"c": calendarID, "t": title})
	return str(d, "createEntry.entry.id")
}

func TestAgendaAndFilters(t *testing.T) {
	e := newEnv(t)
	tok := e.token("agenda@example.com")
	var cals []string
	for i := range 3 {
		d := e.must(tok, `mutation($n: String!) { createCalendar(input: {name: $n, timeZone: "Asia/Tokyo"}) { calendar { id } } }`, map[string]any{"n": fmt.Sprint("cal ", i)})
		cals = append(cals, str(d, "createCalendar.calendar.id"))
	}
	create := func(cal, title, timing, tags string) {
		e.must(tok, `mutation($c: ID!, $t: String!) { createEntry(input: {calendarId: $c, title: $t, timing: `+timing+`, tags: `+tags+`}) { entry { id } } }`,
			map[string]any{"c": cal, "t": title})
	}
	create(cals[0], "a-meeting", `{timed: {start: "2026-11-24T10:00:00Z", end: "2026-11-24T11:00:00Z"}}`, `["work"]`)
	create(cals[1], "b-holiday", `{allDay: {date: "2026-11-24"}}`, `["home"]`)
	create(cals[2], "c-trip", `{multiDay: {startDate: "2026-11-01", endDate: "2026-11-26"}}`, `["home", "work"]`)
	create(cals[2], "d-outside", `{allDay: {date: "2026-12-24"}}`, `[]`)
	titles := func(args string, vars map[string]any) []string {
		t.Helper()
		d := e.must(tok, `query($ids: [ID!]) { viewer { agenda(range: {dates: {start: "2026-11-24", end: "2026-11-25"}}, calendarIds: $ids`+args+`) {
			timeZone entries { title calendar { name viewerRole } } } } }`, vars)
		var out []string
		for _, en := range get(d, "viewer.agenda.entries").([]any) {
			if str(en, "calendar.viewerRole") != "OWNER" {
				t.Fatalf("entry without its calendar and role: %v", en)
			}
			out = append(out, str(en, "title"))
		}
		return out
	}
	if got := titles("", nil); !slices.Equal(got, []string{"c-trip", "b-holiday", "a-meeting"}) {
		t.Errorf("agenda: got %q", got)
	}
	if got := titles("", map[string]any{"ids": cals[:2]}); !slices.Equal(got, []string{"b-holiday", "a-meeting"}) {
		t.Errorf("agenda of two calendars: got %q", got)
	}
	if got := titles(`, filter: {tags: ["work"]}`, nil); !slices.Equal(got, []string{"c-trip", "a-meeting"}) {
		t.Errorf("tag filter: got %q", got)
	}
	if got := titles(`, filter: {kinds: [ALL_DAY, MULTI_DAY], tags: ["home"]}`, nil); !slices.Equal(got, []string{"c-trip", "b-holiday"}) {
		t.Errorf("kind and tag filter: got %q", got)
	}
	// Preferences decide the zone when none is asked for.
	e.must(tok, `mutation { updatePreferences(input: {expectedVersion: 1, timeZone: "Pacific/Auckland"}) { preferences { timeZone } } }`, nil)
	d := e.must(tok, `{ viewer { agenda(range: {dates: {start: "2026-11-24", end: "2026-11-25"}}) { timeZone start } } }`, nil)
	if str(d, "viewer.agenda.timeZone") != "Pacific/Auckland" || str(d, "viewer.agenda.start") != "2026-11-23T11:00:00Z" {
		t.Errorf("agenda zone from preferences: got %v", d)
	}
}

func TestMoveEntryThroughTheAPI(t *testing.T) {
	e := newEnv(t)
	w := e.entryWorld("mv")
	d := e.must(w.writer, `mutation($id: ID!, $to: ID!) { moveEntry(input: {id: $id, expectedVersion: 1, toCalendarId: $to}) {
		previousId entry { id icalUid version calendar { id } } } }`, map[string]any{"id": w.taskID, "to": w.own["writer"]})
	if str(d, "moveEntry.previousId") != w.taskID || str(d, "moveEntry.entry.id") == w.taskID ||
		str(d, "moveEntry.entry.calendar.id") != w.own["writer"] || num(d, "moveEntry.entry.version") != 2 {
		t.Fatalf("move: %v", d)
	}
	if r := e.do(w.writer, `query($id: ID!) { node(id: $id) { id } }`, map[string]any{"id": w.taskID}); r.code() != absent {
		t.Fatalf("the old ID still resolves: %s", r.Raw)
	}
	if !strings.Contains(str(d, "moveEntry.entry.icalUid"), "@calgraph.local") {
		t.Errorf("icalUid %q", str(d, "moveEntry.entry.icalUid"))
	}
}

func TestAgendaLimitsAndOneOfNulls(t *testing.T) {
	e := newEnv(t)
	tok := e.token("limits@example.com")
	var ids []string
	for i := range 501 {
		ids = append(ids, model.CalendarGID(fmt.Sprintf("00000000-0000-7000-8000-%012d", i)))
	}
	r := e.do(tok, `query($ids: [ID!]) { viewer { agenda(range: {dates: {start: "2026-01-01", end: "2026-01-02"}}, calendarIds: $ids) { timeZone } } }`,
		map[string]any{"ids": ids})
	if r.code() != "BAD_USER_INPUT" || r.Errors[0].Extensions.Field != "calendarIds" {
		t.Fatalf("501 calendars: got %s", r.Raw)
	}
	r = e.do(tok, `query($r: TimeRangeInput!) { viewer { agenda(range: $r) { timeZone } } }`,
		map[string]any{"r": map[string]any{"dates": map[string]any{"start": "2026-01-01", "end": "2026-01-02"}, "instants": nil}})
	if r.code() != "BAD_USER_INPUT" || r.Errors[0].Extensions.Field != "range" {
		t.Fatalf("a null choice beside a real one: got %s", r.Raw)
	}
}
