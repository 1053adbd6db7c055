package dynamo_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/calgraph/calgraph/internal/calendar"
	"github.com/calgraph/calgraph/internal/dynamo"
	"github.com/calgraph/calgraph/internal/dynamotest"
	"github.com/calgraph/calgraph/internal/webhook"
)

// TestCalendarWebhookWorkerRuns: the running worker, whose sweep is an hour
// away, learns of a write from the recent writes and retries a failed
// delivery when its backoff is over, not at the next sweep.
func TestCalendarWebhookWorkerRuns(t *testing.T) {
	t.Parallel()
	h := newCalHookFixture(t)
	cal := h.calendarOf(h.owner, "work")
	h.register(h.owner, calendar.NewCalendarWebhook{CalendarID: cal.ID})
	w := h.worker
	w.Now, w.Poll, w.Sweep, w.Backoff = time.Now, 50*time.Millisecond, time.Hour, func(int) time.Duration { return 200 * time.Millisecond }
	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan struct{})
	go func() { h.hooks.RunCalendarWebhookWorker(ctx, w); close(stopped) }()
	defer func() { cancel(); <-stopped }()
	time.Sleep(200 * time.Millisecond) // past the first pass, a sweep
	h.recv.mode.Store("fail")
	if _, _, err := h.store.CreateEntry(h.owner, calendar.NewEntry{CalendarID: cal.ID, Title: "hinted",
		Timing: timed("2026-12-01T09:00:00Z", "2026-12-01T09:15:00Z", "UTC")}); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for len(h.log()) < 2 { // the write's attempt and a retry
		if time.Now().After(deadline) {
			t.Fatalf("%d attempts within 30 s of the write, want 2", len(h.log()))
		}
		time.Sleep(20 * time.Millisecond)
	}
	h.recv.mode.Store("ok")
	for len(h.recv.calendar(cal.ID)) == 0 {
		if time.Now().After(deadline) {
			t.Fatalf("not delivered within 30 s; log %+v", h.log())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestCalendarWebhookTypesFilter: a webhook of MEMBERSHIP changes gets a
// member added after more entry changes than a delivery holds (which it
// moves past without posting), and nothing of the entries.
func TestCalendarWebhookTypesFilter(t *testing.T) {
	t.Parallel()
	h := newCalHookFixture(t)
	h.worker.Batch = 5
	cal := h.calendarOf(h.owner, "work")
	h.register(h.owner, calendar.NewCalendarWebhook{CalendarID: cal.ID, Types: []calendar.ObjectType{calendar.ObjectMembership}})
	for i := range 12 {
		if _, _, err := h.store.CreateEntry(h.owner, calendar.NewEntry{CalendarID: cal.ID, Title: fmt.Sprint("e", i),
			Timing: timed("2026-12-01T09:00:00Z", "2026-12-01T09:15:00Z", "UTC")}); err != nil {
			t.Fatal(err)
		}
	}
	h.drain()
	member := h.user("member@example.com")
	h.share(h.owner, cal, member, "member@example.com", calendar.RoleReader)
	h.drain()
	h.recv.mu.Lock()
	defer h.recv.mu.Unlock()
	if len(h.recv.bodies) != 1 || h.recv.cals[cal.ID] != nil {
		t.Fatalf("%d deliveries, entries %v; want the membership alone", len(h.recv.bodies), h.recv.cals[cal.ID])
	}
	for _, b := range h.recv.bodies {
		if !strings.Contains(string(b), `"type":2`) || strings.Contains(string(b), `"type":3`) {
			t.Errorf("delivery %s, want the membership change alone", b)
		}
	}
}

// TestCalendarWebhookCosts pins what docs/design.md says calendar webhooks
// cost: a sweep that finds nothing to deliver (a webhook of one calendar
// and one of everything its owner reads, in two calendars: three cursors)
// and a delivery of one change, in DynamoDB calls.
func TestCalendarWebhookCosts(t *testing.T) {
	t.Parallel()
	h := newCalHookFixture(t)
	var rec dynamo.Recorder
	counted := dynamo.New(dynamotest.Client(t, dynamo.WithRecorder(&rec)), h.store.Table(), engine, dynamo.WithWebhookPolicy(webhook.Policy{AllowPrivate: true}))
	a, b := h.calendarOf(h.owner, "a"), h.calendarOf(h.owner, "b")
	h.register(h.owner, calendar.NewCalendarWebhook{CalendarID: a.ID})
	h.register(h.owner, calendar.NewCalendarWebhook{})
	h.drain()
	ops := func() string {
		n := map[string]int{}
		for _, c := range rec.Calls() {
			n[c.Op]++
		}
		rec.Reset()
		return fmt.Sprint(n)
	}
	if _, err := counted.DeliverCalendarWebhooks(context.Background(), h.worker); err != nil {
		t.Fatal(err)
	}
	// 4+4 shard Queries, the memberships Query and cursor BatchGet of the
	// webhook of everything, and per cursor: GetItem cursor and webhook, the
	// log read (BatchGetItem access, Query log).
	if got, want := ops(), "map[BatchGetItem:4 GetItem:6 Query:12]"; got != want {
		t.Errorf("an idle sweep of 3 cursors: %s, want %s", got, want)
	}
	if _, _, err := h.store.CreateEntry(h.owner, calendar.NewEntry{CalendarID: b.ID, Title: "one",
		Timing: timed("2026-12-01T09:00:00Z", "2026-12-01T09:15:00Z", "UTC")}); err != nil {
		t.Fatal(err)
	}
	rec.Reset()
	if _, err := counted.DeliverCalendarWebhooks(context.Background(), h.worker); err != nil {
		t.Fatal(err)
	}
	// The idle sweep's calls, then the delivery: the changed entry read
	// (BatchGetItem), an Update of the cursor (lease and delivery), the log
	// (GetItem, Update), an Update (advance), and a second turn that finds
	// nothing more (GetItems of the cursor and webhook, a log read).
	if got, want := ops(), "map[BatchGetItem:6 GetItem:9 Query:13 UpdateItem:3]"; got != want {
		t.Errorf("a sweep delivering one change: %s, want %s", got, want)
	}
}

// TestCalendarWebhookTokenExpired: a cursor whose place is older than the
// change log's retention (a webhook FAILING for longer, say) gets one
// SYNC_TOKEN_EXPIRED delivery, carrying a token that goes on from the log's
// head.
func TestCalendarWebhookTokenExpired(t *testing.T) {
	t.Parallel()
	h := newCalHookFixture(t)
	// A token begins 30 s (the sync overlap) back: with a retention of 60 s,
	// it expires 30 s later, and the fresh one the expiry gives does not
	// while the drains run (on a loaded -race machine they took 10 s, and
	// a margin of 3 s saw the fresh token expire too).
	h.hooks = dynamo.New(h.db, h.store.Table(), engine, dynamo.WithWebhookPolicy(webhook.Policy{AllowPrivate: true}),
		dynamo.WithChangeRetention(60*time.Second))
	cal := h.calendarOf(h.owner, "work")
	h.register(h.owner, calendar.NewCalendarWebhook{CalendarID: cal.ID})
	if _, _, err := h.store.CreateEntry(h.owner, calendar.NewEntry{CalendarID: cal.ID, Title: "old",
		Timing: timed("2026-12-01T09:00:00Z", "2026-12-01T09:15:00Z", "UTC")}); err != nil {
		t.Fatal(err)
	}
	time.Sleep(31 * time.Second) // the webhook's token is now past the retention
	h.drain()
	h.drain()
	h.recv.mu.Lock()
	defer h.recv.mu.Unlock()
	// (What the head token then reads again, the last 30 s, may follow.)
	if h.recv.kinds[calendar.HookSyncTokenExpired] != 1 {
		t.Fatalf("deliveries %v, want one SYNC_TOKEN_EXPIRED", h.recv.kinds)
	}
	for _, b := range h.recv.bodies {
		var d struct{ SyncToken string }
		if err := json.Unmarshal(b, &d); err != nil || d.SyncToken == "" {
			t.Errorf("delivery %s: want a syncToken to go on from", b)
		}
	}
}
