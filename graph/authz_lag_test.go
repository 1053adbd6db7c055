package graph_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/calgraph/calgraph/graph"
	"github.com/calgraph/calgraph/graph/model"
	"github.com/calgraph/calgraph/internal/auth"
	"github.com/calgraph/calgraph/internal/calendar"
	"github.com/calgraph/calgraph/internal/loader"
	"github.com/calgraph/calgraph/internal/recurrence"
)

// laggingGSI answers the GSI1 (membership-by-user) queries as DynamoDB may
// during its eventual-consistency window: with the items as they were before
// the last write. Everything else reads the real store.
type laggingGSI struct {
	calendar.Reader
	page *calendar.MembershipPage
	all  []*calendar.Membership
}

func (r laggingGSI) MembershipsOfUser(context.Context, string, calendar.Page) (*calendar.MembershipPage, error) {
	return r.page, nil
}
func (r laggingGSI) AllMembershipsOfUser(context.Context, string, int) ([]*calendar.Membership, error) {
	return r.all, nil
}

// TestRolesAreNotTakenFromTheIndex: the viewer's calendars and agenda are
// listed on GSI1, which may lag behind a change of role; what a member may
// read is decided by their membership read strongly. A member demoted to
// FREE_BUSY a moment ago, whose index item still says READER, gets what
// FREE_BUSY allows on that calendar (its name, no description, entries or
// members: FORBIDDEN as a direct read), and everything of the calendars they
// still read; their agenda leaves the demoted calendar out and answers with
// the others' entries.
func TestRolesAreNotTakenFromTheIndex(t *testing.T) {
	e := newEnv(t)
	w := e.world("lag")
	e.must(w.owner, `mutation($c: ID!) { updateCalendar(input: {id: $c, expectedVersion: 1, description: "Merger plans"}) { calendar { id } } }`,
		map[string]any{"c": w.calendarID})
	open := str(e.must(w.owner, `mutation { createCalendar(input: {name: "Open", description: "Lunch spots"}) { calendar { id } } }`, nil), "createCalendar.calendar.id")
	e.must(w.owner, `mutation($c: ID!) { addMember(input: {calendarId: $c, email: "reader-lag@example.com", role: READER}) { membership { id } } }`,
		map[string]any{"c": open})
	for cal, title := range map[string]string{w.calendarID: "Secret merger", open: "Open standup"} {
		e.must(w.owner, `mutation($c: ID!, $t: String!) { createEntry(input: {calendarId: $c, title: $t,
			timing: {allDay: {date: "2026-11-24"}}}) { entry { id } } }`, map[string]any{"c": cal, "t": title})
	}
	readerID, err := model.DecodeAs("id", model.KindUser, str(e.must(w.reader, `{ viewer { user { id } } }`, nil), "viewer.user.id"))
	if err != nil {
		t.Fatal(err)
	}
	// The index as it stands just before the demotion (the reader is READER of both).
	ctx := context.Background()
	page, err := e.store.MembershipsOfUser(ctx, readerID, calendar.Page{First: 20})
	if err != nil {
		t.Fatal(err)
	}
	all, err := e.store.AllMembershipsOfUser(ctx, readerID, 500)
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Memberships) != 2 || len(all) != 2 {
		t.Fatalf("got %d and %d memberships listed before the demotion, want 2", len(page.Memberships), len(all))
	}
	// The owner demotes the reader to FREE_BUSY (a strongly consistent write).
	e.must(w.owner, `mutation($m: ID!, $v: Int!) { changeMemberRole(input: {membershipId: $m, role: FREE_BUSY, expectedVersion: $v}) { membership { role } } }`,
		map[string]any{"m": w.readerMembershipID, "v": w.readerMembershipVersion})
	if c := (e.do(w.reader, `query($c: ID!) { calendar(id: $c) { entries(range: {dates: {start: "2026-11-23", end: "2026-11-30"}}) { entries { title } } } }`,
		map[string]any{"c": w.calendarID})).code(); c != "FORBIDDEN" {
		t.Fatalf("direct read after demotion: %q, want FORBIDDEN", c)
	}

	// Same server wiring, but GSI1 still answers with the pre-demotion items.
	logger := slog.New(slog.NewTextHandler(&syncBuffer{}, nil))
	verifier, _ := auth.NewVerifier(ctx, auth.Config{HMACSecret: testSecret, Issuer: auth.LocalIssuer, Audience: auth.LocalAudience})
	authn := auth.NewAuthenticator(verifier, e.store, logger)
	api := authn.Middleware(graph.NewHandler(e.store, logger, graph.Options{MaxBodyBytes: 64 << 10,
		NewLoaders: func(scope calendar.ReadScope) *loader.Loaders {
			return loader.New(laggingGSI{e.store, page, all}, recurrence.Engine{}, scope)
		}}))
	srv := httptest.NewServer(api)
	defer srv.Close()
	lag := &env{t: t, url: srv.URL, store: e.store}

	const week = `range: {dates: {start: "2026-11-23", end: "2026-11-30"}}`
	for _, tc := range []struct {
		name, query string
		errors      []string // "CODE at path"
		data        string   // JSON
	}{
		{"roles", `{ viewer { calendars { edges { node { role calendar { name description viewerRole } } } } } }`, nil,
			`{"viewer": {"calendars": {"edges": [
				{"node": {"role": "FREE_BUSY", "calendar": {"name": "Team", "description": null, "viewerRole": "FREE_BUSY"}}},
				{"node": {"role": "READER", "calendar": {"name": "Open", "description": "Lunch spots", "viewerRole": "READER"}}}]}}}`},
		{"entries and members", `{ viewer { calendars { edges { node { calendar { name
			entries(` + week + `) { entries { title } } members { edges { node { user { email } } } } } } } } } }`,
			[]string{"FORBIDDEN at viewer.calendars.edges.0.node.calendar.entries", "FORBIDDEN at viewer.calendars.edges.0.node.calendar.members"},
			`null`},
		{"agenda", `{ viewer { agenda(` + week + `) { entries { title calendar { name viewerRole } } } } }`, nil,
			`{"viewer": {"agenda": {"entries": [{"title": "Open standup", "calendar": {"name": "Open", "viewerRole": "READER"}}]}}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := lag.do(w.reader, tc.query, nil)
			var errs []string
			for _, e := range r.Errors {
				errs = append(errs, e.Extensions.Code+" at "+pathString(e.Path))
			}
			slices.Sort(errs)
			if diff := cmp.Diff(tc.errors, errs); diff != "" {
				t.Errorf("errors (-want +got):\n%s\n%s", diff, r.Raw)
			}
			var want map[string]any
			if err := json.Unmarshal([]byte(tc.data), &want); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, r.Data); diff != "" {
				t.Errorf("data (-want +got):\n%s", diff)
			}
		})
	}
}

// pathString joins a GraphQL error path with dots.
func pathString(path []any) string {
	parts := make([]string, len(path))
	for i, p := range path {
		parts[i] = fmt.Sprint(p)
	}
	return strings.Join(parts, ".")
}
