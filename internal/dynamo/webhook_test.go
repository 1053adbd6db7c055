package dynamo_test

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/smithy-go/middleware"
	smithyhttp "github.com/aws/smithy-go/transport/http"

	"github.com/calgraph/calgraph/internal/calendar"
	"github.com/calgraph/calgraph/internal/dynamo"
	"github.com/calgraph/calgraph/internal/dynamotest"
	"github.com/calgraph/calgraph/internal/webhook"
)

// fakeClock is a worker's clock that moves only when the test says.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// receiver is a webhook receiver whose behaviour the test sets: "fail"
// (500), "hang" (until the sender gives up) or "ok" (204 after checking
// the signature by hand, with crypto/hmac, against the secret it holds).
type receiver struct {
	t      testing.TB
	srv    *httptest.Server
	mode   atomic.Value // string
	secret atomic.Value // string
	mu     sync.Mutex
	got    map[string]int // delivery ID → accepted requests
	tries  atomic.Int64
}

func newReceiver(t testing.TB) *receiver {
	r := &receiver{t: t, got: map[string]int{}}
	r.mode.Store("ok")
	r.secret.Store("")
	r.srv = httptest.NewServer(http.HandlerFunc(r.serve))
	t.Cleanup(r.srv.Close)
	return r
}

func (r *receiver) serve(w http.ResponseWriter, req *http.Request) {
	r.tries.Add(1)
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
		r.t.Errorf("delivery %s: signature %q, want %q", req.Header.Get("Calgraph-Webhook-Id"), req.Header.Get("Calgraph-Webhook-Signature"), want)
		http.Error(w, "bad signature", http.StatusUnauthorized)
		return
	}
	r.mu.Lock()
	r.got[req.Header.Get("Calgraph-Webhook-Id")]++
	r.mu.Unlock()
	w.WriteHeader(http.StatusNoContent)
}

func (r *receiver) accepted() map[string]int {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := map[string]int{}
	for k, v := range r.got {
		out[k] = v
	}
	return out
}

// hookFixture: a store that may reach the receiver on 127.0.0.1, a user
// with a reminder webhook registered to it, and a worker on a fake clock
// whose every retry waits exactly 10 s.
type hookFixture struct {
	*fixture
	hooks  *dynamo.Store
	user   context.Context
	userID string
	recv   *receiver
	clock  *fakeClock
	worker dynamo.WebhookWorker
}

func newHookFixture(t testing.TB) *hookFixture {
	s, db := dynamotest.Store(t)
	f := &fixture{t: t, store: s, db: db}
	t.Cleanup(func() {
		if !f.messy && !t.Failed() {
			f.consistent()
		}
	})
	h := &hookFixture{fixture: f, recv: newReceiver(t), clock: &fakeClock{now: at("2026-12-01T09:00:00Z")}}
	h.hooks = dynamo.New(f.db, f.store.Table(), engine, dynamo.WithWebhookPolicy(webhook.Policy{AllowPrivate: true}))
	h.user = f.user("hooked@example.com")
	h.userID = viewer(t, h.user)
	h.worker = dynamo.WebhookWorker{
		Sender:  webhook.NewSender(webhook.Policy{AllowPrivate: true}, 300*time.Millisecond),
		Now:     h.clock.Now,
		Backoff: func(int) time.Duration { return 10 * time.Second },
	}
	h.register(h.recv.srv.URL + "/reminders")
	return h
}

func (h *hookFixture) register(url string) *calendar.Webhook {
	h.t.Helper()
	hook, secret, err := h.hooks.RegisterReminderWebhook(h.user, url)
	if err != nil {
		h.t.Fatalf("register %s: %v", url, err)
	}
	if !strings.HasPrefix(secret, "whsec_") {
		h.t.Fatalf("secret %q, want whsec_…", secret)
	}
	h.recv.secret.Store(secret)
	return hook
}

func (h *hookFixture) queue(id string, due time.Time) {
	h.t.Helper()
	d := webhook.Delivery{ID: id, Event: "reminder", Body: []byte(`{"type":"reminder","id":"` + id + `"}`)}
	h.mustDo(h.hooks.QueueReminderDelivery(context.Background(), h.userID, d, due))
}

