package graph_test

import (
	"fmt"
	"maps"
	"math"
	"runtime/metrics"
	"testing"

	"github.com/calgraph/calgraph/graph/model"
)

// TestListsWithoutGoroutines: a week view's entries, which select nothing
// that can wait, are marshaled without a goroutine each (graph/lists.go), and
// the members view, whose users are loaded, still loads them in one batch
// (its request plan is pinned in batching_test.go).
func TestListsWithoutGoroutines(t *testing.T) {
	e := newEnv(t)
	const owner = "lists@example.com"
	tok := e.token(owner)
	e.must(tok, provision, nil)
	cals := seedCalendars(t, e, owner, 5, nil)
	seedEntries(t, e, owner, cals, 7)
	const week = `{ viewer { calendars(first: 10) { edges { node { calendar { id
		entries(range: {dates: {start: "2026-11-23", end: "2026-11-30"}}) { entries { id title calendar { name }
		... on TimedEntry { start end } } } } } } } } }`
	created := func() uint64 {
		s := []metrics.Sample{{Name: "/sched/goroutines-created:goroutines"}}
		metrics.Read(s)
		return s[0].Value.Uint64()
	}
	e.must(tok, week, nil) // connections and caches warm
	// The fewest of three views: a loaded machine can make one open more
	// connections to the engine (three goroutines each) than the view
	// before, but never make the entries' goroutines go away.
	var d map[string]any
	started := uint64(math.MaxUint64)
	for range 3 {
		before := created()
		d = e.must(tok, week, nil)
		started = min(started, created()-before)
	}

	shown := 0
	for _, edge := range get(d, "viewer.calendars.edges").([]any) {
		shown += len(get(edge, "node.calendar.entries.entries").([]any))
	}
	if shown != 5*8 {
		t.Fatalf("got %d entries, want %d (7 single entries and an occurrence of the weekly series in each calendar)", shown, 5*8)
	}
	t.Logf("%d goroutines started for %d entries", started, shown)
	if started >= uint64(shown) {
		t.Errorf("the view started %d goroutines for %d entries: its entries run on goroutines of their own", started, shown)
	}
}

// TestSettledFieldsReadNothing: the resolver fields graph/execute.go counts
// as never waiting (settledFields) cost no DynamoDB call and no wave: each
// view asks the same calls, in the same waves, with them and without.
func TestSettledFieldsReadNothing(t *testing.T) {
	e := newEnv(t, withWaveGate(), withoutViewCache()) // each view reads afresh
	const owner = "settled@example.com"
	tok := e.token(owner)
	e.must(tok, provision, nil)
	cals := seedCalendars(t, e, owner, 3, []string{"member@example.com"})
	seedEntries(t, e, owner, cals, 2)
	for _, c := range cals {
		e.must(tok, `mutation($c: ID!) { createInvitation(input: {calendarId: $c, role: READER}) { token } }`,
			map[string]any{"c": model.CalendarGID(c)})
	}
	const week = `range: {dates: {start: "2026-11-23", end: "2026-11-30"}}`
	for _, tt := range []struct{ name, without, with string }{
		{"calendars", `{ viewer { calendars(first: 10) { edges { node { calendar { name } } } } } }`,
			`{ viewer { calendars(first: 10) { edges { node { calendar { id name viewerRole } } } } } }`},
		{"agenda", `{ viewer { agenda(` + week + `) { entries { title calendar { name } } } } }`,
			`{ viewer { agenda(` + week + `) { entries { title calendar { name viewerRole } } } } }`},
		{"members", `{ viewer { calendars(first: 10) { edges { node { calendar { members(first: 10) { edges { node { role user { name } } } } } } } } } }`,
			`{ viewer { calendars(first: 10) { edges { node { calendar { members(first: 10) { edges { node { id role user { id name } } } } } } } } } }`},
		{"invitations", `{ viewer { calendars(first: 10) { edges { node { calendar { invitations(first: 10) { edges { node { role } } } } } } } } }`,
			`{ viewer { calendars(first: 10) { edges { node { calendar { invitations(first: 10) { edges { node { id role } } } } } } } } }`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			steadyPlan(t, e, func(e *env) (int, []string) {
				calls := 0
				plan := func(query string) map[string]int {
					e.rec.Reset()
					e.must(tok, query, nil)
					calls += len(e.rec.Calls())
					return planOf(e.rec.Calls())
				}
				if without, with := plan(tt.without), plan(tt.with); !maps.Equal(with, without) {
					return calls, []string{fmt.Sprintf("with the settled fields:\n%s\nwithout:\n%s", describe(with), describe(without))}
				}
				return calls, nil
			})
		})
	}
}
