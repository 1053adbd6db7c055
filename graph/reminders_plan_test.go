package graph_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/calgraph/calgraph/internal/dynamo"
	"github.com/calgraph/calgraph/internal/remind"
)

// TestReminderAlertsCostWhatOneDoes: the viewer's list of reminders that
// fell due reads its page (one Query), then the entries it reminds of and
// their calendars in one BatchGetItem, and each series whose occurrence it
// reminds of (one Query each, the master with its exceptions, in the same
// wave): a page of six alerts (three on single entries, three on series
// occurrences, in two calendars) takes the waves a page of one takes, and
// one call more per series only.
//
// Not parallel: the wave gate holds the store's calls until the process is
// quiet, which tests running beside it (and a reminder runner) can keep it
// from being until requests time out (UNAVAILABLE in CI).
func TestReminderAlertsCostWhatOneDoes(t *testing.T) {
	e := newEnv(t, withWaveGate(), withoutViewCache())
	ctx, stop := context.WithCancel(context.Background())
	ada := e.token("alertplan@example.com")
	var cals []string
	for _, name := range []string{"Home", "Work"} {
		cal := str(e.must(ada, `mutation($n: String!) { createCalendar(input: {name: $n}) { calendar { id } } }`, map[string]any{"n": name}), "createCalendar.calendar.id")
		e.must(ada, `mutation($c: ID!) { updateCalendarSettings(input: {calendarId: $c, expectedVersion: 0, defaultReminders: [{minutes: 0}]}) { membership { id } } }`,
			map[string]any{"c": cal})
		cals = append(cals, cal)
	}
	go remind.New(e.store, 100*time.Millisecond, nil, nil).Run(ctx)
	// A reminder set after its time does not fire: the six entries must all
	// be made before they start, which a loaded machine (-race, parallel
	// tests) took more than 2 s to do.
	start := time.Now().Add(8 * time.Second).UTC().Truncate(time.Second)
	for i := range 6 {
		recurrence := ""
		if i%2 == 1 {
			recurrence = `, recurrence: {rule: "FREQ=DAILY;COUNT=3"}`
		}
		e.must(ada, `mutation($c: ID!, $t: String!, $s: DateTime!) { createEntry(input: {calendarId: $c, title: $t,
			timing: {timed: {start: $s, timeZone: "UTC"}}`+recurrence+`}) { entry { id } } }`,
			map[string]any{"c": cals[i%2], "t": fmt.Sprint("Call ", i), "s": start.Format(time.RFC3339)})
	}
	if time.Now().After(start) {
		t.Fatalf("making six entries took until after they start (%s): the machine is too slow for this test", start)
	}
	const list = `query($n: Int!) { viewer { reminderAlerts(first: $n) { edges { node { id state
		entry { title calendar { name viewerRole } ... on TimedEntry { start series { id } } } } } } } }`
	deadline := start.Add(30 * time.Second)
	for {
		d := e.must(ada, list, map[string]any{"n": 6})
		if edges := get(d, "viewer.reminderAlerts.edges").([]any); len(edges) == 6 && str(edges[5], "node.entry.title") != "" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("six reminders did not fire within 30 s: %v", d)
		}
		time.Sleep(200 * time.Millisecond)
	}
	stop()
	time.Sleep(300 * time.Millisecond) // the runner's last pass is over: it is not what is measured

	steadyPlan(t, e, func(e *env) (int, []string) {
		plans, calls, waves := map[int]map[string]int{}, map[int]int{}, map[int]int{}
		for _, n := range []int{1, 6} {
			e.rec.Reset()
			d := e.must(ada, list, map[string]any{"n": n})
			edges := get(d, "viewer.reminderAlerts.edges").([]any)
			if len(edges) != n || str(edges[n-1], "node.entry.calendar.name") == "" {
				return 0, []string{fmt.Sprintf("a page of %d: %v", n, d)}
			}
			series := 0
			for _, edge := range edges {
				if get(edge, "node.entry.series") != nil {
					series++
				}
			}
			c := e.rec.Calls()
			plans[n], calls[n], waves[n] = planOf(c), len(c), dynamo.Waves(c)
			if calls[n] != 2+series || waves[n] != 2+min(series, 1) {
				return calls[n], []string{fmt.Sprintf("a page of %d with %d series occurrences took %d calls in %d waves, want %d in %d:\n%s",
					n, series, calls[n], waves[n], 2+series, 2+min(series, 1), describe(plans[n]))}
			}
		}
		return calls[6], nil
	})
}
