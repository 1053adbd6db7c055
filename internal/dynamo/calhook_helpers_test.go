package dynamo_test

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
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

// watchedWithEntry creates the owner's calendar "work", a webhook on it and
// one entry in it, and returns the calendar.
func (h *calHookFixture) watchedWithEntry() *calendar.Calendar {
	h.t.Helper()
	cal := h.calendarOf(h.owner, "work")
	h.register(h.owner, calendar.NewCalendarWebhook{CalendarID: cal.ID})
	if _, _, err := h.store.CreateEntry(h.owner, calendar.NewEntry{CalendarID: cal.ID, Title: "standup",
		Timing: timed("2026-12-01T09:00:00Z", "2026-12-01T09:15:00Z", "UTC")}); err != nil {
		h.t.Fatal(err)
	}
	return cal
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
