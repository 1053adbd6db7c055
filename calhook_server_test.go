package main

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"
)

// TestServerCalendarWebhook: a calendar webhook registered through the API
// gets an entry's creation from the server's worker, signed (checked here
// with crypto/hmac), as the Change objects Calendar.changes returns, with
// a sync token that Calendar.changes continues from; the webhook lists
// under Viewer.webhooks and Calendar.webhooks, its log shows the 2xx, and
// a webhook to the metadata service is refused.
func TestServerCalendarWebhook(t *testing.T) {
	got := make(chan []byte, 10)
	var secret atomic.Value
	secret.Store("")
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mac := hmac.New(sha256.New, []byte(secret.Load().(string)))
		mac.Write([]byte(r.Header.Get("Calgraph-Webhook-Timestamp") + "." + string(body)))
		if r.Header.Get("Calgraph-Webhook-Signature") != "v1="+hex.EncodeToString(mac.Sum(nil)) || r.Header.Get("Calgraph-Webhook-Id") == "" {
			http.Error(w, "bad signature", http.StatusUnauthorized)
			return
		}
		got <- body
	}))
	defer recv.Close()
	in := serve(t, settings(t, t.TempDir(), true, "CALGRAPH_WEBHOOK_ALLOW_PRIVATE", "true"))
	cal := field(in.query(t, `mutation { createCalendar(input: {name: "Team"}) { calendar { id } } }`), "data", "createCalendar", "calendar", "id").(string)
	out := in.gqlRaw(t, `mutation($c: ID!, $u: String!) { registerCalendarWebhook(input: {calendarId: $c, url: $u, types: [ENTRY]}) { secret webhook { id calendarId state } } }`,
		map[string]any{"c": cal, "u": recv.URL + "/changes"})
	s, _ := field(out, "data", "registerCalendarWebhook", "secret").(string)
	if s == "" || field(out, "data", "registerCalendarWebhook", "webhook", "calendarId") != cal {
		t.Fatalf("register: %v", out)
	}
	secret.Store(s)
	refused := in.gqlRaw(t, `mutation($u: String!) { registerCalendarWebhook(input: {url: $u}) { secret } }`, map[string]any{"u": "http://169.254.169.254/latest"})
	if errs, _ := refused["errors"].([]any); len(errs) == 0 || field(errs[0], "extensions", "code") != "BAD_USER_INPUT" || field(errs[0], "extensions", "field") != "url" {
		t.Errorf("the metadata service: %v, want BAD_USER_INPUT on url", refused)
	}
	entry := field(in.gqlRaw(t, `mutation($c: ID!) { createEntry(input: {calendarId: $c, title: "Launch", timing: {timed: {start: "2026-12-01T09:00:00Z", end: "2026-12-01T10:00:00Z"}}}) { entry { id } } }`,
		map[string]any{"c": cal}), "data", "createEntry", "entry", "id")
	var d struct {
		Kind       string
		CalendarID string
		SyncToken  string
		Changes    []struct {
			Type string
			ID   string
			Node map[string]any
		}
	}
	select {
	case body := <-got:
		if err := json.Unmarshal(body, &d); err != nil {
			t.Fatalf("%s: %v", body, err)
		}
	case <-time.After(20 * time.Second):
		t.Fatalf("nothing delivered within 60 s; the server said:\n%s", in.out.String())
	}
	if d.Kind != "CHANGES" || d.CalendarID != cal || len(d.Changes) != 1 || d.Changes[0].Type != "ENTRY" || d.Changes[0].ID != entry ||
		d.Changes[0].Node["__typename"] != "TimedEntry" || d.Changes[0].Node["title"] != "Launch" || d.Changes[0].Node["start"] != "2026-12-01T09:00:00Z" {
		t.Errorf("delivery %+v, want the entry Launch as a TimedEntry", d)
	}
	next := in.gqlRaw(t, `query($c: ID!, $t: String) { calendar(id: $c) { changes(syncToken: $t) { changes { id } } } }`, map[string]any{"c": cal, "t": d.SyncToken})
	if next["errors"] != nil || fmt.Sprint(field(next, "data", "calendar", "changes", "changes")) != "[]" {
		t.Errorf("Calendar.changes from the delivery's token: %v, want no change", next)
	}
	hookID := field(out, "data", "registerCalendarWebhook", "webhook", "id")
	deadline := time.Now().Add(10 * time.Second)
	for {
		lists := in.gqlRaw(t, `query($c: ID!) { viewer { webhooks { id } } calendar(id: $c) { webhooks { id deliveryLog { httpStatus } } } }`, map[string]any{"c": cal})
		if fmt.Sprint(field(lists, "data", "viewer", "webhooks")) != fmt.Sprintf("[map[id:%s]]", hookID) {
			t.Fatalf("Viewer.webhooks: %v, want the one webhook", lists)
		}
		if fmt.Sprint(field(lists, "data", "calendar", "webhooks")) == fmt.Sprintf("[map[deliveryLog:[map[httpStatus:200]] id:%s]]", hookID) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("Calendar.webhooks: %v, want the webhook with one 200 in its log", lists)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