// pass runs one worker pass and returns how many attempts it made.
func (h *hookFixture) pass() int {
	h.t.Helper()
	n, err := h.hooks.DeliverWebhooks(context.Background(), h.worker)
	if err != nil {
		h.t.Fatalf("DeliverWebhooks: %v", err)
	}
	return n
}

func (h *hookFixture) webhook() *calendar.Webhook {
	h.t.Helper()
	hook, err := h.hooks.ReminderWebhook(context.Background(), h.userID)
	if err != nil || hook == nil {
		h.t.Fatalf("ReminderWebhook = %v, %v", hook, err)
	}
	return hook
}

// TestWebhookDeliveredOnceBack: a receiver that fails, then times out, then
// comes back gets the delivery once it is back, signed (checked by hand),
// at the times the backoff says, and the log shows the three attempts.
func TestWebhookDeliveredOnceBack(t *testing.T) {
	t.Parallel()
	h := newHookFixture(t)
	h.queue("rem-1", h.clock.Now())
	h.recv.mode.Store("fail")
	if n := h.pass(); n != 1 {
		t.Fatalf("first pass: %d attempts, want 1", n)
	}
	h.clock.Advance(5 * time.Second)
	if n := h.pass(); n != 0 {
		t.Fatalf("a pass before the backoff is over: %d attempts, want 0", n)
	}
	h.recv.mode.Store("hang")
	h.clock.Advance(5 * time.Second)
	if n := h.pass(); n != 1 {
		t.Fatalf("second attempt: %d attempts, want 1", n)
	}
	h.recv.mode.Store("ok")
	h.clock.Advance(10 * time.Second)
	if n := h.pass(); n != 1 {
		t.Fatalf("third attempt: %d attempts, want 1", n)
	}
	h.clock.Advance(time.Hour)
	if n := h.pass(); n != 0 {
		t.Fatalf("after the delivery: %d attempts, want 0", n)
	}
	if got := h.recv.accepted(); len(got) != 1 || got["rem-1"] != 1 {
		t.Errorf("the receiver accepted %v, want rem-1 once", got)
	}
	if n := h.recv.tries.Load(); n != 3 {
		t.Errorf("the receiver was asked %d times, want 3", n)
	}
	log := h.webhook().Log
	var got []string
	for _, a := range log {
		got = append(got, fmt.Sprintf("%s %d %s", a.DeliveryID, a.Status, a.Error))
	}
	want := []string{"rem-1 204 ", "rem-1 0 timed out", "rem-1 500 answered 500"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("log %q, want %q", got, want)
	}
	if log[0].At != at("2026-12-01T09:00:20Z") {
		t.Errorf("delivered at %v, want 09:00:20 (two backoffs of 10 s)", log[0].At)
	}
}

// TestWebhookTwoWorkers: two instances on one table deliver each of 40
// deliveries once.
func TestWebhookTwoWorkers(t *testing.T) {
	t.Parallel()
	h := newHookFixture(t)
	other := dynamo.New(h.db, h.store.Table(), engine, dynamo.WithWebhookPolicy(webhook.Policy{AllowPrivate: true}))
	const n = 40
	for i := range n {
		h.queue(fmt.Sprintf("rem-%02d", i), h.clock.Now().Add(-time.Duration(i)*time.Millisecond))
	}
	for round := 0; len(h.recv.accepted()) < n; round++ {
		if round == 10 {
			t.Fatalf("after 10 rounds the receiver has %d of %d deliveries", len(h.recv.accepted()), n)
		}
		var wg sync.WaitGroup
		for _, s := range []*dynamo.Store{h.hooks, other} {
			wg.Go(func() {
				if _, err := s.DeliverWebhooks(context.Background(), h.worker); err != nil {
					t.Errorf("DeliverWebhooks: %v", err)
				}
			})
		}
		wg.Wait()
	}
	for id, times := range h.recv.accepted() {
		if times != 1 {
			t.Errorf("%s delivered %d times, want once", id, times)
		}
	}
	if tries := h.recv.tries.Load(); tries != n {
		t.Errorf("the receiver was asked %d times, want %d", tries, n)
	}
	if log := h.webhook().Log; len(log) != calendar.MaxWebhookLog {
		t.Errorf("the log holds %d attempts of %d, want the last %d", len(log), n, calendar.MaxWebhookLog)
	}
}

