package auth

import (
	"bytes"
	"crypto"
	"crypto/sha256"
	"fmt"
	"sync"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// Tokens already verified. A client sends the same token with every request
// until it expires, and parsing and checking it again (base64, JSON through
// reflection, the signature) was a twentieth of a request the answer cache
// serves. A Verifier keeps the claims of tokens it accepted, by a SHA-256 of
// the token (not the token itself), and accepts the same token again from
// them:
//
//   - only while the key that verified it is still the one its header (alg
//     and kid) names: each time, the key is looked up again as for a new
//     token, so a key withdrawn from the issuer's JWKS or replaced under the
//     same kid stops the token at once, as it would a new check;
//   - for verifiedTTL at most after it checked it;
//   - never past the token's own ValidUntil, and never at a time before the
//     check (a clock set back may be before nbf or iat again: checked anew);
//   - only tokens of up to maxVerifiedToken bytes, in at most
//     verifiedCacheBytes (claims counted by their strings' bytes), evicting
//     arbitrary entries when full: a token evicted only costs a check.
//
// A token that failed is never kept: a forged token is checked every time.
const (
	verifiedTTL        = time.Minute
	maxVerifiedToken   = 4 << 10
	verifiedCacheBytes = 2 << 20
	verifiedOverhead   = 160 // the map slot, the key, the entry's times and string headers
)

type verifiedCache struct {
	mu      sync.Mutex
	entries map[[sha256.Size]byte]verifiedEntry
	bytes   int
}

type verifiedEntry struct {
	claims   Claims
	header   *jwt.Token // alg and kid only, to look its key up again
	key      any        // the key that verified it
	verified time.Time  // when it was checked
	until    time.Time  // when it stops being accepted from here
	size     int
}

func newVerifiedCache() *verifiedCache {
	return &verifiedCache{entries: map[[sha256.Size]byte]verifiedEntry{}}
}

// get returns the entry of raw if it was verified and may still be
// accepted at now, as far as time goes (the caller checks its key).
func (c *verifiedCache) get(raw string, now time.Time) (verifiedEntry, bool) {
	if len(raw) > maxVerifiedToken {
		return verifiedEntry{}, false
	}
	k := sha256.Sum256([]byte(raw))
	c.mu.Lock()
	e, ok := c.entries[k]
	c.mu.Unlock()
	if !ok || now.Before(e.verified) || !now.Before(e.until) {
		return verifiedEntry{}, false
	}
	return e, true
}

// put keeps the claims of raw, verified at now by key.
func (c *verifiedCache) put(raw string, tok *jwt.Token, key any, cl Claims, now time.Time) {
	if len(raw) > maxVerifiedToken || tok == nil || key == nil {
		return
	}
	header := &jwt.Token{Method: tok.Method, Header: map[string]any{"alg": tok.Header["alg"]}}
	if kid, ok := tok.Header["kid"]; ok {
		header.Header["kid"] = kid
	}
	until := now.Add(verifiedTTL)
	if cl.ValidUntil.Before(until) {
		until = cl.ValidUntil
	}
	e := verifiedEntry{claims: cl, header: header, key: key, verified: now, until: until,
		size: verifiedOverhead + len(fmt.Sprint(header.Header["kid"])) + len(cl.Issuer) + len(cl.Subject) + len(cl.Email) + len(cl.Name)}
	k := sha256.Sum256([]byte(raw))
	c.mu.Lock()
	defer c.mu.Unlock()
	if old, ok := c.entries[k]; ok {
		c.bytes -= old.size
		delete(c.entries, k)
	}
	for old, oe := range c.entries {
		if c.bytes+e.size <= verifiedCacheBytes {
			break
		}
		c.bytes -= oe.size
		delete(c.entries, old)
	}
	c.entries[k] = e
	c.bytes += e.size
}

// sameKey says whether a and b are the same verification key: an HMAC
// secret's bytes, or public keys that say they are Equal.
func sameKey(a, b any) bool {
	switch a := a.(type) {
	case []byte:
		b, ok := b.([]byte)
		return ok && bytes.Equal(a, b)
	case interface{ Equal(crypto.PublicKey) bool }:
		return a.Equal(b)
	}
	return false
}
