package webhook_test

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/calgraph/calgraph/internal/webhook"
)

var delivery = webhook.Delivery{ID: "d-1", Event: "reminder", Body: []byte(`{"type":"reminder"}`)}

// counting is a receiver that counts the requests that reach it.
func counting(t *testing.T, h http.HandlerFunc) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		h(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv, &n
}

// TestSenderRefusesAtDial: names that resolve to forbidden addresses, and a
// forbidden address the URL check was skipped for, are refused when dialed:
// the receiver on 127.0.0.1 is never reached.
func TestSenderRefusesAtDial(t *testing.T) {
	srv, hits := counting(t, func(w http.ResponseWriter, r *http.Request) {})
	port := srv.URL[strings.LastIndex(srv.URL, ":")+1:]
	s := webhook.NewSender(webhook.Policy{}, 5*time.Second).WithHosts(map[string]string{
		"hooks.example":    "127.0.0.1",
		"metadata.example": "169.254.169.254",
		"mapped.example":   "::ffff:127.0.0.1",
		"private.example":  "10.0.0.1",
	})
	ctx := context.Background()
	for _, tt := range []struct{ url, reason string }{
		{"http://hooks.example:" + port + "/", "loopback"},
		{"http://mapped.example:" + port + "/", "loopback"},
		{"http://metadata.example/latest/meta-data/", "link-local"},
		{"http://private.example:" + port + "/", "private"},
	} {
		r := s.Send(ctx, tt.url, "secret", delivery, time.Now())
		if refused, ok := errors.AsType[*webhook.RefusedError](r.Err); !ok || !strings.Contains(refused.Reason, tt.reason) {
			t.Errorf("Send(%s) = %+v, want refused: %s", tt.url, r, tt.reason)
		}
	}
	r := s.SendUnchecked(ctx, srv.URL, delivery)
	if _, ok := errors.AsType[*webhook.RefusedError](r.Err); !ok {
		t.Errorf("SendUnchecked(%s) = %+v, want refused at dial time", srv.URL, r)
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("the receiver got %d requests, want 0", n)
	}
}

// TestSenderPostsSigned: what the receiver gets verifies by hand
// (crypto/hmac over "<timestamp>.<body>") and by Verify; a redirect is a
// failed attempt whose target is never asked; a long answer is cut off; a
// receiver slower than the timeout is a timeout.
func TestSenderPostsSigned(t *testing.T) {
	const secret = "whsec_test"
	var redirected atomic.Int64
	target := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { redirected.Add(1) }))
	defer target.Close()
	release := make(chan struct{})
	defer close(release)
	srv, _ := counting(t, func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		switch r.URL.Path {
		case "/ok":
			mac := hmac.New(sha256.New, []byte(secret))
			mac.Write([]byte(r.Header.Get("Calgraph-Webhook-Timestamp") + "." + string(body)))
			want := "v1=" + hex.EncodeToString(mac.Sum(nil))
			if got := r.Header.Get("Calgraph-Webhook-Signature"); got != want || r.Header.Get("Calgraph-Webhook-Id") != "d-1" {
				t.Errorf("signature %q, id %q; want %q, d-1", got, r.Header.Get("Calgraph-Webhook-Id"), want)
			}
			if err := webhook.Verify(secret, r.Header, body, time.Now(), webhook.DefaultTolerance); err != nil {
				t.Errorf("Verify: %v", err)
			}
			w.WriteHeader(http.StatusNoContent)
		case "/redirect":
			http.Redirect(w, r, target.URL, http.StatusFound)
		case "/huge":
			_, _ = w.Write([]byte(strings.Repeat("x", 10<<20)))
		case "/slow":
			select {
			case <-release:
			case <-r.Context().Done():
			}
		}
	})
	s := webhook.NewSender(webhook.Policy{AllowPrivate: true}, 500*time.Millisecond)
	ctx := context.Background()
	if r := s.Send(ctx, srv.URL+"/ok", secret, delivery, time.Now()); !r.OK() || r.Status != 204 {
		t.Errorf("/ok: %+v, want 204", r)
	}
	if r := s.Send(ctx, srv.URL+"/redirect", secret, delivery, time.Now()); r.OK() || r.Status != http.StatusFound || redirected.Load() != 0 {
		t.Errorf("/redirect: %+v, target asked %d times; want a failed 302, target never asked", r, redirected.Load())
	}
	if r := s.Send(ctx, srv.URL+"/huge", secret, delivery, time.Now()); !r.OK() {
		t.Errorf("/huge: %+v, want 200 (the answer is cut off, not failed)", r)
	}
	if r := s.Send(ctx, srv.URL+"/slow", secret, delivery, time.Now()); r.OK() || !strings.Contains(r.Err.Error(), "timed out") {
		t.Errorf("/slow: %+v, want timed out", r)
	}
	if r := s.Send(ctx, "http://127.0.0.1:1/%zz", secret, delivery, time.Now()); r.OK() {
		t.Errorf("a malformed URL: %+v, want refused", r)
	}
}

func TestVerify(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	h := webhook.Headers("s3cret", delivery, now)
	if err := webhook.Verify("s3cret", h, delivery.Body, now.Add(time.Minute), webhook.DefaultTolerance); err != nil {
		t.Fatalf("Verify of a fresh delivery: %v", err)
	}
	for _, tt := range []struct {
		name   string
		secret string
		body   string
		at     time.Time
		want   error
	}{
		{"another secret", "other", string(delivery.Body), now, webhook.ErrBadSignature},
		{"a changed body", "s3cret", `{"type":"other"}`, now, webhook.ErrBadSignature},
		{"replayed later", "s3cret", string(delivery.Body), now.Add(time.Hour), webhook.ErrTimestamp},
	} {
		if err := webhook.Verify(tt.secret, h, []byte(tt.body), tt.at, webhook.DefaultTolerance); !errors.Is(err, tt.want) {
			t.Errorf("%s: Verify = %v, want %v", tt.name, err, tt.want)
		}
	}
	h.Set(webhook.HeaderSignature, "v0=abc")
	if err := webhook.Verify("s3cret", h, delivery.Body, now, webhook.DefaultTolerance); !errors.Is(err, webhook.ErrNoSignature) {
		t.Errorf("no v1 signature: Verify = %v, want %v", err, webhook.ErrNoSignature)
	}
}

func TestBackoff(t *testing.T) {
	for attempt, want := range map[int][2]time.Duration{1: {5 * time.Second, 10 * time.Second}, 2: {10 * time.Second, 20 * time.Second}, 12: {30 * time.Minute, time.Hour}, 40: {30 * time.Minute, time.Hour}} {
		for range 50 {
			if got := webhook.Backoff(attempt); got < want[0] || got > want[1] {
				t.Fatalf("Backoff(%d) = %v, want within %v", attempt, got, want)
			}
		}
	}
}
