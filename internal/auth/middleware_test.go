package auth

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/calgraph/calgraph/internal/calendar"
	"github.com/golang-jwt/jwt/v5"
	"github.com/google/go-cmp/cmp"
)

// fakeUsers is a calendar.UserService that derives user IDs from subjects and
// records its calls. It is safe for concurrent use.
type fakeUsers struct {
	mu      sync.Mutex
	err     error
	creates bool // whether sign-ups make new users
	signUps []calendar.SignUp
}

func (f *fakeUsers) ResolveIdentity(_ context.Context, s calendar.SignUp) (string, bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.signUps = append(f.signUps, s)
	if f.err != nil {
		return "", false, f.err
	}
	return "user-" + s.Identity.Subject, f.creates, nil
}

func (f *fakeUsers) UpdateProfile(context.Context, calendar.ProfileUpdate) (*calendar.User, error) {
	return nil, errors.New("not implemented")
}

func (f *fakeUsers) calls() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.signUps)
}

func (f *fakeUsers) fail(err error) {
	f.mu.Lock()
	f.err = err
	f.mu.Unlock()
}

// fakeClock is a settable clock, safe for concurrent use.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// syncBuffer is a bytes.Buffer safe for concurrent writes, for log output.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// viewer is what a handler behind the middleware sees: the calendar.Viewer's
// fields, with its error as a code and a message.
type viewer struct {
	ID       string
	Identity calendar.Identity
	Email    string
	Expiry   time.Time
	SignedUp bool // the request's sign-in made the user
	Code     calendar.Code
	Message  string
}

type authFixture struct {
	auth  *Authenticator
	users *fakeUsers
	clock *fakeClock
	logs  *syncBuffer
}

func newAuthFixture(t *testing.T) *authFixture {
	t.Helper()
	f := &authFixture{users: &fakeUsers{}, clock: &fakeClock{now: testNow}, logs: &syncBuffer{}}
	v := newTestVerifier(t, Config{HMACSecret: testSecret, Issuer: testIssuer, Audience: testAudience, Now: f.clock.Now})
	f.auth = NewAuthenticator(v, f.users, slog.New(slog.NewTextHandler(f.logs, nil)))
	f.auth.cache.now = f.clock.Now
	return f
}

// serve sends a request with the given Authorization header values through the
// middleware and returns the viewer the next handler saw. It reports failures
// with t.Errorf, not t.Fatalf, because concurrent tests call it off the test
// goroutine.
func (f *authFixture) serve(t *testing.T, authorization ...string) viewer {
	t.Helper()
	next := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		json.NewEncoder(w).Encode(seen(r.Context()))
	})
	req := httptest.NewRequest(http.MethodPost, "/graphql", nil)
	for _, a := range authorization {
		req.Header.Add("Authorization", a)
	}
	rec := httptest.NewRecorder()
	f.auth.Middleware(next).ServeHTTP(rec, req)
	if rec.Code != http.StatusOK {
		t.Errorf("got status %d, want %d: the middleware must not reject requests", rec.Code, http.StatusOK)
	}
	var v viewer
	if err := json.NewDecoder(rec.Body).Decode(&v); err != nil {
		t.Errorf("decode viewer: %v", err)
	}
	return v
}

// seen returns the viewer ctx carries, as a handler sees it.
func seen(ctx context.Context) viewer {
	cv := calendar.ViewerOf(ctx)
	v := viewer{ID: cv.ID, Identity: cv.Identity, Email: cv.Email, Expiry: cv.Expiry, SignedUp: cv.SignedUp}
	if _, err := calendar.ViewerID(ctx); err != nil {
		v.Code, v.Message = calendar.ErrorCode(err), calendar.ErrorMessage(err)
	}
	return v
}

