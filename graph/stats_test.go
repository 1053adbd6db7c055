package graph_test

import (
	"encoding/json"
	"testing"
	"time"
)

func fmtJSON(v any) string { b, _ := json.Marshal(v); return string(b) }

const statsQuery = `{ viewer { stats { totalEvents totalTasks upcomingEvents overdueTasks lastEventCreated lastTaskCompleted } } }`

// TestViewerStats: the counts follow the API's writes, a writer's completion
// of the owner's task counts for the writer, and reading them is one
// TransactGetItems whatever they count.
func TestViewerStats(t *testing.T) {
	e := newEnv(t)
	w := e.world("stats")
	d := e.must(w.owner, statsQuery, nil)
	if got := get(d, "viewer.stats"); fmtJSON(got) != `{"lastEventCreated":null,"lastTaskCompleted":null,"overdueTasks":0,"totalEvents":0,"totalTasks":0,"upcomingEvents":0}` {
		t.Fatalf("before anything: %s", fmtJSON(got))
	}
	soon := time.Now().UTC().Add(time.Hour).Truncate(time.Second)
	ev := e.must(w.owner, `mutation($c: ID!, $s: DateTime!, $e: DateTime!) { createEntry(input: {calendarId: $c, title: "Soon",
		timing: {timed: {start: $s, end: $e, timeZone: "UTC"}}}) { entry { id createdAt } } }`,
		map[string]any{"c": w.calendarID, "s": soon.Format(time.RFC3339), "e": soon.Add(time.Hour).Format(time.RFC3339)})
	late := e.must(w.owner, `mutation($c: ID!) { createEntry(input: {calendarId: $c, title: "Late",
		timing: {task: {dueDate: "2020-01-01"}}}) { entry { id version } } }`, map[string]any{"c": w.calendarID})
	e.must(w.owner, createTask, map[string]any{"c": w.calendarID, "t": "due far ahead"})
	e.must(w.owner, `mutation($c: ID!) { createEntry(input: {calendarId: $c, title: "Also late",
		timing: {task: {dueDate: "2020-01-02"}}}) { entry { id } } }`, map[string]any{"c": w.calendarID})
	d = e.must(w.writer, `mutation($id: ID!) { completeTask(input: {id: $id, expectedVersion: 1}) { task { completedAt } } }`,
		map[string]any{"id": str(late, "createEntry.entry.id")})
	completedAt := str(d, "completeTask.task.completedAt")

	e.rec.Reset()
	d = e.must(w.owner, statsQuery, nil)
	want := `{"lastEventCreated":"` + str(ev, "createEntry.entry.createdAt") + `","lastTaskCompleted":null,"overdueTasks":1,"totalEvents":1,"totalTasks":3,"upcomingEvents":1}`
	if got := fmtJSON(get(d, "viewer.stats")); got != want {
		t.Errorf("owner's stats:\n got %s\nwant %s", got, want)
	}
	plan := planOf(e.rec.Calls())
	if len(e.rec.Calls()) != 1 || plan["wave 1 TransactGetItems "] != 1 {
		t.Errorf("reading the stats: plan\n%s\nwant one TransactGetItems", describe(plan))
	}
	d = e.must(w.writer, statsQuery, nil)
	if got := fmtJSON(get(d, "viewer.stats")); got != `{"lastEventCreated":null,"lastTaskCompleted":"`+completedAt+`","overdueTasks":0,"totalEvents":0,"totalTasks":0,"upcomingEvents":0}` {
		t.Errorf("writer's stats: %s", got)
	}
	if r := e.do("", statsQuery, nil); r.code() != "UNAUTHENTICATED" {
		t.Errorf("signed out: %s", r.Raw)
	}
}
