package auth

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"math/big"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// Test keys are generated once per run: RSA generation is slow under -race.
var (
	rsaKeyA   = sync.OnceValue(func() *rsa.PrivateKey { return mustRSA(2048) })
	rsaKeyB   = sync.OnceValue(func() *rsa.PrivateKey { return mustRSA(2048) })
	ecKey     = sync.OnceValue(func() *ecdsa.PrivateKey { return mustEC(elliptic.P256()) })
	ecKeyP384 = sync.OnceValue(func() *ecdsa.PrivateKey { return mustEC(elliptic.P384()) })
)

func mustRSA(bits int) *rsa.PrivateKey {
	k, err := rsa.GenerateKey(rand.Reader, bits)
	if err != nil {
		panic(err)
	}
	return k
}

func mustEC(c elliptic.Curve) *ecdsa.PrivateKey {
	k, err := ecdsa.GenerateKey(c, rand.Reader)
	if err != nil {
		panic(err)
	}
	return k
}

const (
	testIssuer   = "https://issuer.test/"
	testAudience = "calgraph-api"
)

// testNow is the fixed time tests verify at.
var testNow = time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)

// testSecret is an HMAC secret of the minimum length.
var testSecret = []byte("0123456789abcdef0123456789abcdef")

// jwk is one JSON Web Key, written by hand so that the tests do not trust the
// library under test to produce what they feed it.
type jwk map[string]string

func b64(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }

func rsaJWK(kid, alg string, k *rsa.PrivateKey) jwk {
	j := jwk{"kty": "RSA", "kid": kid, "use": "sig", "n": b64(k.N.Bytes()), "e": b64(big.NewInt(int64(k.E)).Bytes())}
	if alg != "" {
		j["alg"] = alg
	}
	return j
}

func ecJWK(kid, alg string, k *ecdsa.PrivateKey) jwk {
	size := (k.Curve.Params().BitSize + 7) / 8
	point, err := k.PublicKey.Bytes() // 0x04 || X || Y
	if err != nil {
		panic(err)
	}
	j := jwk{"kty": "EC", "kid": kid, "crv": k.Curve.Params().Name,
		"x": b64(point[1 : 1+size]), "y": b64(point[1+size:])}
	if alg != "" {
		j["alg"] = alg
	}
	return j
}

// jwksServer serves a key set that tests can replace, counting fetches.
type jwksServer struct {
	*httptest.Server
	mu      sync.Mutex
	keys    []jwk
	fetches atomic.Int32
}

func newJWKSServer(t *testing.T, keys ...jwk) *jwksServer {
	t.Helper()
	s := &jwksServer{keys: keys}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.fetches.Add(1)
		s.mu.Lock()
		body, err := json.Marshal(map[string][]jwk{"keys": s.keys})
		s.mu.Unlock()
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write(body)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *jwksServer) publish(keys ...jwk) {
	s.mu.Lock()
	s.keys = keys
	s.mu.Unlock()
}

// claims returns valid claims at testNow, changed by the given functions.
func claims(changes ...func(jwt.MapClaims)) jwt.MapClaims {
	c := jwt.MapClaims{
		"iss":   testIssuer,
		"aud":   testAudience,
		"sub":   "subject-1",
		"email": "ada@example.com",
		"name":  "Ada Lovelace",
		"iat":   testNow.Unix(),
		"exp":   testNow.Add(time.Hour).Unix(),
	}
	for _, change := range changes {
		change(c)
	}
	return c
}

func set(name string, value any) func(jwt.MapClaims) {
	return func(c jwt.MapClaims) { c[name] = value }
}

func without(name string) func(jwt.MapClaims) {
	return func(c jwt.MapClaims) { delete(c, name) }
}

// sign returns a token for c signed by method with key, with kid in its header
// unless kid is empty.
func sign(t *testing.T, method jwt.SigningMethod, key any, kid string, c jwt.MapClaims) string {
	t.Helper()
	tok := jwt.NewWithClaims(method, c)
	if kid != "" {
		tok.Header["kid"] = kid
	}
	s, err := tok.SignedString(key)
	if err != nil {
		t.Fatalf("sign %s token: %v", method.Alg(), err)
	}
	return s
}

// newTestVerifier returns a Verifier for cfg whose JWKS refresh ends with the test.
func newTestVerifier(t *testing.T, cfg Config) *Verifier {
	t.Helper()
	if cfg.Now == nil {
		cfg.Now = func() time.Time { return testNow }
	}
	v, err := NewVerifier(t.Context(), cfg)
	if err != nil {
		t.Fatalf("NewVerifier: %v", err)
	}
	return v
}
