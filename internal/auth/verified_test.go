package auth

import (
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"golang.org/x/time/rate"
)

// TestVerifiedTokensAreKeptWithinTheirLimits: a token accepted once is
// accepted again from the cache, but never past its own expiry, never at a
// time before the check, never after verifiedTTL without a new check, and a
// token that failed is never kept.
func TestVerifiedTokensAreKeptWithinTheirLimits(t *testing.T) {
	var now atomic.Pointer[time.Time]
	at := func(d time.Duration) { t := testNow.Add(d); now.Store(&t) }
	at(0)
	const leeway = 5 * time.Second // less than verifiedTTL, so that a check kept at 61s would outlive exp+leeway
	v := newTestVerifier(t, Config{HMACSecret: testSecret, Issuer: testIssuer, Audience: testAudience, Leeway: leeway,
		Now: func() time.Time { return *now.Load() }})
	tok := sign(t, jwt.SigningMethodHS256, testSecret, "", claims(func(c jwt.MapClaims) {
		c["nbf"] = testNow.Add(-time.Hour).Unix()
		c["exp"] = testNow.Add(90 * time.Second).Unix()
	}))
	verifiedAt := func() (time.Time, bool) {
		e, ok := v.checked.get(tok, *now.Load())
		return e.verified, ok
	}
	if _, err := v.Verify(t.Context(), tok); err != nil {
		t.Fatal(err)
	}
	if when, ok := verifiedAt(); !ok || !when.Equal(testNow) {
		t.Fatalf("after a first check: kept %v at %v, want kept at %v", ok, when, testNow)
	}
	at(30 * time.Second)
	if cl, err := v.Verify(t.Context(), tok); err != nil || cl.Email != "ada@example.com" {
		t.Fatalf("30s later: %+v, %v; want the claims", cl, err)
	}
	if when, _ := verifiedAt(); !when.Equal(testNow) {
		t.Errorf("30s later the token was checked again (at %v), want it served from the cache", when)
	}
	at(verifiedTTL + time.Second) // past the TTL: checked again, kept anew
	if _, err := v.Verify(t.Context(), tok); err != nil {
		t.Fatal(err)
	}
	if when, _ := verifiedAt(); !when.Equal(testNow.Add(verifiedTTL + time.Second)) {
		t.Errorf("after the TTL the kept check is from %v, want a new one", when)
	}
	at(90*time.Second + leeway) // exp + leeway: refused, though kept 34s ago for a minute
	if _, err := v.Verify(t.Context(), tok); err == nil {
		t.Error("a kept token was accepted at its expiry plus the leeway")
	}

	// A clock set back before the check: the token is checked anew, and a
	// token not yet valid then is refused.
	late := sign(t, jwt.SigningMethodHS256, testSecret, "", claims(func(c jwt.MapClaims) {
		c["nbf"] = testNow.Add(10 * time.Minute).Unix()
	}))
	at(10*time.Minute + time.Second)
	if _, err := v.Verify(t.Context(), late); err != nil {
		t.Fatal(err)
	}
	at(0)
	if _, err := v.Verify(t.Context(), late); err == nil {
		t.Error("a token kept at a later time was accepted with the clock set back before its nbf")
	}

	// A token that failed is not kept: a forged signature fails every time.
	at(0)
	forged := tok[:strings.LastIndexByte(tok, '.')+1] + strings.Repeat("A", 43)
	for range 2 {
		if _, err := v.Verify(t.Context(), forged); err == nil {
			t.Fatal("a forged token was accepted")
		}
	}
	if _, ok := v.checked.get(forged, testNow); ok {
		t.Error("a forged token was kept")
	}
}

// TestVerifiedCacheIsBounded: many distinct valid tokens keep the cache
// within its bytes, and tokens over the size limit are not kept.
func TestVerifiedCacheIsBounded(t *testing.T) {
	c := newVerifiedCache()
	tok := &jwt.Token{Method: jwt.SigningMethodHS256, Header: map[string]any{"alg": "HS256"}}
	name := strings.Repeat("n", 1000)
	for i := range 5000 {
		c.put(fmt.Sprintf("token-%d", i), tok, testSecret, Claims{Subject: fmt.Sprint(i), Name: name, ValidUntil: testNow.Add(time.Hour)}, testNow)
	}
	if c.bytes > verifiedCacheBytes || len(c.entries) == 0 {
		t.Errorf("cache holds %d bytes in %d entries, want at most %d bytes", c.bytes, len(c.entries), verifiedCacheBytes)
	}
	sum := 0
	for _, e := range c.entries {
		sum += e.size
	}
	if sum != c.bytes {
		t.Errorf("entries sum to %d bytes, the cache counts %d", sum, c.bytes)
	}
	big := strings.Repeat("x", maxVerifiedToken+1)
	c.put(big, tok, testSecret, Claims{ValidUntil: testNow.Add(time.Hour)}, testNow)
	if _, ok := c.get(big, testNow); ok {
		t.Error("a token over the size limit was kept")
	}
}

// TestVerifiedTokenNeedsItsKey: a kept token whose key is replaced under the
// same kid is refused at once (TestJWKSKeyRotation covers a key withdrawn).
func TestVerifiedTokenNeedsItsKey(t *testing.T) {
	srv := newJWKSServer(t, rsaJWK("a", "RS256", rsaKeyA()))
	v := newTestVerifier(t, Config{JWKSURL: srv.URL, Issuer: testIssuer, unknownKIDLimiter: rate.NewLimiter(rate.Inf, 1)})
	tokenA := sign(t, jwt.SigningMethodRS256, rsaKeyA(), "a", claims())
	if _, err := v.Verify(t.Context(), tokenA); err != nil {
		t.Fatal(err)
	}
	if _, err := v.Verify(t.Context(), tokenA); err != nil {
		t.Fatalf("a kept token: %v", err)
	}
	srv.publish(rsaJWK("a", "RS256", rsaKeyB()), rsaJWK("x", "RS256", rsaKeyB()))
	// An unknown kid makes the verifier fetch the key set again.
	_, _ = v.Verify(t.Context(), sign(t, jwt.SigningMethodRS256, rsaKeyB(), "y", claims()))
	_, err := v.Verify(t.Context(), tokenA)
	checkVerifyError(t, err, ErrInvalid, tokenA)
}