// TestWebhookFailingWaitsAndResumes: failures for a day mark the webhook
// FAILING; its deliveries then wait (a new one too) without attempts, until
// resumeReminderWebhook sends them all again.
func TestWebhookFailingWaitsAndResumes(t *testing.T) {
	t.Parallel()
	h := newHookFixture(t)
	h.worker.Backoff = func(int) time.Duration { return 2 * time.Hour }
	h.recv.mode.Store("fail")
	h.queue("rem-a", h.clock.Now())
	for range 12 { // attempts at 0, 2, …, 22 hours
		if n := h.pass(); n != 1 {
			t.Fatalf("at %v: %d attempts, want 1", h.clock.Now(), n)
		}
		if s := h.webhook().State; s != calendar.WebhookActive {
			t.Fatalf("at %v: state %s, want ACTIVE", h.clock.Now(), s)
		}
		h.clock.Advance(2 * time.Hour)
	}
	if n := h.pass(); n != 1 { // at 24 hours
		t.Fatalf("the last attempt: %d, want 1", n)
	}
	hook := h.webhook()
	if hook.State != calendar.WebhookFailing || hook.Waiting != 1 || !hook.FailingSince.Equal(h.clock.Now()) {
		t.Fatalf("after a day of failures: %s since %v, %d waiting; want FAILING since %v, 1 waiting", hook.State, hook.FailingSince, hook.Waiting, h.clock.Now())
	}
	h.queue("rem-b", h.clock.Now())
	h.clock.Advance(48 * time.Hour)
	h.pass()
	h.pass()
	if hook := h.webhook(); hook.Waiting != 2 || len(h.recv.accepted()) != 0 || h.recv.tries.Load() != 13 {
		t.Fatalf("while FAILING: %d waiting, %d tries; want 2 waiting and no new attempt", hook.Waiting, h.recv.tries.Load())
	}
	h.recv.mode.Store("ok")
	if hook, err := h.hooks.ResumeReminderWebhook(h.user); err != nil || hook.State != calendar.WebhookActive || hook.Waiting != 0 {
		t.Fatalf("ResumeReminderWebhook = %+v, %v; want ACTIVE, nothing waiting", hook, err)
	}
	if n := h.pass(); n != 2 {
		t.Fatalf("after the resume: %d attempts, want 2", n)
	}
	if got := h.recv.accepted(); got["rem-a"] != 1 || got["rem-b"] != 1 {
		t.Errorf("accepted %v, want rem-a and rem-b once", got)
	}
}

// TestReminderWebhookRegistration: refused URLs write nothing; a webhook
// registered again has a new secret that signs its queued deliveries; a
// deleted one drops what was queued for it.
func TestReminderWebhookRegistration(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	strict := f.store // public addresses only, the default
	u := f.user("strict@example.com")
	for _, url := range []string{"file:///etc/passwd", "ftp://example.com/", "javascript:alert(1)", "http://169.254.169.254/latest/meta-data/",
		"http://localhost:8080/", "http://127.0.0.1/", "http://[::1]/", "https://example.com/" + strings.Repeat("x", 2100), ""} {
		_, _, err := strict.RegisterReminderWebhook(u, url)
		de, ok := errors.AsType[*calendar.Error](err)
		if !ok || de.Code != calendar.CodeInvalid || de.Field != "url" {
			t.Errorf("register %.50q: %v, want BAD_USER_INPUT on url", url, err)
		}
	}
	if n := f.countEntities()["WEBHOOK"]; n != 0 {
		t.Fatalf("refused registrations wrote %d webhooks", n)
	}
	if hook, err := strict.ReminderWebhook(context.Background(), viewer(t, u)); hook != nil || err != nil {
		t.Fatalf("ReminderWebhook of none = %v, %v; want nil, nil", hook, err)
	}

	h := newHookFixture(t)
	first := h.recv.secret.Load().(string)
	h.queue("rem-1", h.clock.Now())
	h.register(h.recv.srv.URL + "/rotated")
	if h.recv.secret.Load().(string) == first {
		t.Fatal("registering again kept the secret")
	}
	if n := h.pass(); n != 1 || h.recv.accepted()["rem-1"] != 1 {
		t.Fatalf("a delivery queued before the rotation: %d attempts, accepted %v; want signed with the new secret", n, h.recv.accepted())
	}
	h.queue("rem-2", h.clock.Now())
	if gone, err := h.hooks.DeleteReminderWebhook(h.user); !gone || err != nil {
		t.Fatalf("DeleteReminderWebhook = %v, %v", gone, err)
	}
	if gone, err := h.hooks.DeleteReminderWebhook(h.user); gone || err != nil {
		t.Fatalf("DeleteReminderWebhook again = %v, %v; want false", gone, err)
	}
	if n := h.pass(); n != 0 || h.recv.tries.Load() != 1 {
		t.Fatalf("after the deletion: %d attempts, want none", n)
	}
	if n := h.countEntities()["WEBHOOK_QUEUED"]; n != 0 {
		t.Errorf("%d deliveries left queued for a deleted webhook", n)
	}
	if _, err := h.hooks.ResumeReminderWebhook(h.user); calendar.ErrorCode(err) != calendar.CodeNotFound {
		t.Errorf("resume without a webhook: %v, want NOT_FOUND", err)
	}
}

