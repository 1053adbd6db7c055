package auth

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/calgraph/calgraph/internal/calendar"
	"github.com/golang-jwt/jwt/v5"
	"github.com/google/go-cmp/cmp"
)

// TestMiddlewareDevToken: a dev token (auth.Mint, what `calgraph token` and
// the demo's sign-in hand out) signs in with every field of the Viewer.
func TestMiddlewareDevToken(t *testing.T) {
	f := newAuthFixture(t)
	f.users.creates = true
	v := newTestVerifier(t, Config{HMACSecret: testSecret, Issuer: LocalIssuer, Audience: LocalAudience, Now: f.clock.Now})
	f.auth = NewAuthenticator(v, f.users, nil)
	token, err := Mint(testSecret, "Dev@Example.com", "Dev Eloper", testNow, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	want := viewer{
		ID:       "user-dev@example.com",
		Identity: calendar.Identity{Provider: LocalIssuer, Subject: "dev@example.com"},
		Email:    "dev@example.com",
		Expiry:   testNow.Add(time.Hour + DefaultLeeway),
		SignedUp: true,
	}
	if diff := cmp.Diff(want, f.serve(t, "Bearer "+token)); diff != "" {
		t.Errorf("viewer mismatch (-want +got):\n%s", diff)
	}
}

// TestAuthenticateReplacesTheViewer: a WebSocket's connection_init signs in
// over a context that the upgrade request's own Authorization header signed
// in already; nothing of that first sign-in may outlive the second (it once
// kept the first token's verified email and its sign-up mark).
func TestAuthenticateReplacesTheViewer(t *testing.T) {
	f := newAuthFixture(t)
	f.users.creates = true
	first := sign(t, jwt.SigningMethodHS256, testSecret, "", claims())
	second := sign(t, jwt.SigningMethodHS256, testSecret, "", claims(set("sub", "subject-2"), without("email")))
	upgrade := httptest.NewRequest(http.MethodGet, "/graphql", nil)
	upgrade.Header.Set("Authorization", "Bearer "+first)
	var ctx context.Context
	f.auth.Middleware(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		ctx = r.Context()
	})).ServeHTTP(httptest.NewRecorder(), upgrade)
	if got := seen(ctx); got.Email == "" || !got.SignedUp {
		t.Fatalf("the first sign-in: got %+v, want its email and its sign-up", got)
	}
	f.users.creates = false
	want := viewer{
		ID:       "user-subject-2",
		Identity: calendar.Identity{Provider: testIssuer, Subject: "subject-2"},
		Expiry:   testNow.Add(time.Hour + DefaultLeeway),
	}
	if diff := cmp.Diff(want, seen(f.auth.Authenticate(ctx, "Bearer "+second))); diff != "" {
		t.Errorf("viewer after the second sign-in mismatch (-want +got):\n%s", diff)
	}
	want = viewer{Code: calendar.CodeUnauthenticated, Message: "invalid token: malformed token"}
	if diff := cmp.Diff(want, seen(f.auth.Authenticate(ctx, "Bearer garbage"))); diff != "" {
		t.Errorf("viewer after a failed sign-in mismatch (-want +got):\n%s", diff)
	}
}
