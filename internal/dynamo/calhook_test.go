package dynamo_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/calgraph/calgraph/internal/calendar"
	"github.com/calgraph/calgraph/internal/dynamo"
	"github.com/calgraph/calgraph/internal/dynamotest"
	"github.com/calgraph/calgraph/internal/webhook"
)

// TestCalendarWebhookReplica: changes written to several calendars (made,
// retitled, deleted) while two workers deliver them to a receiver that
// fails, hangs and comes back → the receiver's replica equals a full read
// of each calendar; deliveries repeat only under the same ID and bytes.
func TestCalendarWebhookReplica(t *testing.T) {
	// Not parallel: 16 writers for minutes under -race, which starved the
	// tests that time retries against deadlines (see
	// TestSearchAgainstBruteForce).
	h := newCalHookFixture(t)
	other := dynamo.New(h.db, h.store.Table(), engine, dynamo.WithWebhookPolicy(webhook.Policy{AllowPrivate: true}))
	changes := 10_000
	switch {
	case testing.Short():
		changes = 1_000
	case dynamotest.External(): // 78-90 s at 10,000 on DynamoDB Local (docs/design.md); the embedded run has them all
		changes = 2_500
	}
	var cals []*calendar.Calendar
	for i := range 4 {
		cals = append(cals, h.calendarOf(h.owner, fmt.Sprintf("cal %d", i)))
	}
	h.register(h.owner, calendar.NewCalendarWebhook{})
	began := time.Now()
	var written atomic.Int64
	var wg sync.WaitGroup
	for g := range 16 {
		wg.Go(func() {
			var mine []*calendar.Entry
			for i := 0; written.Add(1) <= int64(changes); i++ {
				cal := cals[(g+i)%len(cals)]
				var err error
				switch {
				case i%5 == 3 && len(mine) > 0:
					e := mine[0]
					mine = mine[1:]
					err = h.store.DeleteEntry(h.owner, e.Key(), e.Version)
				case i%5 == 4 && len(mine) > 0:
					var e *calendar.Entry
					e, _, err = h.store.UpdateEntry(h.owner, calendar.EntryUpdate{Key: mine[0].Key(), ExpectedVersion: mine[0].Version,
						Title: calendar.Set(fmt.Sprintf("retitled %d/%d", g, i))})
					if err == nil {
						mine[0] = e
					}
				default:
					var e *calendar.Entry
					e, _, err = h.store.CreateEntry(h.owner, calendar.NewEntry{CalendarID: cal.ID, Title: fmt.Sprintf("entry %d/%d", g, i),
						Timing: timed("2026-12-01T09:00:00Z", "2026-12-01T10:00:00Z", "UTC")})
					mine = append(mine, e)
				}
				if err != nil {
					t.Errorf("write %d/%d: %v", g, i, err)
					return
				}
			}
		})
	}
	// Deliver while the writes go on, through failures and hangs.
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	modes := []string{"ok", "fail", "ok", "hang", "ok"}
	for round := 0; ; round++ {
		h.recv.mode.Store(modes[round%len(modes)])
		for _, s := range []*dynamo.Store{h.hooks, other} {
			if _, err := s.DeliverCalendarWebhooks(context.Background(), h.worker); err != nil {
				t.Errorf("DeliverCalendarWebhooks: %v", err)
			}
		}
		h.clock.Advance(11 * time.Second)
		select {
		case <-done:
		default:
			continue
		}
		break
	}
	wrote := time.Since(began)
	h.recv.mode.Store("ok")
	h.drain(h.hooks, other)
	t.Logf("%d changes in %d calendars: written and delivered along in %v, all delivered after %v; %d deliveries, %d repeated",
		changes, len(cals), wrote.Round(time.Millisecond), time.Since(began).Round(time.Millisecond), len(h.recv.bodies), h.recv.repeat)
	for _, c := range cals {
		diffReplica(t, h.recv.calendar(c.ID), h.fullRead(h.owner, c.ID))
	}
}

