package graph_test

import (
	"context"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"

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
// read is decided by their membership read strongly, so a member demoted to
// FREE_BUSY a moment ago reads nothing more through the lagging list.
func TestRolesAreNotTakenFromTheIndex(t *testing.T) {
	e := newEnv(t)
	w := e.world("lag")
	e.must(w.owner, `mutation($c: ID!) { createEntry(input: {calendarId: $c, title: "Secret merger",
		timing: {allDay: {date: "2026-11-24"}}}) { entry { id } } }`, map[string]any{"c": w.calendarID})
	readerID, err := model.DecodeAs("id", model.KindUser, str(e.must(w.reader, `{ viewer { user { id } } }`, nil), "viewer.user.id"))
	if err != nil {
		t.Fatal(err)
	}
	// The index as it stands just before the demotion (the reader is READER).
	ctx := context.Background()
	page, err := e.store.MembershipsOfUser(ctx, readerID, calendar.Page{First: 20})
	if err != nil {
		t.Fatal(err)
	}
	all, _ := e.store.AllMembershipsOfUser(ctx, readerID, 500)
	// The owner demotes the reader to FREE_BUSY (a strongly consistent write).
	e.must(w.owner, `mutation($m: ID!, $v: Int!) { changeMemberRole(input: {membershipId: $m, role: FREE_BUSY, expectedVersion: $v}) { membership { role } } }`,
		map[string]any{"m": w.readerMembershipID, "v": w.readerMembershipVersion})
	if c := (e.do(w.reader, `query($c: ID!) { calendar(id: $c) { entries(range: {dates: {start: "2026-11-23", end: "2026-11-30"}}) { entries { title } } } }`,
		map[string]any{"c": w.calendarID})).code(); c != "FORBIDDEN" {
		t.Fatalf("direct read after demotion: %q, want FORBIDDEN", c)
	}

	// Same server wiring, but GSI1 still answers with the pre-demotion item.
	logger := slog.New(slog.NewTextHandler(&syncBuffer{}, nil))
	verifier, _ := auth.NewVerifier(ctx, auth.Config{HMACSecret: testSecret, Issuer: auth.LocalIssuer, Audience: auth.LocalAudience})
	authn := auth.NewAuthenticator(verifier, e.store, logger)
	api := loader.Middleware(laggingGSI{e.store, page, all}, recurrence.Engine{},
		authn.Middleware(graph.NewHandler(e.store, logger, graph.Options{MaxBodyBytes: 64 << 10})))
	srv := httptest.NewServer(api)
	defer srv.Close()
	lag := &env{t: t, url: srv.URL, store: e.store}

	for name, q := range map[string]string{
		"viewer.calendars": `{ viewer { calendars { edges { node { role calendar { description
			entries(range: {dates: {start: "2026-11-23", end: "2026-11-30"}}) { entries { title } }
			members { edges { node { user { email } } } } } } } } } }`,
		"viewer.agenda": `{ viewer { agenda(range: {dates: {start: "2026-11-23", end: "2026-11-30"}}) { entries { title } } } }`,
	} {
		r := lag.do(w.reader, q, nil)
		if strings.Contains(r.Raw, "Secret merger") || strings.Contains(r.Raw, "owner-lag@") {
			t.Errorf("%s: a FREE_BUSY member read entries/members from a stale index item:\n%s", name, r.Raw)
		}
	}
}
