package auth

import (
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"golang.org/x/time/rate"
)

func TestJWKSKeyRotation(t *testing.T) {
	srv := newJWKSServer(t, rsaJWK("a", "RS256", rsaKeyA()))
	v := newTestVerifier(t, Config{
		JWKSURL: srv.URL,
		Issuer:  testIssuer,
		// Let every unknown kid refresh, so that the test need not wait.
		unknownKIDLimiter: rate.NewLimiter(rate.Inf, 1),
	})
	tokenA := sign(t, jwt.SigningMethodRS256, rsaKeyA(), "a", claims())
	tokenB := sign(t, jwt.SigningMethodRS256, rsaKeyB(), "b", claims())
	checkFetches(t, srv, 1)

	if _, err := v.Verify(t.Context(), tokenA); err != nil {
		t.Fatalf("Verify with key A: got %v, want no error", err)
	}
	checkFetches(t, srv, 1)

	_, err := v.Verify(t.Context(), tokenB)
	checkVerifyError(t, err, ErrInvalid, tokenB)
	checkFetches(t, srv, 2)

	srv.publish(rsaJWK("a", "RS256", rsaKeyA()), rsaJWK("b", "RS256", rsaKeyB()))
	if _, err := v.Verify(t.Context(), tokenB); err != nil {
		t.Fatalf("Verify with key B once published: got %v, want no error", err)
	}
	checkFetches(t, srv, 3)
	if _, err := v.Verify(t.Context(), tokenA); err != nil {
		t.Errorf("Verify with key A after the refresh: got %v, want no error", err)
	}

	// A withdrawn key stops verifying at the next refresh.
	srv.publish(rsaJWK("b", "RS256", rsaKeyB()))
	_, err = v.Verify(t.Context(), sign(t, jwt.SigningMethodRS256, rsaKeyA(), "unknown", claims()))
	checkVerifyError(t, err, ErrInvalid, "")
	_, err = v.Verify(t.Context(), tokenA)
	checkVerifyError(t, err, ErrInvalid, tokenA)
}

// With the production limiter, a burst of made-up kids costs the issuer one
// fetch, and requests fail at once rather than queue for the limiter.
func TestJWKSUnknownKIDRateLimit(t *testing.T) {
	srv := newJWKSServer(t, rsaJWK("a", "RS256", rsaKeyA()))
	v := newTestVerifier(t, Config{JWKSURL: srv.URL, Issuer: testIssuer})
	start := time.Now()
	for _, kid := range []string{"x", "y", "z"} {
		token := sign(t, jwt.SigningMethodRS256, rsaKeyA(), kid, claims())
		_, err := v.Verify(t.Context(), token)
		checkVerifyError(t, err, ErrInvalid, token)
	}
	checkFetches(t, srv, 2)
	if elapsed := time.Since(start); elapsed > time.Second {
		t.Errorf("three unknown kids took %v, want under a second", elapsed)
	}
	if _, err := v.Verify(t.Context(), sign(t, jwt.SigningMethodRS256, rsaKeyA(), "a", claims())); err != nil {
		t.Errorf("Verify with a known kid while rate limited: got %v, want no error", err)
	}
}

func checkFetches(t *testing.T, srv *jwksServer, want int32) {
	t.Helper()
	if got := srv.fetches.Load(); got != want {
		t.Errorf("got %d JWKS fetches, want %d", got, want)
	}
}