// TestCalendarWebhookStoppedAfterPost: a worker stopped after its post and
// before the cursor advanced leaves the delivery stored; the next worker,
// once the lease has run out, posts the same ID and bytes, and goes on.
func TestCalendarWebhookStoppedAfterPost(t *testing.T) {
	t.Parallel()
	h := newCalHookFixture(t)
	cal := h.watchedWithEntry()
	ctx, cancel := context.WithCancel(context.Background())
	stopping := h.worker
	stopping.Sender = senderFunc(func(c context.Context, url, secret string, d webhook.Delivery, now time.Time) webhook.Result {
		res := h.worker.Sender.Send(c, url, secret, d, now)
		cancel() // the instance stops right after the receiver took it
		return res
	})
	if _, err := h.hooks.DeliverCalendarWebhooks(ctx, stopping); err == nil {
		t.Errorf("the stopped pass returned no error")
	}
	if n := len(h.recv.bodies); n != 1 {
		t.Fatalf("the receiver has %d deliveries, want 1", n)
	}
	h.drain()
	if h.recv.repeat != 0 {
		t.Fatalf("repeated within the lease: %d", h.recv.repeat)
	}
	h.clock.Advance(3 * time.Minute) // the lease runs out
	h.drain()
	if h.recv.repeat != 1 || len(h.recv.bodies) != 1 {
		t.Errorf("after the lease: %d deliveries, %d repeated; want the same one again", len(h.recv.bodies), h.recv.repeat)
	}
	if _, _, err := h.store.CreateEntry(h.owner, calendar.NewEntry{CalendarID: cal.ID, Title: "review",
		Timing: timed("2026-12-01T11:00:00Z", "2026-12-01T12:00:00Z", "UTC")}); err != nil {
		t.Fatal(err)
	}
	h.drain()
	diffReplica(t, h.recv.calendar(cal.ID), h.fullRead(h.owner, cal.ID))
}

type senderFunc func(ctx context.Context, url, secret string, d webhook.Delivery, now time.Time) webhook.Result

func (f senderFunc) Send(ctx context.Context, url, secret string, d webhook.Delivery, now time.Time) webhook.Result {
	return f(ctx, url, secret, d, now)
}

// TestCalendarWebhookFailingResumes: a receiver down for a day marks the
// webhook FAILING; nothing is attempted then; resumed, it gets what it
// missed, from where it stopped, and the log shows the attempts.
func TestCalendarWebhookFailingResumes(t *testing.T) {
	t.Parallel()
	h := newCalHookFixture(t)
	h.worker.Backoff = func(int) time.Duration { return 2 * time.Hour }
	cal := h.calendarOf(h.owner, "work")
	hook := h.register(h.owner, calendar.NewCalendarWebhook{CalendarID: cal.ID})
	h.recv.mode.Store("fail")
	if _, _, err := h.store.CreateEntry(h.owner, calendar.NewEntry{CalendarID: cal.ID, Title: "one",
		Timing: timed("2026-12-01T09:00:00Z", "2026-12-01T09:15:00Z", "UTC")}); err != nil {
		t.Fatal(err)
	}
	for range 13 { // 13 attempts, 2 h apart: 24 h
		h.drain()
		h.clock.Advance(2 * time.Hour)
	}
	hooks, err := h.hooks.CalendarWebhooks(h.owner)
	if err != nil || len(hooks) != 1 || hooks[0].State != calendar.WebhookFailing {
		t.Fatalf("after a day of failures: %+v, %v; want one FAILING", hooks, err)
	}
	if n, err := h.hooks.DeliverCalendarWebhooks(context.Background(), h.worker); n != 0 || err != nil {
		t.Fatalf("a FAILING webhook got %d attempts (%v), want 0", n, err)
	}
	h.recv.mode.Store("ok")
	if _, err := h.hooks.ResumeCalendarWebhook(h.owner, hook.ID); err != nil {
		t.Fatal(err)
	}
	h.drain()
	diffReplica(t, h.recv.calendar(cal.ID), h.fullRead(h.owner, cal.ID))
	hooks, _ = h.hooks.CalendarWebhooks(h.owner)
	if hooks[0].State != calendar.WebhookActive || len(hooks[0].Log) < 2 || hooks[0].Log[0].Status != 204 || hooks[0].Log[1].Status != 500 {
		t.Errorf("after the resume: state %s, log %+v", hooks[0].State, hooks[0].Log)
	}
}

