package dynamo_test

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
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

// hookReplica is a calendar webhook's receiver that keeps a hookReplica of the
// calendars it is told about (entry ID → title, per calendar), checking
// every delivery's signature with its own HMAC-SHA256 and that a repeated
// delivery ID brings the same bytes. mode: "ok", "fail" (500) or "hang".
type hookReplica struct {
	t      testing.TB
	srv    *httptest.Server
	secret atomic.Value
	mode   atomic.Value
	mu     sync.Mutex
	bodies map[string][]byte // delivery ID → its body
	kinds  map[string]int
	repeat int
	cals   map[string]map[string]string
	lost   map[string]bool
}

func newHookReplica(t testing.TB) *hookReplica {
	r := &hookReplica{t: t, bodies: map[string][]byte{}, kinds: map[string]int{}, cals: map[string]map[string]string{}, lost: map[string]bool{}}
	r.mode.Store("ok")
	r.secret.Store("")
	r.srv = httptest.NewServer(http.HandlerFunc(r.serve))
	t.Cleanup(r.srv.Close)
	return r
}

func (r *hookReplica) serve(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(req.Body)
	switch r.mode.Load().(string) {
	case "fail":
		http.Error(w, "down", http.StatusInternalServerError)
		return
	case "hang":
		<-req.Context().Done()
		return
	}
	mac := hmac.New(sha256.New, []byte(r.secret.Load().(string)))
	mac.Write([]byte(req.Header.Get("Calgraph-Webhook-Timestamp") + "." + string(body)))
	if want := "v1=" + hex.EncodeToString(mac.Sum(nil)); req.Header.Get("Calgraph-Webhook-Signature") != want {
		r.t.Errorf("signature %q, want %q", req.Header.Get("Calgraph-Webhook-Signature"), want)
		http.Error(w, "bad signature", http.StatusUnauthorized)
		return
	}
	id := req.Header.Get("Calgraph-Webhook-Id")
	r.mu.Lock()
	defer r.mu.Unlock()
	if prev, ok := r.bodies[id]; ok {
		if !bytes.Equal(prev, body) {
			r.t.Errorf("delivery %s came again with another body", id)
		}
		r.repeat++
		w.WriteHeader(http.StatusNoContent)
		return
	}
	r.bodies[id] = body
	var d struct {
		Kind       string `json:"kind"`
		CalendarID string `json:"calendarId"`
		Changes    []struct {
			Type    calendar.ObjectType `json:"type"`
			ID      string              `json:"id"`
			Deleted bool                `json:"deleted"`
			Node    *struct{ Title string }
		} `json:"changes"`
	}
	if err := json.Unmarshal(body, &d); err != nil {
		r.t.Errorf("delivery %s: %v", id, err)
	}
	r.kinds[d.Kind]++
	if d.Kind == calendar.HookAccessLost {
		r.lost[d.CalendarID] = true
	}
	for _, c := range d.Changes {
		if c.Type != calendar.ObjectEntry {
			continue
		}
		if r.cals[d.CalendarID] == nil {
			r.cals[d.CalendarID] = map[string]string{}
		}
		if c.Deleted || c.Node == nil {
			delete(r.cals[d.CalendarID], c.ID)
		} else {
			r.cals[d.CalendarID][c.ID] = c.Node.Title
		}
	}
	w.WriteHeader(http.StatusNoContent)
}

func (r *hookReplica) calendar(id string) map[string]string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := map[string]string{}
	for k, v := range r.cals[id] {
		out[k] = v
	}
	return out
}

// calHookFixture: stores that may reach the replica on 127.0.0.1, an owner
// with calendars, and workers on a fake clock whose every retry waits 10 s.
type calHookFixture struct {
	*fixture
	hooks  *dynamo.Store
	owner  context.Context
	recv   *hookReplica
	clock  *fakeClock
	worker dynamo.CalendarWebhookWorker
}

func newCalHookFixture(t testing.TB) *calHookFixture {
	s, db := dynamotest.Store(t)
	f := &fixture{t: t, store: s, db: db}
	t.Cleanup(func() {
		if !f.messy && !t.Failed() {
			f.consistent()
		}
	})
	h := &calHookFixture{fixture: f, recv: newHookReplica(t), clock: &fakeClock{now: time.Now()}}
	h.hooks = dynamo.New(f.db, f.store.Table(), engine, dynamo.WithWebhookPolicy(webhook.Policy{AllowPrivate: true}))
	h.owner = f.user("owner@example.com")
	h.worker = dynamo.CalendarWebhookWorker{
		Sender:  webhook.NewSender(webhook.Policy{AllowPrivate: true}, 2*time.Second),
		Now:     h.clock.Now,
		Backoff: func(int) time.Duration { return 10 * time.Second },
	}
	return h
}

