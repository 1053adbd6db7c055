package graph_test

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/calgraph/calgraph/graph/model"
	"github.com/calgraph/calgraph/internal/calendar"
	"github.com/calgraph/calgraph/internal/dynamo"
	"github.com/calgraph/calgraph/internal/recurrence"
)

// TestViewerCalendarsWithMembersCostFourWaves checks the request plan of the
// canonical nested read: the viewer's N calendars with their members, and
// the viewer's settings of each (on the memberships GSI1 lists and the
// strong read takes again: no read of their own).
func TestViewerCalendarsWithMembersCostFourWaves(t *testing.T) {
	for _, n := range planSizes(1, 5, 50, 100) {
		t.Run(fmt.Sprint("N=", n), func(t *testing.T) {
			e := newEnv(t, withWaveGate())
			tok := e.token("fan@example.com")
			e.must(tok, provision, nil)
			seedCalendars(t, e, "fan@example.com", n, []string{"m1@example.com", "m2@example.com"})

			steadyPlan(t, e, func(e *env) (int, []string) {
				e.rec.Reset()
				e.must(tok, `{ viewer { calendars(first: 100) { edges { node { role
					settings { displayColor textColor displayName hidden selected sortKey defaultReminders { minutes } version } calendar {
					id name viewerRole members(first: 10) { edges { node { role user { name email } } } } } } } } } }`, nil)
				calls := e.rec.Calls()
				plan := planOf(calls)
				var problems []string
				batches := (2*n + 99) / 100 // the calendars and, read again strongly, the memberships
				want := map[string]int{
					"wave 1 Query GSI1":    1,       // the viewer's memberships
					"wave 2 BatchGetItem ": batches, // their calendars, and the memberships
					"wave 3 Query ":        n,       // each calendar's members, concurrently
				}
				for k, v := range want {
					if plan[k] != v {
						problems = append(problems, fmt.Sprintf("got %d × %q, want %d; plan:\n%s", plan[k], k, v, describe(plan)))
					}
				}
				userBatches := plan["wave 4 BatchGetItem "]
				if userBatches < 1 || userBatches > max(1, n/5) {
					problems = append(problems, fmt.Sprintf("got %d BatchGetItem calls for the members' users, want between 1 and %d; plan:\n%s", userBatches, max(1, n/5), describe(plan)))
				}
				if total := 1 + batches + n + userBatches; len(calls) != total {
					problems = append(problems, fmt.Sprintf("got %d calls, want %d; plan:\n%s", len(calls), total, describe(plan)))
				}
				if w := dynamo.Waves(calls); w != 4 {
					problems = append(problems, fmt.Sprintf("got %d waves, want 4; plan:\n%s", w, describe(plan)))
				}
				return len(calls), problems
			})
		})
	}
}

// planSizes returns the sizes (calendars, subscribers) a test of DynamoDB
// calls tries: all of them, or with -short the smallest and the largest,
// which hold the plan's edges (one key per batch; the most calendars, at a
// batch boundary). Seeding the calendars between is most of these tests' time.
func planSizes(all ...int) []int {
	if testing.Short() {
		return []int{all[0], all[len(all)-1]}
	}
	return all
}

// seedCalendars gives the user n calendars, each shared with members, writing
// straight to the store without the added latency, and returns their IDs.
func seedCalendars(t testing.TB, e *env, owner string, n int, members []string) []string {
	t.Helper()
	s := dynamo.New(dynamoClient(e), e.store.Table(), recurrence.Engine{})
	ctx := context.Background()
	as := func(email string) context.Context {
		id, _, err := s.ResolveIdentity(ctx, calendar.SignUp{Identity: calendar.Identity{Provider: "calgraph-local", Subject: email}, Email: email})
		if err != nil {
			t.Fatal(err)
		}
		return calendar.WithViewer(ctx, calendar.Viewer{ID: id})
	}
	ownerCtx := as(owner)
	for _, m := range members {
		as(m)
	}
	var ids []string
	for i := range n {
		c, _, err := s.CreateCalendar(ownerCtx, calendar.NewCalendar{Name: fmt.Sprint("cal ", i)})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, c.ID)
		for _, m := range members {
			if _, _, err := s.AddMember(ownerCtx, c.ID, m, calendar.RoleReader); err != nil {
				t.Fatal(err)
			}
		}
	}
	return ids
}