func TestMiddlewareViewer(t *testing.T) {
	good := sign(t, jwt.SigningMethodHS256, testSecret, "", claims())
	expired := sign(t, jwt.SigningMethodHS256, testSecret, "", claims(set("exp", testNow.Add(-time.Hour).Unix())))
	forged := sign(t, jwt.SigningMethodHS256, []byte("not the secret, but 32 bytes long"), "", claims())
	malformed := viewer{Code: calendar.CodeUnauthenticated, Message: "malformed Authorization header: want Bearer <token>"}
	signedIn := viewer{
		ID:       "user-subject-1",
		Identity: calendar.Identity{Provider: testIssuer, Subject: "subject-1"},
		Email:    "ada@example.com",
		Expiry:   testNow.Add(time.Hour + DefaultLeeway),
	}
	noEmail := signedIn
	noEmail.Email = ""
	unverified := sign(t, jwt.SigningMethodHS256, testSecret, "", claims(set("email_verified", false)))
	verified := sign(t, jwt.SigningMethodHS256, testSecret, "", claims(set("email_verified", true)))
	emailless := sign(t, jwt.SigningMethodHS256, testSecret, "", claims(without("email")))
	tests := []struct {
		name   string
		header []string
		want   viewer
	}{
		{"anonymous", nil, viewer{Code: calendar.CodeUnauthenticated, Message: "sign in required: send Authorization: Bearer <token>"}},
		{"bearer", []string{"Bearer " + good}, signedIn},
		{"lower-case scheme", []string{"bearer " + good}, signedIn},
		{"upper-case scheme", []string{"BEARER " + good}, signedIn},
		{"email verified", []string{"Bearer " + verified}, signedIn},
		{"email unverified", []string{"Bearer " + unverified}, noEmail},
		{"no email", []string{"Bearer " + emailless}, noEmail},
		{"other scheme", []string{"Basic YWRhOnNlY3JldA=="}, malformed},
		{"scheme only", []string{"Bearer"}, malformed},
		{"empty token", []string{"Bearer   "}, malformed},
		{"token with a space", []string{"Bearer " + good + " extra"}, malformed},
		{"empty header", []string{""}, malformed},
		{"two headers", []string{"Bearer " + good, "Bearer " + good}, malformed},
		{"expired", []string{"Bearer " + expired}, viewer{Code: calendar.CodeUnauthenticated, Message: "token expired"}},
		{"forged", []string{"Bearer " + forged}, viewer{Code: calendar.CodeUnauthenticated, Message: "invalid token: bad signature"}},
		{"garbage", []string{"Bearer garbage"}, viewer{Code: calendar.CodeUnauthenticated, Message: "invalid token: malformed token"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newAuthFixture(t)
			if diff := cmp.Diff(tt.want, f.serve(t, tt.header...)); diff != "" {
				t.Errorf("viewer mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestMiddlewareSignUp(t *testing.T) {
	f := newAuthFixture(t)
	f.users.creates = true
	header := "Bearer " + sign(t, jwt.SigningMethodHS256, testSecret, "", claims())
	if got := f.serve(t, header); !got.SignedUp {
		t.Errorf("the sign-in that made the user: got %+v, want it marked as such", got)
	}
	if got := f.serve(t, header); got.SignedUp || got.ID != "user-subject-1" {
		t.Errorf("the next sign-in (from the cache): got %+v, want the user, not marked", got)
	}
	want := []calendar.SignUp{{
		Identity: calendar.Identity{Provider: testIssuer, Subject: "subject-1"},
		Email:    "ada@example.com",
		Name:     "Ada Lovelace",
	}}
	if diff := cmp.Diff(want, f.users.signUps); diff != "" {
		t.Errorf("ResolveIdentity calls mismatch (-want +got):\n%s", diff)
	}
}

func TestMiddlewareCache(t *testing.T) {
	f := newAuthFixture(t)
	header := "Bearer " + sign(t, jwt.SigningMethodHS256, testSecret, "", claims())
	other := "Bearer " + sign(t, jwt.SigningMethodHS256, testSecret, "", claims(set("sub", "subject-2")))
	steps := []struct {
		name      string
		before    func()
		header    string
		wantID    string
		wantCalls int
	}{
		{"first request resolves", nil, header, "user-subject-1", 1},
		{"second request hits the cache", nil, header, "user-subject-1", 1},
		{"another identity resolves", nil, other, "user-subject-2", 2},
		{"still cached just before the TTL", func() { f.clock.Advance(identityTTL - time.Second) }, header, "user-subject-1", 2},
		{"resolves again after the TTL", func() { f.clock.Advance(2 * time.Second) }, header, "user-subject-1", 3},
		{"cached again", nil, header, "user-subject-1", 3},
		{"resolves again after Forget", func() {
			f.auth.Forget(calendar.Identity{Provider: testIssuer, Subject: "subject-1"})
		}, header, "user-subject-1", 4},
	}
	for _, s := range steps {
		if s.before != nil {
			s.before()
		}
		got := f.serve(t, s.header)
		if got.ID != s.wantID {
			t.Errorf("%s: got viewer %+v, want ID %q", s.name, got, s.wantID)
		}
		if calls := f.users.calls(); calls != s.wantCalls {
			t.Errorf("%s: got %d ResolveIdentity calls, want %d", s.name, calls, s.wantCalls)
		}
	}
}

func TestMiddlewareResolveErrors(t *testing.T) {
	tests := []struct {
		name    string
		err     error
		want    viewer
		wantLog string // "" when nothing may be logged
	}{
		{
			name: "domain error keeps its code",
			err:  calendar.Errorf(calendar.CodeAlreadyExists, "another user has the email ada@example.com"),
			want: viewer{Code: calendar.CodeAlreadyExists, Message: "another user has the email ada@example.com"},
		},
		{
			name: "wrapped domain error keeps its code",
			err:  errors.Join(errors.New("resolve"), calendar.Errorf(calendar.CodeUnauthenticated, "token has no usable email claim")),
			want: viewer{Code: calendar.CodeUnauthenticated, Message: "token has no usable email claim"},
		},
		{
			// Not logged here: the GraphQL layer logs it when an operation surfaces it.
			name: "internal error is hidden",
			err:  errors.New("dynamodb: connection reset by peer"),
			want: viewer{Code: calendar.CodeInternal, Message: "internal error"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newAuthFixture(t)
			f.users.fail(tt.err)
			header := "Bearer " + sign(t, jwt.SigningMethodHS256, testSecret, "", claims())
			if diff := cmp.Diff(tt.want, f.serve(t, header)); diff != "" {
				t.Errorf("viewer mismatch (-want +got):\n%s", diff)
			}
			logs := f.logs.String()
			if tt.wantLog == "" && logs != "" {
				t.Errorf("got logs %q, want none", logs)
			}
			if tt.wantLog != "" && (!strings.Contains(logs, tt.wantLog) || !strings.Contains(logs, "level=ERROR")) {
				t.Errorf("got logs %q, want an ERROR line with %q", logs, tt.wantLog)
			}

			// Failures are not cached: the next request asks again.
			f.users.fail(nil)
			if got := f.serve(t, header); got.ID != "user-subject-1" {
				t.Errorf("after the service recovered: got viewer %+v, want ID %q", got, "user-subject-1")
			}
			if got := f.users.calls(); got != 2 {
				t.Errorf("got %d ResolveIdentity calls, want 2", got)
			}
		})
	}
}

func TestMiddlewareConcurrent(t *testing.T) {
	f := newAuthFixture(t)
	header := "Bearer " + sign(t, jwt.SigningMethodHS256, testSecret, "", claims())
	var wg sync.WaitGroup
	for range 100 {
		wg.Go(func() {
			if got := f.serve(t, header); got.ID != "user-subject-1" {
				t.Errorf("got viewer %+v, want ID %q", got, "user-subject-1")
			}
		})
	}
	wg.Wait()
	if calls := f.users.calls(); calls < 1 || calls > 100 {
		t.Errorf("got %d ResolveIdentity calls, want between 1 and 100", calls)
	}
	before := f.users.calls()
	f.serve(t, header)
	if after := f.users.calls(); after != before {
		t.Errorf("got %d ResolveIdentity calls after a warm request, want %d", after, before)
	}
}
