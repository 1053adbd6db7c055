package graph_test

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/calgraph/calgraph/internal/calendar"
	"github.com/calgraph/calgraph/internal/dynamo"
)

// callLatency is added to every DynamoDB call so that calls sent together
// overlap and calls that wait for others do not.
const callLatency = 25 * time.Millisecond

// TestViewerCalendarsWithMembersCostFourWaves checks the request plan of the
// canonical nested read: the viewer's N calendars with their members.
func TestViewerCalendarsWithMembersCostFourWaves(t *testing.T) {
	for _, n := range []int{1, 5, 50, 100} {
		t.Run(fmt.Sprint("N=", n), func(t *testing.T) {
			e := newEnv(t, withLatency(callLatency))
			tok := e.token("fan@example.com")
			e.must(tok, provision, nil)
			seedCalendars(t, e, "fan@example.com", n, []string{"m1@example.com", "m2@example.com"})

			e.rec.Reset()
			e.must(tok, `{ viewer { calendars(first: 100) { edges { node { role calendar {
				id name viewerRole members(first: 10) { edges { node { role user { name email } } } } } } } } } }`, nil)
			calls := e.rec.Calls()
			waves := dynamo.WaveOf(calls)
			plan := map[string]int{}
			for i, c := range calls {
				plan[fmt.Sprintf("wave %d %s %s", waves[i], c.Op, c.Index)]++
			}
			want := map[string]int{
				"wave 1 Query GSI1":    1,              // the viewer's memberships
				"wave 2 BatchGetItem ": (n + 99) / 100, // their calendars
				"wave 3 Query ":        n,              // each calendar's members, concurrently
			}
			for k, v := range want {
				if plan[k] != v {
					t.Errorf("got %d × %q, want %d; plan:\n%s", plan[k], k, v, describe(plan))
				}
			}
			userBatches := plan["wave 4 BatchGetItem "]
			if userBatches < 1 || userBatches > max(1, n/5) {
				t.Errorf("got %d BatchGetItem calls for the members' users, want between 1 and %d; plan:\n%s", userBatches, max(1, n/5), describe(plan))
			}
			if total := 1 + (n+99)/100 + n + userBatches; len(calls) != total {
				t.Errorf("got %d calls, want %d; plan:\n%s", len(calls), total, describe(plan))
			}
			t.Logf("plan:\n%s", describe(plan))
			if w := dynamo.Waves(calls); w != 4 {
				t.Errorf("got %d waves, want 4; plan:\n%s", w, describe(plan))
			}
		})
	}
}

// seedCalendars gives the user n calendars, each shared with members, writing
// straight to the store without the added latency.
func seedCalendars(t *testing.T, e *env, owner string, n int, members []string) {
	t.Helper()
	s := dynamo.New(dynamoClient(e), e.store.Table())
	ctx := context.Background()
	as := func(email string) context.Context {
		id, err := s.ResolveIdentity(ctx, calendar.SignUp{Identity: calendar.Identity{Provider: "calgraph-local", Subject: email}, Email: email})
		if err != nil {
			t.Fatal(err)
		}
		return calendar.WithViewer(ctx, id)
	}
	ownerCtx := as(owner)
	for _, m := range members {
		as(m)
	}
	for i := range n {
		c, _, err := s.CreateCalendar(ownerCtx, calendar.NewCalendar{Name: fmt.Sprint("cal ", i)})
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range members {
			if _, err := s.AddMember(ownerCtx, c.ID, m, calendar.RoleReader); err != nil {
				t.Fatal(err)
			}
		}
	}
}

func describe(plan map[string]int) string {
	var lines []string
	for k, v := range plan {
		lines = append(lines, fmt.Sprintf("  %3d × %s", v, k))
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}
