package graph_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/calgraph/calgraph/graph/model"
	"github.com/calgraph/calgraph/internal/calendar"
	"github.com/calgraph/calgraph/internal/dynamo"
	"github.com/calgraph/calgraph/internal/recurrence"
)

// TestViewerCalendarsInTheViewersOrder: the viewer's 500 calendars (the
// most one list orders; 100 with -short), some given sort keys and some
// hidden, page in the list's order (sort key, then creation), each page one
// GSI1 Query of the whole list and one strong BatchGetItem wave of its
// memberships and calendars, whatever the page; the pages' read time is
// logged (the README's figure).
func TestViewerCalendarsInTheViewersOrder(t *testing.T) {
	n := 500
	if testing.Short() {
		n = 100
	}
	e := newEnv(t, withWaveGate()) // a starved machine must not split the batch into two waves
	const owner = "lister@example.com"
	tok := e.token(owner)
	e.must(tok, provision, nil)
	ids := seedCalendars(t, e, owner, n, nil)
	s := dynamo.New(dynamoClient(e), e.store.Table(), recurrence.Engine{})
	viewerID := decodeUserID(t, str(e.must(tok, `{ viewer { user { id } } }`, nil), "viewer.user.id"))
	as := calendar.WithViewer(context.Background(), calendar.Viewer{ID: viewerID})
	// The last ten calendars are dragged to the top, in reverse; every
	// seventh of the rest is hidden.
	var want []string
	for i := range 10 {
		id := ids[n-1-i]
		key := fmt.Sprintf("a%02d", i)
		if _, _, err := s.UpdateCalendarSettings(as, calendar.SettingsUpdate{CalendarID: id, SortKey: calendar.Set(key)}); err != nil {
			t.Fatal(err)
		}
		want = append(want, model.CalendarGID(id))
	}
	for i, id := range ids[:n-10] {
		if i%7 == 3 {
			if _, _, err := s.UpdateCalendarSettings(as, calendar.SettingsUpdate{CalendarID: id, Hidden: calendar.Set(true)}); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want = append(want, model.CalendarGID(id))
	}
	var got []string
	var after any
	var took []time.Duration
	for page := 0; ; page++ {
		e.rec.Reset()
		start := time.Now()
		d := e.must(tok, `query($a: String) { viewer { calendars(first: 100, after: $a) { edges { node { calendar { id }
			settings { sortKey hidden } } } pageInfo { hasNextPage endCursor } } } }`, map[string]any{"a": after})
		took = append(took, time.Since(start))
		calls := e.rec.Calls()
		plan := planOf(calls)
		if plan["wave 1 Query GSI1"] != 1 || plan["wave 2 BatchGetItem "] < 1 || dynamo.Waves(calls) != 2 {
			t.Errorf("page %d: plan\n%s\nwant one GSI1 Query, then one wave of BatchGetItem", page, describe(plan))
		}
		for _, edge := range get(d, "viewer.calendars.edges").([]any) {
			got = append(got, str(edge, "node.calendar.id"))
		}
		if get(d, "viewer.calendars.pageInfo.hasNextPage") != true {
			break
		}
		after = str(d, "viewer.calendars.pageInfo.endCursor")
	}
	if !slices.Equal(got, want) {
		first := 0
		for first < min(len(got), len(want)) && got[first] == want[first] {
			first++
		}
		t.Errorf("the list: got %d calendars, want %d, in order; they differ from position %d", len(got), len(want), first)
	}
	t.Logf("%d calendars (%d listed): pages of 100 took %v", n, len(want), took)
}