// crashingSender posts, then stops its worker (cancels the pass's context)
// before the worker can record the answer: a process killed between the
// receiver's 2xx and the outbox delete.
type crashingSender struct {
	next dynamo.WebhookSender
	stop context.CancelFunc
}

func (c crashingSender) Send(ctx context.Context, url, secret string, d webhook.Delivery, now time.Time) webhook.Result {
	r := c.next.Send(ctx, url, secret, d, now)
	c.stop()
	return r
}

// TestWebhookRepeatAfterCrash: a worker stopped after the receiver took a
// delivery leaves it leased; once the lease runs out another instance posts
// it again with the same delivery ID (the documented duplicate), and not
// before.
func TestWebhookRepeatAfterCrash(t *testing.T) {
	t.Parallel()
	h := newHookFixture(t)
	h.queue("rem-crash", h.clock.Now())
	ctx, stop := context.WithCancel(context.Background())
	crashing := h.worker
	crashing.Sender = crashingSender{next: h.worker.Sender, stop: stop}
	_, _ = h.hooks.DeliverWebhooks(ctx, crashing) // fails: stopped mid-pass
	if got := h.recv.accepted()["rem-crash"]; got != 1 {
		t.Fatalf("before the crash the receiver took it %d times, want 1", got)
	}
	other := dynamo.New(h.db, h.store.Table(), engine)
	h.clock.Advance(time.Minute)
	if n, err := other.DeliverWebhooks(context.Background(), h.worker); n != 0 || err != nil {
		t.Fatalf("within the lease: %d attempts (%v), want none", n, err)
	}
	h.clock.Advance(2 * time.Minute)
	if n, err := other.DeliverWebhooks(context.Background(), h.worker); n != 1 || err != nil {
		t.Fatalf("after the lease: %d attempts (%v), want 1", n, err)
	}
	if got := h.recv.accepted()["rem-crash"]; got != 2 {
		t.Errorf("the receiver took rem-crash %d times, want twice with the same ID", got)
	}
	if n := h.countEntities()["WEBHOOK_QUEUED"]; n != 0 {
		t.Errorf("%d deliveries left queued", n)
	}
}

// failing makes h's webhook FAILING with the given deliveries waiting.
func (h *hookFixture) failing(ids ...string) {
	h.t.Helper()
	h.worker.RetryFor = time.Second
	h.recv.mode.Store("fail")
	for _, id := range ids {
		h.queue(id, h.clock.Now())
	}
	h.clock.Advance(time.Minute)
	h.pass()
	h.clock.Advance(time.Minute)
	h.pass()
	if hook := h.webhook(); hook.State != calendar.WebhookFailing || hook.Waiting != len(ids) {
		h.t.Fatalf("%s with %d waiting, want FAILING with %d", hook.State, hook.Waiting, len(ids))
	}
}

