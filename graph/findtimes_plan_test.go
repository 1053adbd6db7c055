package graph_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/calgraph/calgraph/internal/dynamo"
)

// seedTimes makes n users, each with a calendar holding a few entries (one
// a series) and working hours, shared at FREE_BUSY with the viewer; it
// returns the viewer's token and findTimes' input for all of them over two
// weeks.
func seedTimes(t testing.TB, e *env, n int) (string, map[string]any) {
	viewer := e.token("times-viewer@example.com")
	e.must(viewer, `{ viewer { user { id } } }`, nil)
	var users []any
	for i := range n {
		email := fmt.Sprintf("times%d@example.com", i)
		tok := e.token(email)
		cal := str(e.must(tok, `mutation { createCalendar(input: {name: "Work"}) { calendar { id } } }`, nil), "createCalendar.calendar.id")
		e.must(tok, `mutation($c: ID!) { addMember(input: {calendarId: $c, email: "times-viewer@example.com", role: FREE_BUSY}) { membership { id } } }`, map[string]any{"c": cal})
		for d := range 3 {
			e.must(tok, `mutation($c: ID!, $s: DateTime!, $e: DateTime!) { createEntry(input: {calendarId: $c, title: "Busy", timing: {timed: {start: $s, end: $e}}}) { entry { id } } }`,
				map[string]any{"c": cal, "s": fmt.Sprintf("2027-02-%02dT1%d:00:00Z", 1+3*d, i%8), "e": fmt.Sprintf("2027-02-%02dT1%d:45:00Z", 1+3*d, i%8)})
		}
		e.must(tok, `mutation($c: ID!) { createEntry(input: {calendarId: $c, title: "Stand-up", timing: {timed: {start: "2027-01-04T09:00:00Z", end: "2027-01-04T09:15:00Z", timeZone: "UTC"}},
			recurrence: {rule: "FREQ=DAILY"}}) { entry { id } } }`, map[string]any{"c": cal})
		e.must(tok, `mutation { updatePreferences(input: {expectedVersion: 1, workingHours: {timeZone: "Europe/Paris",
			days: [{day: MONDAY, windows: [{start: "09:00", end: "17:00"}]}, {day: TUESDAY, windows: [{start: "09:00", end: "17:00"}]},
			{day: WEDNESDAY, windows: [{start: "09:00", end: "17:00"}]}, {day: THURSDAY, windows: [{start: "09:00", end: "17:00"}]},
			{day: FRIDAY, windows: [{start: "09:00", end: "13:00"}]}]}}) { user { id } } }`, nil)
		users = append(users, email)
	}
	return viewer, map[string]any{"groups": []any{map[string]any{"users": users}}, "durationMinutes": 30, "timeZone": "Europe/Paris",
		"range": map[string]any{"dates": map[string]any{"start": "2027-02-01", "end": "2027-02-15"}}}
}

const findTimesQuery = `query($in: FindTimesInput!) { findTimes(input: $in) { truncated slots { start states } } }`

// TestFindTimesPlan pins findTimes' DynamoDB calls for 10 people over two
// weeks, in five waves: the emails' items; the people's and the viewer's
// memberships (GSI1, side by side) and the working hours; the viewer's memberships and the
// calendars in one batch; the calendars' range Queries (two each: these
// calendars hold a series), side by side; the range views' check of the
// calendars. The waves do not grow with the number of people.
func TestFindTimesPlan(t *testing.T) {
	const n = 10
	seeded := newEnv(t, withWaveGate())
	viewer, in := seedTimes(t, seeded, n)
	e := seeded.sibling(t, gateWindows[0])
	steadyPlan(t, e, func(e *env) (int, []string) {
		e.rec.Reset()
		d := e.must(viewer, findTimesQuery, map[string]any{"in": in})
		if len(get(d, "findTimes.slots").([]any)) == 0 {
			t.Fatalf("no slots: %v", d)
		}
		calls := e.rec.Calls()
		plan := planOf(calls)
		want := map[string]int{
			"wave 1 BatchGetItem ": 1,     // the emails
			"wave 2 BatchGetItem ": 1,     // the working hours, beside
			"wave 2 Query GSI1":    n + 1, // each person's memberships, and the viewer's
			"wave 3 BatchGetItem ": 1,     // the viewer's memberships and the calendars
			"wave 4 Query LSI1":    n,     // each calendar's entries
			"wave 4 Query LSI2":    n,     // and series
			"wave 5 BatchGetItem ": 1,     // the calendars again, checking the Queries (as every range view)
		}
		var problems []string
		for k, v := range want {
			if plan[k] != v {
				problems = append(problems, fmt.Sprintf("got %d × %q, want %d", plan[k], k, v))
			}
		}
		if len(calls) != 5+3*n || dynamo.Waves(calls) != 5 {
			problems = append(problems, fmt.Sprintf("got %d calls in %d waves, want %d in 5", len(calls), dynamo.Waves(calls), 5+3*n))
		}
		if len(problems) > 0 {
			problems = append(problems, "plan:\n"+describe(plan))
		}
		return len(calls), []string{strings.Join(problems, "\n")}[:min(1, len(problems))]
	})
}