func describe(plan map[string]int) string {
	var lines []string
	for k, v := range plan {
		lines = append(lines, fmt.Sprintf("  %3d × %s", v, k))
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

// TestWeekViewRequestPlan checks the canonical week view — the viewer's N
// calendars with their entries in a week (single entries and a weekly series
// begun ten years before), and each entry's calendar and series — costs one
// Query for memberships, BatchGetItem for the calendars and the memberships
// read again strongly (and the viewer's preferences, in wave 3 when the last
// call of wave 2 is full: ⌈(2N+1)/100⌉ calls in all), two
// Queries per calendar (entries, series) in one concurrent wave, then the
// calendars read again in ⌈N/100⌉ BatchGetItem calls, to check that no
// write landed between each calendar's two Queries (internal/dynamo
// range_reads.go), and nothing per entry: four waves whatever N is.
func TestWeekViewRequestPlan(t *testing.T) {
	for _, n := range planSizes(1, 5, 50, 100) {
		// One table for both zones, each read by a server of its own (e.sibling),
		// whose view cache is as empty as the first's.
		seeded := newEnv(t, withWaveGate())
		tok := seeded.token("week@example.com")
		seeded.must(tok, provision, nil)
		cals := seedCalendars(t, seeded, "week@example.com", n, nil)
		seedEntries(t, seeded, "week@example.com", cals, 3)
		for _, zone := range []string{"", `, timeZone: "Europe/Paris"`} {
			t.Run(fmt.Sprintf("N=%d%s", n, map[bool]string{true: " preferred zone", false: " asked zone"}[zone == ""]), func(t *testing.T) {
				e := seeded.sibling(t, gateWindows[0])
				steadyPlan(t, e, func(e *env) (int, []string) {
					e.rec.Reset()
					d := e.must(tok, `{ viewer { calendars(first: 100) { edges { node { calendar { id name
						entries(range: {dates: {start: "2026-11-23", end: "2026-11-30"}}`+zone+`) {
							timeZone entries { title calendar { name } series { title } } } } } } } } }`, nil)
					if got := len(get(d, "viewer.calendars.edges").([]any)); got != n {
						t.Fatalf("got %d calendars, want %d", got, n)
					}
					if got := len(get(d, "viewer.calendars.edges.0.node.calendar.entries.entries").([]any)); got != 4 {
						t.Fatalf("got %d entries in the first calendar, want 4", got)
					}
					calls := e.rec.Calls()
					plan := planOf(calls)
					batches := (2*n + 1 + 99) / 100 // the viewer rides along in wave 2 when there is room, else in wave 3
					checks := (n + 99) / 100
					want := map[string]int{
						"wave 1 Query GSI1":    1,
						"wave 2 BatchGetItem ": (2*n + 99) / 100,
						"wave 3 Query LSI1":    n,
						"wave 3 Query LSI2":    n,
						"wave 4 BatchGetItem ": checks,
					}
					var problems []string
					if len(calls) != 1+batches+2*n+checks || dynamo.Waves(calls) != 4 {
						problems = append(problems, fmt.Sprintf("got %d calls in %d waves, want %d in 4; plan:\n%s", len(calls), dynamo.Waves(calls), 1+batches+2*n+checks, describe(plan)))
					}
					for k, v := range want {
						if plan[k] != v {
							problems = append(problems, fmt.Sprintf("got %d × %q, want %d; plan:\n%s", plan[k], k, v, describe(plan)))
						}
					}
					return len(calls), problems
				})
			})
		}
	}
}

// TestAgendaRequestPlan checks the agenda's request plan across N calendars:
// their list from GSI1 beside the viewer's invitations (or, for calendarIds,
// the viewer's memberships in one batch), then one wave of the calendars, the memberships read again strongly
// and the viewer (⌈(2N+1)/100⌉ or ⌈(N+1)/100⌉ BatchGetItem calls), then the
// Queries of the calendars the viewer reads: entries, and series for those
// that ever held one (these all do; see TestSeriesFreeCalendarsSkipTheSeriesRead),
// then the calendars read again (⌈N/100⌉ calls) to check their reads.
// Four waves whatever N is. The view cache is off: the second request would
// find every range cached (TestViewCache).
func TestAgendaRequestPlan(t *testing.T) {
	for _, n := range planSizes(1, 5, 50) {
		t.Run(fmt.Sprint("N=", n), func(t *testing.T) {
			e := newEnv(t, withWaveGate(), withoutViewCache())
			tok := e.token("agenda@example.com")
			e.must(tok, provision, nil)
			cals := seedCalendars(t, e, "agenda@example.com", n, nil)
			seedEntries(t, e, "agenda@example.com", cals, 3)
			var gids []string
			for _, id := range cals {
				gids = append(gids, model.CalendarGID(id))
			}
			for _, tc := range []struct {
				name string
				ids  []string
				want map[string]int
			}{
				{"listed", nil, map[string]int{"wave 1 Query GSI1": 2, // the memberships, and the invitations (none)
					"wave 2 BatchGetItem ": (2*n + 100) / 100, "wave 3 Query LSI1": n, "wave 3 Query LSI2": n, "wave 4 BatchGetItem ": (n + 99) / 100}},
				{"calendarIds", gids, map[string]int{"wave 1 BatchGetItem ": (n + 99) / 100,
					"wave 2 BatchGetItem ": (n + 100) / 100, "wave 3 Query LSI1": n, "wave 3 Query LSI2": n, "wave 4 BatchGetItem ": (n + 99) / 100}},
			} {
				steadyPlan(t, e, func(e *env) (int, []string) {
					e.rec.Reset()
					d := e.must(tok, `query($ids: [ID!]) { viewer { agenda(range: {dates: {start: "2026-11-23", end: "2026-11-30"}}, calendarIds: $ids) {
						entries { title calendar { id } ... on TimedEntry { start } } } } }`, map[string]any{"ids": tc.ids})
					checkAgenda(t, tc.name, get(d, "viewer.agenda.entries").([]any), gids)
					calls := e.rec.Calls()
					if plan := planOf(calls); !maps.Equal(plan, tc.want) {
						return len(calls), []string{fmt.Sprintf("%s: got plan\n%s\nwant\n%s", tc.name, describe(plan), describe(tc.want))}
					}
					return len(calls), nil
				})
			}
		})
	}
}

// checkAgenda checks that an agenda of the calendars seedEntries filled
// (perEach 3) holds each one's four entries of the week in view order: every
// calendar's "entry 0" (in any order), then every "entry 1", and so on.
func checkAgenda(t *testing.T, name string, entries []any, gids []string) {
	t.Helper()
	groups := []string{"entry 0 2026-11-23T09:00:00Z", "entry 1 2026-11-24T09:00:00Z", "weekly 2026-11-24T15:00:00Z", "entry 2 2026-11-25T09:00:00Z"}
	if len(entries) != len(groups)*len(gids) {
		t.Fatalf("%s: got %d entries, want %d", name, len(entries), len(groups)*len(gids))
	}
	seen := make([][]string, len(groups))
	for i, x := range entries {
		g := i / len(gids)
		if got := str(x, "title") + " " + str(x, "start"); got != groups[g] {
			t.Fatalf("%s: entry %d: got %q, want %q", name, i, got, groups[g])
		}
		seen[g] = append(seen[g], str(x, "calendar.id"))
	}
	for g, cals := range seen {
		if slices.Sort(cals); !slices.Equal(cals, slices.Sorted(slices.Values(gids))) {
			t.Errorf("%s: %q: got calendars %v, want each of %v once", name, groups[g], cals, gids)
		}
	}
}

// planOf counts calls by wave, operation and index.
func planOf(calls []dynamo.Call) map[string]int {
	waves := dynamo.WaveOf(calls)
	plan := map[string]int{}
	for i, c := range calls {
		plan[fmt.Sprintf("wave %d %s %s", waves[i], c.Op, c.Index)]++
	}
	return plan
}

// seedEntries gives each calendar perEach entries in the week of 23 November
// 2026 and a weekly series begun in 2016, written straight to the store.
// TestSeriesFreeCalendarsSkipTheSeriesRead: of 6 calendars, the 3 that never
// held a series cost one Query each in the week view and the agenda, the 3
// that did cost two, and the views show the same entries either way. Only
// the reads of more than one call are checked (one BatchGetItem after the
// Queries); a view of a calendar that never held a series, whose week fits
// one page, is not (its one Query is one snapshot), and costs a wave less.
func TestSeriesFreeCalendarsSkipTheSeriesRead(t *testing.T) {
	e := newEnv(t, withWaveGate(), withoutViewCache()) // each view reads afresh
	tok := e.token("free@example.com")
	e.must(tok, provision, nil)
	cals := seedCalendars(t, e, "free@example.com", 6, nil)
	seedEntries(t, e, "free@example.com", cals[:3], 3)
	seedEntriesWithout(t, e, "free@example.com", cals[3:], 3)
	for _, tc := range []struct{ name, query, entries string }{
		{"week view", `{ viewer { calendars(first: 10) { edges { node { calendar {
			entries(range: {dates: {start: "2026-11-23", end: "2026-11-30"}}) { entries { title } } } } } } } }`,
			"viewer.calendars.edges.%d.node.calendar.entries.entries"},
		{"agenda", `{ viewer { agenda(range: {dates: {start: "2026-11-23", end: "2026-11-30"}}) { entries { title } } } }`,
			"viewer.agenda.entries"},
	} {
		var d map[string]any
		steadyPlan(t, e, func(e *env) (int, []string) {
			e.rec.Reset()
			d = e.must(tok, tc.query, nil)
			calls := e.rec.Calls()
			if plan := planOf(calls); plan["wave 3 Query LSI1"] != 6 || plan["wave 3 Query LSI2"] != 3 || plan["wave 4 BatchGetItem "] != 1 {
				return len(calls), []string{fmt.Sprintf("%s: want 6 × wave 3 Query LSI1, 3 × wave 3 Query LSI2 and 1 × wave 4 BatchGetItem; plan:\n%s", tc.name, describe(plan))}
			}
			return len(calls), nil
		})
		n := 0
		if tc.name == "agenda" {
			n = len(get(d, tc.entries).([]any))
		} else {
			for i := range 6 {
				n += len(get(d, fmt.Sprintf(tc.entries, i)).([]any))
			}
		}
		if n != 3*4+3*3 { // each calendar's 3 entries, and a weekly occurrence in the 3 with a series
			t.Errorf("%s: %d entries, want 21", tc.name, n)
		}
	}
	for i, want := range map[int]map[string]int{
		// The calendar and the viewer's membership, then the viewer's
		// preferences beside the calendar's Queries.
		0: {"wave 1 BatchGetItem ": 1, "wave 2 BatchGetItem ": 1, "wave 2 Query LSI1": 1, "wave 2 Query LSI2": 1, "wave 3 BatchGetItem ": 1},
		3: {"wave 1 BatchGetItem ": 1, "wave 2 BatchGetItem ": 1, "wave 2 Query LSI1": 1},
	} {
		var d map[string]any
		steadyPlan(t, e, func(e *env) (int, []string) {
			e.rec.Reset()
			d = e.must(tok, `query($id: ID!) { node(id: $id) { ... on Calendar {
				entries(range: {dates: {start: "2026-11-23", end: "2026-11-30"}}) { entries { title } } } } }`,
				map[string]any{"id": model.CalendarGID(cals[i])})
			calls := e.rec.Calls()
			if plan := planOf(calls); !maps.Equal(plan, want) {
				return len(calls), []string{fmt.Sprintf("calendar %d's week: got plan\n%s\nwant\n%s", i, describe(plan), describe(want))}
			}
			return len(calls), nil
		})
		if n := len(get(d, "node.entries.entries").([]any)); n != 4-i/3 {
			t.Errorf("calendar %d's week: %d entries, want %d", i, n, 4-i/3)
		}
	}
}

// seedEntriesWithout gives each calendar perEach single entries and no series.
func seedEntriesWithout(t *testing.T, e *env, owner string, cals []string, perEach int) {
	t.Helper()
	s, as := ownerStore(t, e, owner)
	for _, cal := range cals {
		for i := range perEach {
			start := time.Date(2026, 11, 23+i, 9, 0, 0, 0, time.UTC)
			if _, _, err := s.CreateEntry(as, calendar.NewEntry{CalendarID: cal, Title: fmt.Sprint("entry ", i),
				Timing: calendar.Timing{Timed: &calendar.TimedTiming{Start: start, End: start.Add(time.Hour)}}}); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// seedEntries gives each calendar perEach single entries and a weekly series.
func seedEntries(t *testing.T, e *env, owner string, cals []string, perEach int) {
	t.Helper()
	seedEntriesWithout(t, e, owner, cals, perEach)
	s, as := ownerStore(t, e, owner)
	for _, cal := range cals {
		start := time.Date(2016, 11, 22, 15, 0, 0, 0, time.UTC) // a Tuesday
		_, _, err := s.CreateEntry(as, calendar.NewEntry{CalendarID: cal, Title: "weekly",
			Timing:     calendar.Timing{Timed: &calendar.TimedTiming{Start: start, End: start.Add(time.Hour), TimeZone: "Europe/Paris"}},
			Recurrence: &calendar.Recurrence{Rule: "FREQ=WEEKLY"}})
		if err != nil {
			t.Fatal(err)
		}
	}
}

// ownerStore returns a store on e's table and a context acting as owner.
func ownerStore(t *testing.T, e *env, owner string) (*dynamo.Store, context.Context) {
	t.Helper()
	s := dynamo.New(dynamoClient(e), e.store.Table(), recurrence.Engine{})
	ctx := context.Background()
	id, _, err := s.ResolveIdentity(ctx, calendar.SignUp{Identity: calendar.Identity{Provider: "calgraph-local", Subject: owner}, Email: owner})
	if err != nil {
		t.Fatal(err)
	}
	return s, calendar.WithViewer(ctx, calendar.Viewer{ID: id})
}

// TestEntryMutationRequestPlan checks that an entry mutation's payload does
// not read again the calendar its permission check read (the store returns
// it with the write, and the resolver primes the loaders with it): a booking
// costs the check and the transaction, plus the keeping of the outcome with
// an idempotency key (whose marker is not read first: the transaction's
// condition on it finds a replay, which then reads it, and the calendar for
// its payload); a move names both calendars without reading them; an update
// and a task's completion cost the same as a creation.
func TestEntryMutationRequestPlan(t *testing.T) {
	e := newEnv(t)
	tok := e.token("plan@example.com")
	e.must(tok, provision, nil)
	var cals []string
	for _, id := range seedCalendars(t, e, "plan@example.com", 2, nil) {
		cals = append(cals, model.CalendarGID(id))
	}
	const payload = `{ entry { id version calendar { id name color } } } }`
	create := `mutation($c: ID!) { createEntry(input: {calendarId: $c, title: "Plan", timing: {allDay: {date: "2026-11-23"}}}) ` + payload
	keyed := `mutation($c: ID!) { createEntry(input: {calendarId: $c, title: "Plan", timing: {allDay: {date: "2026-11-23"}}, idempotencyKey: "plan"}) ` + payload
	var keyedID string
	for _, tc := range []struct {
		name  string
		query string
		vars  func() map[string]any
		want  []string // GetItems aside for a replay: engines differ in returning the item a refused transaction's condition met
	}{
		{"create", create, func() map[string]any { return map[string]any{"c": cals[0]} },
			[]string{"BatchGetItem", "TransactWriteItems"}},
		{"keyed create", keyed, func() map[string]any { return map[string]any{"c": cals[0]} },
			[]string{"BatchGetItem", "TransactWriteItems", "UpdateItem"}},
		{"keyed replay", keyed, func() map[string]any { return map[string]any{"c": cals[0]} },
			[]string{"BatchGetItem", "TransactWriteItems"}},
		{"move", `mutation($id: ID!, $to: ID!) { moveEntry(input: {id: $id, toCalendarId: $to, expectedVersion: 1}) {
			entry { id calendar { id name } } } }`, func() map[string]any {
			id := str(e.must(tok, create, map[string]any{"c": cals[0]}), "createEntry.entry.id")
			return map[string]any{"id": id, "to": cals[1]}
		}, []string{"BatchGetItem", "TransactWriteItems", "Query"}}, // the Query: users' own reminders, moved along (none here)
		{"update", `mutation($id: ID!) { updateEntry(input: {id: $id, expectedVersion: 1, title: "Planned"}) {
			entry { id calendar { id name } } } }`, func() map[string]any {
			return map[string]any{"id": str(e.must(tok, create, map[string]any{"c": cals[0]}), "createEntry.entry.id")}
		}, []string{"BatchGetItem", "TransactWriteItems"}},
		{"complete", `mutation($id: ID!) { completeTask(input: {id: $id, expectedVersion: 1}) { task { id calendar { id name } } } }`,
			func() map[string]any {
				d := e.must(tok, `mutation($c: ID!) { createEntry(input: {calendarId: $c, title: "Do", timing: {task: {dueDate: "2026-11-24"}}}) { entry { id } } }`,
					map[string]any{"c": cals[0]})
				return map[string]any{"id": str(d, "createEntry.entry.id")}
			}, []string{"BatchGetItem", "TransactWriteItems"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			vars := tc.vars()
			e.rec.Reset()
			d := e.must(tok, tc.query, vars)
			var ops []string
			for _, c := range e.rec.Calls() {
				if c.Op != "GetItem" || tc.name != "keyed replay" {
					ops = append(ops, c.Op)
				}
			}
			if !slices.Equal(ops, tc.want) {
				t.Fatalf("calls %v, want %v (%v)", ops, tc.want, d)
			}
			id := str(d, "createEntry.entry.id")
			if tc.name == "keyed create" {
				keyedID = id
			}
			if tc.name == "keyed replay" && id != keyedID {
				t.Fatalf("the replay answered %s, the first %s", id, keyedID)
			}
		})
	}
}