// TestCalendarWebhookAccessLost: a reader's webhook of everything they
// read, registered before a calendar was shared with them, gets its
// changes while they are a member; removed, they get ACCESS_LOST and
// nothing of what is written after. A member demoted to FREE_BUSY is told
// the same.
func TestCalendarWebhookAccessLost(t *testing.T) {
	t.Parallel()
	h := newCalHookFixture(t)
	cal := h.calendarOf(h.owner, "team")
	reader := h.user("reader@example.com")
	h.register(reader, calendar.NewCalendarWebhook{}) // before the calendar is shared with them
	h.drain()
	h.share(h.owner, cal, reader, "reader@example.com", calendar.RoleReader)
	h.drain() // the sweep finds the new membership and follows the calendar from now
	write := func(title string) {
		if _, _, err := h.store.CreateEntry(h.owner, calendar.NewEntry{CalendarID: cal.ID, Title: title,
			Timing: timed("2026-12-01T09:00:00Z", "2026-12-01T09:15:00Z", "UTC")}); err != nil {
			t.Fatal(err)
		}
	}
	write("seen")
	h.drain()
	if got := h.recv.calendar(cal.ID); len(got) != 1 {
		t.Fatalf("while a member: %v, want the one entry", got)
	}
	if err := h.store.RemoveMember(h.owner, calendar.MembershipKey{CalendarID: cal.ID, UserID: viewer(t, reader)}, 1); err != nil {
		t.Fatal(err)
	}
	write("secret")
	h.drain()
	if got := h.recv.calendar(cal.ID); len(got) != 1 {
		t.Errorf("after the removal the replica has %v, want only the entry seen before", got)
	}
	if !h.recv.lost[cal.ID] {
		t.Errorf("no ACCESS_LOST delivery for %s (kinds %v)", cal.ID, h.recv.kinds)
	}

	other := h.calendarOf(h.owner, "other")
	m := h.share(h.owner, other, reader, "reader@example.com", calendar.RoleReader)
	h.drain()
	if _, _, err := h.store.ChangeRole(h.owner, calendar.MembershipKey{CalendarID: other.ID, UserID: m.UserID}, calendar.RoleFreeBusy, m.Version); err != nil {
		t.Fatal(err)
	}
	if _, _, err := h.store.CreateEntry(h.owner, calendar.NewEntry{CalendarID: other.ID, Title: "busy",
		Timing: timed("2026-12-01T09:00:00Z", "2026-12-01T09:15:00Z", "UTC")}); err != nil {
		t.Fatal(err)
	}
	h.drain()
	if got := h.recv.calendar(other.ID); len(got) != 0 || !h.recv.lost[other.ID] {
		t.Errorf("demoted to FREE_BUSY: the replica has %v, ACCESS_LOST %v; want nothing and ACCESS_LOST", got, h.recv.lost[other.ID])
	}
}

