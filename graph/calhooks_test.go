package graph_test

import (
	"context"
	"log/slog"
	"strings"
	"testing"

	"github.com/calgraph/calgraph/graph"
	"github.com/calgraph/calgraph/graph/model"
	"github.com/calgraph/calgraph/internal/calendar"
	"github.com/calgraph/calgraph/internal/loader"
	"github.com/calgraph/calgraph/internal/recurrence"
)

const calendarWebhookFields = `id calendarId url calendarIds types state createdAt failingSince deliveryLog { deliveryId httpStatus }`

// TestCalendarWebhookAPI: who may register what, with the field named and
// nothing written when refused; the secret once (and in a replay), never
// from a query; rotation, redelivery from a token, deletion.
func TestCalendarWebhookAPI(t *testing.T) {
	e := newEnv(t)
	ann, bob, carol := e.token("ann@example.com"), e.token("bob@example.com"), e.token("carol@example.com")
	e.must(bob, `{ viewer { user { id } } }`, nil)
	cal := str(e.must(ann, `mutation { createCalendar(input: {name: "Team"}) { calendar { id } } }`, nil), "createCalendar.calendar.id")
	e.must(ann, `mutation($c: ID!, $e: String!) { addMember(input: {calendarId: $c, email: $e, role: WRITER}) { membership { id } } }`,
		map[string]any{"c": cal, "e": "bob@example.com"})
	const register = `mutation($c: ID, $u: String!, $cs: [ID!], $k: String) {
		registerCalendarWebhook(input: {calendarId: $c, url: $u, calendarIds: $cs, idempotencyKey: $k}) { secret webhook { ` + calendarWebhookFields + ` } } }`
	for _, c := range []struct {
		name, tok string
		vars      map[string]any
		code      string
		field     string
	}{
		{"metadata", ann, map[string]any{"c": cal, "u": "http://169.254.169.254/latest/meta-data/"}, "BAD_USER_INPUT", "url"},
		{"file", ann, map[string]any{"u": "file:///etc/passwd"}, "BAD_USER_INPUT", "url"},
		{"2 KB", ann, map[string]any{"u": "https://hooks.example.com/" + strings.Repeat("x", 2048)}, "BAD_USER_INPUT", "url"},
		{"unknown calendar", carol, map[string]any{"u": "https://hooks.example.com/in", "cs": []string{cal}}, "BAD_USER_INPUT", "calendarIds"},
		{"a writer", bob, map[string]any{"c": cal, "u": "https://hooks.example.com/in"}, "FORBIDDEN", ""},
		{"a stranger", carol, map[string]any{"c": cal, "u": "https://hooks.example.com/in"}, "NOT_FOUND", ""},
	} {
		r := e.do(c.tok, register, c.vars)
		if r.code() != c.code || (c.field != "" && r.Errors[0].Extensions.Field != c.field) {
			t.Errorf("%s: %s, want %s on %q", c.name, r.Raw, c.code, c.field)
		}
	}
	for _, tok := range []string{ann, bob, carol} {
		if d := e.must(tok, `{ viewer { webhooks { id } } }`, nil); len(get(d, "viewer.webhooks").([]any)) != 0 {
			t.Fatalf("refused registrations wrote a webhook: %v", d)
		}
	}

	d := e.must(ann, register, map[string]any{"c": cal, "u": "https://hooks.example.com/team", "k": "reg-1"})
	secret, id := str(d, "registerCalendarWebhook.secret"), str(d, "registerCalendarWebhook.webhook.id")
	if !strings.HasPrefix(secret, "whsec_") || str(d, "registerCalendarWebhook.webhook.calendarId") != cal {
		t.Fatalf("registration: %v", d)
	}
	if again := e.must(ann, register, map[string]any{"c": cal, "u": "https://hooks.example.com/team", "k": "reg-1"}); str(again, "registerCalendarWebhook.secret") != secret {
		t.Errorf("a replay answered %v, want the first answer's secret", again)
	}
	for _, q := range []string{
		`query($c: ID!) { viewer { webhooks { ` + calendarWebhookFields + ` } } calendar(id: $c) { webhooks { ` + calendarWebhookFields + ` } } }`,
		`{ __type(name: "CalendarWebhook") { fields { name } } }`,
	} {
		r := e.do(ann, q, map[string]any{"c": cal})
		if len(r.Errors) > 0 || strings.Contains(string(r.Raw), secret) || strings.Contains(strings.ToLower(string(r.Raw)), "secret") {
			t.Errorf("%s answered %s: want no error and no secret", q, r.Raw)
		}
		if strings.HasPrefix(q, "query") && strings.Count(string(r.Raw), id) != 2 {
			t.Errorf("Viewer.webhooks and Calendar.webhooks: %s, want the webhook in each", r.Raw)
		}
	}
	if r := e.do(bob, `query($c: ID!) { calendar(id: $c) { webhooks { id } } }`, map[string]any{"c": cal}); r.code() != "FORBIDDEN" {
		t.Errorf("a writer read Calendar.webhooks: %s, want FORBIDDEN", r.Raw)
	}
	const rotate = `mutation($id: ID!) { rotateCalendarWebhookSecret(input: {id: $id}) { secret } }`
	if r := e.must(ann, rotate, map[string]any{"id": id}); str(r, "rotateCalendarWebhookSecret.secret") == secret || !strings.HasPrefix(str(r, "rotateCalendarWebhookSecret.secret"), "whsec_") {
		t.Errorf("rotate: %v", r)
	}
	if r := e.do(bob, rotate, map[string]any{"id": id}); r.code() != "NOT_FOUND" {
		t.Errorf("bob rotated ann's webhook: %s, want NOT_FOUND", r.Raw)
	}
	const redeliver = `mutation($id: ID!, $c: ID!, $t: String!) { redeliverWebhook(input: {id: $id, calendarId: $c, syncToken: $t}) { webhook { id } } }`
	if r := e.do(ann, redeliver, map[string]any{"id": id, "c": cal, "t": "not-a-token"}); r.code() != "BAD_USER_INPUT" || r.Errors[0].Extensions.Field != "syncToken" {
		t.Errorf("a bad token: %s, want BAD_USER_INPUT on syncToken", r.Raw)
	}
	token := ""
	for more := true; more; {
		p := e.must(ann, `query($c: ID!, $t: String) { calendar(id: $c) { changes(syncToken: $t) { hasMore syncToken } } }`, map[string]any{"c": cal, "t": token})
		token, more = str(p, "calendar.changes.syncToken"), get(p, "calendar.changes.hasMore") == true
	}
	if r := e.do(ann, redeliver, map[string]any{"id": id, "c": cal, "t": token}); len(r.Errors) > 0 {
		t.Errorf("redeliver from a token of Calendar.changes: %s", r.Raw)
	}
	const del = `mutation($id: ID!) { deleteCalendarWebhook(input: {id: $id}) { deleted } }`
	if d := e.must(ann, del, map[string]any{"id": id}); get(d, "deleteCalendarWebhook.deleted") != true {
		t.Errorf("delete: %v", d)
	}
	if d := e.must(ann, del, map[string]any{"id": id}); get(d, "deleteCalendarWebhook.deleted") != false {
		t.Errorf("delete again: %v, want deleted false", d)
	}
}