// TestWebhookDeleteWhileWaiting: deleting a FAILING webhook removes what
// waited for it; Check catches a waiting count that is off.
func TestWebhookDeleteWhileWaiting(t *testing.T) {
	t.Parallel()
	h := newHookFixture(t)
	h.failing("w-1", "w-2", "w-3")
	if gone, err := h.hooks.DeleteReminderWebhook(h.user); !gone || err != nil {
		t.Fatalf("DeleteReminderWebhook = %v, %v", gone, err)
	}
	if n := h.countEntities()["WEBHOOK_WAITING"]; n != 0 {
		t.Fatalf("%d deliveries still wait for a deleted webhook", n)
	}

	h.register(h.recv.srv.URL + "/again")
	h.failing("w-4", "w-5")
	for _, it := range h.items() {
		if it["entityType"] == "WEBHOOK_WAITING" {
			h.deleteRaw(it["PK"].(string), it["SK"].(string))
			break
		}
	}
	h.messy = true
	problems, err := h.store.Check(context.Background())
	if err != nil || len(problems) != 1 || !strings.Contains(problems[0], "counts 2 deliveries waiting, 1 do") {
		t.Errorf("Check = %q, %v; want the waiting count off", problems, err)
	}
}

// TestWebhookClaimAppliedBeforeItsConnectionFailed: a claim whose update was
// applied but whose connection failed before the answer is sent again by
// the SDK (a connection reset is retryable for any call); the repeat must
// find the lease it took, so the delivery is made in the same pass, once,
// rather than left leased to no one until the lease runs out.
func TestWebhookClaimAppliedBeforeItsConnectionFailed(t *testing.T) {
	t.Parallel()
	h := newHookFixture(t)
	db, claims := cutFirstClaim(h.db)
	cutting := dynamo.New(db, h.store.Table(), engine, dynamo.WithWebhookPolicy(webhook.Policy{AllowPrivate: true}))
	h.queue("rem-cut", h.clock.Now())
	n, err := cutting.DeliverWebhooks(context.Background(), h.worker)
	if err != nil {
		t.Fatalf("DeliverWebhooks: %v", err)
	}
	if claims.Load() < 2 {
		t.Fatalf("%d claim attempts: the claim was not sent again, the test cut nothing", claims.Load())
	}
	if got := h.recv.accepted()["rem-cut"]; n != 1 || got != 1 {
		t.Fatalf("%d attempts, delivered %d times; want the claim's repeat to hold its lease and deliver once", n, got)
	}
}

// cutFirstClaim returns a client on db's table whose first claim of a lease
// (an UpdateItem that sets leaseBy) is applied and then fails as a connection
// reset before its answer, which the SDK sends again; and the count of claim
// attempts.
func cutFirstClaim(db *dynamodb.Client) (*dynamodb.Client, *atomic.Int32) {
	type claimKey struct{}
	var claims atomic.Int32
	return dynamodb.New(db.Options(), func(o *dynamodb.Options) {
		o.APIOptions = append(o.APIOptions, func(st *middleware.Stack) error {
			// The call's parameters are seen before the retry loop...
			err := st.Initialize.Add(middleware.InitializeMiddlewareFunc("markClaims",
				func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
					if u, ok := in.Parameters.(*dynamodb.UpdateItemInput); ok && slices.Contains(slices.Collect(maps.Values(u.ExpressionAttributeNames)), "leaseBy") &&
						strings.Contains(aws.ToString(u.UpdateExpression), "SET") {
						ctx = context.WithValue(ctx, claimKey{}, true)
					}
					return next.HandleInitialize(ctx, in)
				}), middleware.Before)
			if err != nil {
				return err
			}
			// ...and each attempt last in the Finalize step, inside it.
			return st.Finalize.Add(middleware.FinalizeMiddlewareFunc("cutFirstClaim",
				func(ctx context.Context, in middleware.FinalizeInput, next middleware.FinalizeHandler) (middleware.FinalizeOutput, middleware.Metadata, error) {
					out, md, err := next.HandleFinalize(ctx, in)
					if ctx.Value(claimKey{}) != nil && claims.Add(1) == 1 && err == nil {
						return out, md, &smithyhttp.RequestSendError{Err: errors.New("read tcp: connection reset by peer")}
					}
					return out, md, err
				}), middleware.After)
		})
	}), &claims
}