// TestCalendarWebhookRefusals: bad registrations and redeliveries fail with
// the field named, or NOT_FOUND / FORBIDDEN, and write nothing.
func TestCalendarWebhookRefusals(t *testing.T) {
	t.Parallel()
	h := newCalHookFixture(t)
	cal := h.calendarOf(h.owner, "work")
	writer := h.user("writer@example.com")
	h.share(h.owner, cal, writer, "writer@example.com", calendar.RoleWriter)
	stranger := h.user("stranger@example.com")
	before := h.countEntities()
	for _, c := range []struct {
		name  string
		ctx   context.Context
		in    calendar.NewCalendarWebhook
		code  calendar.Code
		field string
	}{
		{"metadata", h.owner, calendar.NewCalendarWebhook{URL: "http://169.254.169.254/latest/meta-data"}, calendar.CodeInvalid, "url"},
		{"file", h.owner, calendar.NewCalendarWebhook{URL: "file:///etc/passwd"}, calendar.CodeInvalid, "url"},
		{"long", h.owner, calendar.NewCalendarWebhook{URL: "https://example.com/" + strings.Repeat("a", 2100)}, calendar.CodeInvalid, "url"},
		{"unknown calendar", h.owner, calendar.NewCalendarWebhook{URL: "https://example.com/h", Calendars: []string{"00000000-0000-0000-0000-000000000000"}}, calendar.CodeInvalid, "calendarIds"},
		{"not the owner", writer, calendar.NewCalendarWebhook{URL: "https://example.com/h", CalendarID: cal.ID}, calendar.CodeForbidden, ""},
		{"cannot see it", stranger, calendar.NewCalendarWebhook{URL: "https://example.com/h", CalendarID: cal.ID}, calendar.CodeNotFound, ""},
	} {
		_, _, err := h.hooks.RegisterCalendarWebhook(c.ctx, c.in)
		wantCode(t, err, c.code)
		if e, ok := err.(*calendar.Error); c.field != "" && (!ok || e.Field != c.field) {
			t.Errorf("%s: %v, want field %s", c.name, err, c.field)
		}
	}
	if after := h.countEntities(); fmt.Sprint(after) != fmt.Sprint(before) {
		t.Errorf("refused registrations wrote: %v, was %v", after, before)
	}
	hook := h.register(h.owner, calendar.NewCalendarWebhook{CalendarID: cal.ID})
	_, err := h.hooks.RedeliverCalendarWebhook(h.owner, hook.ID, cal.ID, "not-a-token")
	wantCode(t, err, calendar.CodeInvalid)
	for i := 1; i < calendar.MaxCalendarWebhooks; i++ {
		h.register(h.owner, calendar.NewCalendarWebhook{})
	}
	_, _, err = h.hooks.RegisterCalendarWebhook(h.owner, calendar.NewCalendarWebhook{URL: "https://example.com/h"})
	wantCode(t, err, calendar.CodeInvalid)
	if deleted, err := h.hooks.DeleteCalendarWebhook(h.owner, hook.ID); !deleted || err != nil {
		t.Errorf("delete = %v, %v", deleted, err)
	}
}

// TestCalendarWebhookClaimAppliedBeforeItsConnectionFailed: a cursor's
// claim applied but answered by a connection reset is sent again by the SDK,
// and the repeat finds its own lease and pending delivery: the delivery is
// made in the same pass, once (TestWebhookClaimAppliedBeforeItsConnectionFailed
// for reminder webhooks).
func TestCalendarWebhookClaimAppliedBeforeItsConnectionFailed(t *testing.T) {
	t.Parallel()
	h := newCalHookFixture(t)
	cal := h.watchedWithEntry()
	db, claims := cutFirstClaim(h.db)
	cutting := dynamo.New(db, h.store.Table(), engine, dynamo.WithWebhookPolicy(webhook.Policy{AllowPrivate: true}))
	if _, err := cutting.DeliverCalendarWebhooks(context.Background(), h.worker); err != nil {
		t.Fatalf("DeliverCalendarWebhooks: %v", err)
	}
	if claims.Load() < 2 {
		t.Fatalf("%d claim attempts: the claim was not sent again, the test cut nothing", claims.Load())
	}
	if n := len(h.recv.bodies); n != 1 || h.recv.repeat != 0 {
		t.Fatalf("the receiver has %d deliveries (%d repeated) after the pass, want 1: the claim's repeat must hold its lease", n, h.recv.repeat)
	}
	diffReplica(t, h.recv.calendar(cal.ID), h.fullRead(h.owner, cal.ID))
}