func (h *calHookFixture) register(ctx context.Context, in calendar.NewCalendarWebhook) *calendar.CalendarWebhook {
	h.t.Helper()
	if in.URL == "" {
		in.URL = h.recv.srv.URL + "/changes"
	}
	hook, secret, err := h.hooks.RegisterCalendarWebhook(ctx, in)
	if err != nil {
		h.t.Fatalf("register: %v", err)
	}
	h.recv.secret.Store(secret)
	return hook
}

// drain runs sweeps until one makes no attempt.
func (h *calHookFixture) drain(stores ...*dynamo.Store) {
	h.t.Helper()
	if len(stores) == 0 {
		stores = []*dynamo.Store{h.hooks}
	}
	for range 1000 {
		var n atomic.Int64
		var wg sync.WaitGroup
		for _, s := range stores {
			wg.Go(func() {
				got, err := s.DeliverCalendarWebhooks(context.Background(), h.worker)
				if err != nil {
					h.t.Errorf("DeliverCalendarWebhooks: %v", err)
				}
				n.Add(int64(got))
			})
		}
		wg.Wait()
		if n.Load() == 0 || h.t.Failed() {
			return
		}
	}
	h.t.Fatal("1000 sweeps and still delivering")
}

// log is the delivery log of the owner's first webhook.
func (h *calHookFixture) log() []calendar.WebhookAttempt {
	h.t.Helper()
	hooks, err := h.hooks.CalendarWebhooks(h.owner)
	if err != nil || len(hooks) == 0 {
		h.t.Fatalf("CalendarWebhooks = %v, %v", hooks, err)
	}
	return hooks[0].Log
}

// fullRead reads cal whole as ctx's user: entry ID → title.
func (h *calHookFixture) fullRead(ctx context.Context, calID string) map[string]string {
	h.t.Helper()
	out := map[string]string{}
	token := ""
	for {
		p, err := h.store.Changes(ctx, calID, token, 100)
		if err != nil {
			h.t.Fatalf("read %s: %v", calID, err)
		}
		for _, c := range p.Changes {
			if c.Type == calendar.ObjectEntry && !c.Deleted {
				out[c.ID] = c.Entry.Title
			}
		}
		token = p.Token
		if !p.More {
			return out
		}
	}
}

func diffReplica(t testing.TB, got, want map[string]string) {
	t.Helper()
	for id, title := range want {
		if got[id] != title {
			t.Errorf("entry %s: the replica has %q, want %q", id, got[id], title)
		}
	}
	for id := range got {
		if _, ok := want[id]; !ok {
			t.Errorf("entry %s: in the replica, not in the calendar", id)
		}
	}
}

// TestCalendarWebhookReplica: changes written to several calendars (made,
// retitled, deleted) while two workers deliver them to a receiver that
// fails, hangs and comes back → the receiver's replica equals a full read
// of each calendar; deliveries repeat only under the same ID and bytes.
func TestCalendarWebhookReplica(t *testing.T) {
	t.Parallel()
	h := newCalHookFixture(t)
	other := dynamo.New(h.db, h.store.Table(), engine, dynamo.WithWebhookPolicy(webhook.Policy{AllowPrivate: true}))
	changes := 10_000
	if testing.Short() {
		changes = 1_000
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
	cal := h.calendarOf(h.owner, "work")
	h.register(h.owner, calendar.NewCalendarWebhook{CalendarID: cal.ID})
	if _, _, err := h.store.CreateEntry(h.owner, calendar.NewEntry{CalendarID: cal.ID, Title: "standup",
		Timing: timed("2026-12-01T09:00:00Z", "2026-12-01T09:15:00Z", "UTC")}); err != nil {
		t.Fatal(err)
	}
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
	// A token begins 30 s (the sync overlap) back: with a retention of 33 s,
	// it expires 3 s later, and a fresh one does not.
	h.hooks = dynamo.New(h.db, h.store.Table(), engine, dynamo.WithWebhookPolicy(webhook.Policy{AllowPrivate: true}),
		dynamo.WithChangeRetention(33*time.Second))
	cal := h.calendarOf(h.owner, "work")
	h.register(h.owner, calendar.NewCalendarWebhook{CalendarID: cal.ID})
	if _, _, err := h.store.CreateEntry(h.owner, calendar.NewEntry{CalendarID: cal.ID, Title: "old",
		Timing: timed("2026-12-01T09:00:00Z", "2026-12-01T09:15:00Z", "UTC")}); err != nil {
		t.Fatal(err)
	}
	time.Sleep(4 * time.Second) // the webhook's token is now past the retention
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