// TestWebhookChangesAsOwner: a delivery is Calendar.changes as the
// webhook's owner sees it: a reader's webhook gets another member's
// PRIVATE entry redacted, the owner's own webhook gets it whole, and a user
// who is no member gets NOT_FOUND (which the worker turns into ACCESS_LOST).
func TestWebhookChangesAsOwner(t *testing.T) {
	e := newEnv(t)
	ann, bob, carol := e.token("ann@example.com"), e.token("bob@example.com"), e.token("carol@example.com")
	ids := map[string]string{}
	for name, tok := range map[string]string{"ann": ann, "bob": bob, "carol": carol} {
		id, err := model.DecodeAs("id", model.KindUser, str(e.must(tok, `{ viewer { user { id } } }`, nil), "viewer.user.id"))
		if err != nil {
			t.Fatal(err)
		}
		ids[name] = id
	}
	gid := str(e.must(ann, `mutation { createCalendar(input: {name: "Team"}) { calendar { id } } }`, nil), "createCalendar.calendar.id")
	cal, _ := model.DecodeCalendarID("id", gid)
	e.must(ann, `mutation($c: ID!, $e: String!) { addMember(input: {calendarId: $c, email: $e, role: READER}) { membership { id } } }`,
		map[string]any{"c": gid, "e": "bob@example.com"})
	token := ""
	for more := true; more; {
		p := e.must(ann, `query($c: ID!, $t: String) { calendar(id: $c) { changes(syncToken: $t) { hasMore syncToken } } }`, map[string]any{"c": gid, "t": token})
		token, more = str(p, "calendar.changes.syncToken"), get(p, "calendar.changes.hasMore") == true
	}
	e.must(ann, `mutation($c: ID!) { createEntry(input: {calendarId: $c, title: "Dentist", visibility: PRIVATE,
		timing: {timed: {start: "2026-12-01T09:00:00Z", end: "2026-12-01T10:00:00Z"}}}) { entry { id } } }`, map[string]any{"c": gid})
	h := graph.NewHandler(e.store, slog.New(slog.DiscardHandler), graph.Options{MaxBodyBytes: 64 << 10,
		NewLoaders: func(scope calendar.ReadScope) *loader.Loaders { return loader.New(e.store, recurrence.Engine{}, scope) }})
	render := graph.WebhookChanges(h)
	for _, c := range []struct{ owner, want string }{{"ann", `"title":"Dentist"`}, {"bob", `"redacted":true`}} {
		b, err := render(context.Background(), calendar.HookRequest{Kind: calendar.HookChanges, WebhookID: "w", OwnerID: ids[c.owner], CalendarID: cal, Token: token, First: 100,
			Types: []calendar.ObjectType{calendar.ObjectEntry}})
		if err != nil || b.Count != 1 || !strings.Contains(string(b.Body), c.want) || (c.owner == "bob" && strings.Contains(string(b.Body), "Dentist")) {
			t.Errorf("as %s: %s (%d changes), %v; want %s", c.owner, b.Body, b.Count, err, c.want)
		}
	}
	if _, err := render(context.Background(), calendar.HookRequest{Kind: calendar.HookChanges, OwnerID: ids["carol"], CalendarID: cal, Token: token, First: 100}); calendar.ErrorCode(err) != calendar.CodeNotFound {
		t.Errorf("as a stranger: %v, want NOT_FOUND", err)
	}
}
