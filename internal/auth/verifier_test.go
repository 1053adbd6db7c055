package auth

import (
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/google/go-cmp/cmp"
)

// hostileKID is the kid of tokens whose kid no key has; error messages must not
// repeat it.
const hostileKID = "<script>hostile-kid</script>"

func TestVerify(t *testing.T) {
	srv := newJWKSServer(t,
		rsaJWK("rsa-1", "RS256", rsaKeyA()),
		ecJWK("ec-1", "ES256", ecKey()),
		rsaJWK("rsa-ps", "PS256", rsaKeyB()),
		ecJWK("ec-noalg", "", ecKeyP384()),
		func() jwk { j := rsaJWK("rsa-enc", "", rsaKeyB()); j["use"] = "enc"; return j }(),
	)
	base := Config{JWKSURL: srv.URL, Issuer: testIssuer, Audience: testAudience}
	both := base
	both.HMACSecret = []byte("a different secret, 32 bytes long")
	hmacOnly := Config{HMACSecret: testSecret, Issuer: testIssuer, Audience: testAudience}
	verifiers := map[string]*Verifier{
		"jwks":  newTestVerifier(t, base),
		"both":  newTestVerifier(t, both),
		"hmac":  newTestVerifier(t, hmacOnly),
		"bare":  newTestVerifier(t, Config{HMACSecret: testSecret}),
		"jwks+": newTestVerifier(t, Config{JWKSURL: srv.URL, Issuer: testIssuer}),
	}
	pubDER, err := x509.MarshalPKIXPublicKey(&rsaKeyA().PublicKey)
	if err != nil {
		t.Fatal(err)
	}
	pubPEM := pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pubDER})
	none, err := jwt.NewWithClaims(jwt.SigningMethodNone, claims()).SignedString(jwt.UnsafeAllowNoneSignatureType)
	if err != nil {
		t.Fatal(err)
	}
	good := sign(t, jwt.SigningMethodHS256, testSecret, "", claims())
	want := Claims{
		Issuer:     testIssuer,
		Subject:    "subject-1",
		Email:      "ada@example.com",
		Name:       "Ada Lovelace",
		ExpiresAt:  testNow.Add(time.Hour),
		ValidUntil: testNow.Add(time.Hour + DefaultLeeway), // accepted until then
	}
	hs := func(changes ...func(jwt.MapClaims)) string {
		return sign(t, jwt.SigningMethodHS256, testSecret, "", claims(changes...))
	}

	tests := []struct {
		name     string
		verifier string
		token    string
		want     Claims
		wantErr  error  // nil, ErrExpired or ErrInvalid
		wantMsg  string // the whole message, when it matters
	}{
		{name: "valid HS256", verifier: "hmac", token: good, want: want},
		{name: "valid RS256", verifier: "jwks", token: sign(t, jwt.SigningMethodRS256, rsaKeyA(), "rsa-1", claims()), want: want},
		{name: "valid ES256", verifier: "jwks", token: sign(t, jwt.SigningMethodES256, ecKey(), "ec-1", claims()), want: want},
		{name: "valid RS256 with an HMAC secret configured too", verifier: "both", token: sign(t, jwt.SigningMethodRS256, rsaKeyA(), "rsa-1", claims()), want: want},
		{name: "no iss or aud checks when not configured", verifier: "bare", token: hs(without("iss"), without("aud")), want: Claims{Subject: "subject-1", Email: "ada@example.com", Name: "Ada Lovelace", ExpiresAt: want.ExpiresAt, ValidUntil: want.ValidUntil}},
		{name: "aud among several", verifier: "hmac", token: hs(set("aud", []string{"other", testAudience})), want: want},
		{name: "name falls back to preferred_username", verifier: "hmac", token: hs(without("name"), set("preferred_username", "ada")), want: func() Claims { c := want; c.Name = "ada"; return c }()},
		{name: "email and name are optional", verifier: "hmac", token: hs(without("email"), without("name")), want: Claims{Issuer: testIssuer, Subject: "subject-1", ExpiresAt: want.ExpiresAt, ValidUntil: want.ValidUntil}},

		// Algorithms and keys.
		{name: "alg none", verifier: "hmac", token: none, wantErr: ErrInvalid, wantMsg: "invalid token: signing algorithm not accepted"},
		{name: "HS384 with the secret", verifier: "hmac", token: sign(t, jwt.SigningMethodHS384, testSecret, "", claims()), wantErr: ErrInvalid, wantMsg: "invalid token: signing algorithm not accepted"},
		{name: "HS512 with the secret", verifier: "hmac", token: sign(t, jwt.SigningMethodHS512, testSecret, "", claims()), wantErr: ErrInvalid},
		{name: "RS512 with a JWKS key", verifier: "jwks", token: sign(t, jwt.SigningMethodRS512, rsaKeyA(), "rsa-1", claims()), wantErr: ErrInvalid},
		{name: "PS256 with a JWKS key", verifier: "jwks", token: sign(t, jwt.SigningMethodPS256, rsaKeyB(), "rsa-ps", claims()), wantErr: ErrInvalid},
		{name: "ES384 with a JWKS key", verifier: "jwks", token: sign(t, jwt.SigningMethodES384, ecKeyP384(), "ec-noalg", claims()), wantErr: ErrInvalid},
		{name: "HS256 without an HMAC secret", verifier: "jwks", token: good, wantErr: ErrInvalid, wantMsg: "invalid token: signing algorithm not accepted"},
		{name: "RS256 without a JWKS", verifier: "hmac", token: sign(t, jwt.SigningMethodRS256, rsaKeyA(), "rsa-1", claims()), wantErr: ErrInvalid},
		{name: "RS256 with an unknown kid", verifier: "jwks", token: sign(t, jwt.SigningMethodRS256, rsaKeyA(), hostileKID, claims()), wantErr: ErrInvalid, wantMsg: "invalid token: signing key not accepted"},
		{name: "RS256 without a kid", verifier: "jwks", token: sign(t, jwt.SigningMethodRS256, rsaKeyA(), "", claims()), wantErr: ErrInvalid},
		{name: "HMAC/RSA confusion with PEM", verifier: "both", token: sign(t, jwt.SigningMethodHS256, pubPEM, "rsa-1", claims()), wantErr: ErrInvalid, wantMsg: "invalid token: bad signature"},
		{name: "HMAC/RSA confusion with DER", verifier: "both", token: sign(t, jwt.SigningMethodHS256, pubDER, "rsa-1", claims()), wantErr: ErrInvalid},
		{name: "ES256 under a kid whose JWK says RS256", verifier: "jwks", token: sign(t, jwt.SigningMethodES256, ecKey(), "rsa-1", claims()), wantErr: ErrInvalid, wantMsg: "invalid token: signing key not accepted"},
		{name: "RS256 under a kid whose JWK says PS256", verifier: "jwks", token: sign(t, jwt.SigningMethodRS256, rsaKeyB(), "rsa-ps", claims()), wantErr: ErrInvalid},
		{name: "ES256 under a P-384 JWK without alg", verifier: "jwks", token: sign(t, jwt.SigningMethodES256, ecKey(), "ec-noalg", claims()), wantErr: ErrInvalid},
		{name: "RS256 under a JWK for encryption", verifier: "jwks", token: sign(t, jwt.SigningMethodRS256, rsaKeyB(), "rsa-enc", claims()), wantErr: ErrInvalid},
		{name: "signed with another secret", verifier: "hmac", token: sign(t, jwt.SigningMethodHS256, []byte("another secret, also 32 bytes long"), "", claims()), wantErr: ErrInvalid, wantMsg: "invalid token: bad signature"},
		{name: "tampered payload", verifier: "hmac", token: tamper(t, good), wantErr: ErrInvalid},
		{name: "not a JWT", verifier: "hmac", token: "not.a.jwt", wantErr: ErrInvalid, wantMsg: "invalid token: malformed token"},
		{name: "empty", verifier: "hmac", token: "", wantErr: ErrInvalid},

		// Time.
		{name: "expired beyond leeway", verifier: "hmac", token: hs(set("exp", testNow.Add(-61*time.Second).Unix())), wantErr: ErrExpired, wantMsg: "token expired"},
		{name: "expired within leeway", verifier: "hmac", token: hs(set("exp", testNow.Add(-59*time.Second).Unix())), want: func() Claims {
			c := want
			c.ExpiresAt, c.ValidUntil = testNow.Add(-59*time.Second), testNow.Add(time.Second) // accepted one second more
			return c
		}()},
		{name: "nbf beyond leeway", verifier: "hmac", token: hs(set("nbf", testNow.Add(61*time.Second).Unix())), wantErr: ErrInvalid, wantMsg: "invalid token: not valid yet"},
		{name: "nbf within leeway", verifier: "hmac", token: hs(set("nbf", testNow.Add(59*time.Second).Unix())), want: want},
		{name: "iat beyond leeway", verifier: "hmac", token: hs(set("iat", testNow.Add(61*time.Second).Unix())), wantErr: ErrInvalid, wantMsg: "invalid token: issued in the future"},
		{name: "missing exp", verifier: "hmac", token: hs(without("exp")), wantErr: ErrInvalid, wantMsg: "invalid token: missing a required claim"},

		// Claims.
		{name: "wrong issuer", verifier: "hmac", token: hs(set("iss", "https://evil.test/")), wantErr: ErrInvalid, wantMsg: "invalid token: wrong issuer"},
		{name: "missing issuer", verifier: "hmac", token: hs(without("iss")), wantErr: ErrInvalid},
		{name: "wrong issuer on a JWKS token", verifier: "jwks+", token: sign(t, jwt.SigningMethodRS256, rsaKeyA(), "rsa-1", claims(set("iss", "https://evil.test/"))), wantErr: ErrInvalid},
		{name: "wrong audience", verifier: "hmac", token: hs(set("aud", "someone-else")), wantErr: ErrInvalid, wantMsg: "invalid token: wrong audience"},
		{name: "missing audience", verifier: "hmac", token: hs(without("aud")), wantErr: ErrInvalid},
		{name: "missing sub", verifier: "hmac", token: hs(without("sub")), wantErr: ErrInvalid, wantMsg: "invalid token: missing a subject"},
		{name: "empty sub", verifier: "hmac", token: hs(set("sub", "")), wantErr: ErrInvalid},
		{name: "expired and wrong issuer", verifier: "hmac", token: hs(set("exp", testNow.Add(-time.Hour).Unix()), set("iss", "x")), wantErr: ErrInvalid},
		{name: "expired and no sub", verifier: "hmac", token: hs(set("exp", testNow.Add(-time.Hour).Unix()), without("sub")), wantErr: ErrInvalid},
		{name: "exp of the wrong type", verifier: "hmac", token: hs(set("exp", "tomorrow")), wantErr: ErrInvalid},
		// RFC 7519 §2: a NumericDate is a JSON number; a string of digits is not one.
		{name: "exp as a string of digits", verifier: "hmac", token: hs(set("exp", fmt.Sprint(testNow.Add(time.Hour).Unix()))), wantErr: ErrInvalid, wantMsg: "invalid token: " + errTimeClaim.Error()},
		{name: "nbf as a string of digits", verifier: "hmac", token: hs(set("nbf", fmt.Sprint(testNow.Unix()))), wantErr: ErrInvalid, wantMsg: "invalid token: " + errTimeClaim.Error()},
		{name: "iat as a string of digits", verifier: "hmac", token: hs(set("iat", fmt.Sprint(testNow.Unix()))), wantErr: ErrInvalid, wantMsg: "invalid token: " + errTimeClaim.Error()},
		{name: "exp as null", verifier: "hmac", token: hs(set("exp", nil)), wantErr: ErrInvalid},
		{name: "exp as a boolean", verifier: "hmac", token: hs(set("exp", true)), wantErr: ErrInvalid},
		{name: "exp with a fraction", verifier: "hmac", token: hs(set("exp", float64(testNow.Add(time.Hour).Unix())+0.5)), want: want}, // the library keeps seconds
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := verifiers[tt.verifier].Verify(t.Context(), tt.token)
			if tt.wantErr == nil {
				if err != nil {
					t.Fatalf("Verify: got error %v, want none", err)
				}
				if diff := cmp.Diff(tt.want, got); diff != "" {
					t.Errorf("Verify claims mismatch (-want +got):\n%s", diff)
				}
				return
			}
			checkVerifyError(t, err, tt.wantErr, tt.token)
			if tt.wantMsg != "" && err.Error() != tt.wantMsg {
				t.Errorf("got message %q, want %q", err.Error(), tt.wantMsg)
			}
			if diff := cmp.Diff(Claims{}, got); diff != "" {
				t.Errorf("Verify returned claims with an error (-want +got):\n%s", diff)
			}
		})
	}
}

// checkVerifyError checks that err is of kind want only, and that its message is
// safe to show: no token, no header field.
func checkVerifyError(t *testing.T, err, want error, token string) {
	t.Helper()
	if err == nil {
		t.Fatalf("Verify: got no error, want %v", want)
	}
	other := ErrInvalid
	if want == ErrInvalid {
		other = ErrExpired
	}
	if !errors.Is(err, want) || errors.Is(err, other) {
		t.Errorf("Verify: got %v, want an error wrapping %v only", err, want)
	}
	msg := err.Error()
	if !strings.HasPrefix(msg, want.Error()) {
		t.Errorf("got message %q, want it to start with %q", msg, want.Error())
	}
	if token != "" && strings.Contains(msg, token) || strings.Contains(msg, "hostile") || len(msg) > 80 {
		t.Errorf("got message %q, want a short one quoting nothing from the token", msg)
	}
}

// tamper changes the payload of a signed token without re-signing it.
func tamper(t *testing.T, token string) string {
	t.Helper()
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		t.Fatalf("got %d token parts, want 3", len(parts))
	}
	parts[1] = b64([]byte(`{"iss":"` + testIssuer + `","aud":"` + testAudience + `","sub":"admin","exp":4102444800}`))
	return strings.Join(parts, ".")
}

func TestCheckKey(t *testing.T) {
	tests := []struct {
		name   string
		method jwt.SigningMethod
		key    any
		ok     bool
	}{
		{"RS256 RSA 2048", jwt.SigningMethodRS256, &rsaKeyA().PublicKey, true},
		{"RS256 RSA 1024", jwt.SigningMethodRS256, &mustRSA(1024).PublicKey, false},
		{"RS256 EC", jwt.SigningMethodRS256, &ecKey().PublicKey, false},
		{"RS256 bytes", jwt.SigningMethodRS256, []byte("0123456789abcdef0123456789abcdef"), false},
		{"ES256 P-256", jwt.SigningMethodES256, &ecKey().PublicKey, true},
		{"ES256 P-384", jwt.SigningMethodES256, &ecKeyP384().PublicKey, false},
		{"ES256 RSA", jwt.SigningMethodES256, &rsaKeyA().PublicKey, false},
		{"ES256 private key", jwt.SigningMethodES256, ecKey(), false},
		{"HS256 bytes", jwt.SigningMethodHS256, []byte("0123456789abcdef0123456789abcdef"), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := checkKey(tt.method, tt.key)
			if got := err == nil; got != tt.ok {
				t.Errorf("checkKey(%s, %T): got ok %v, want %v (err %v)", tt.method.Alg(), tt.key, got, tt.ok, err)
			}
		})
	}
}

func TestNewVerifierErrors(t *testing.T) {
	down := newJWKSServer(t)
	down.Close()
	broken := newJWKSServer(t, jwk{"kty": "RSA", "kid": "bad", "n": "!!", "e": "AQAB"})
	tests := []struct {
		name string
		cfg  Config
	}{
		{"nothing to verify with", Config{Issuer: testIssuer}},
		{"short secret", Config{HMACSecret: testSecret[:31]}},
		{"JWKS without issuer", Config{JWKSURL: broken.URL}},
		{"negative leeway", Config{HMACSecret: testSecret, Leeway: -time.Second}},
		{"plain http to a remote host", Config{JWKSURL: "http://issuer.example/jwks.json", Issuer: testIssuer}},
		{"not a URL", Config{JWKSURL: "::", Issuer: testIssuer}},
		{"JWKS unreachable", Config{JWKSURL: down.URL, Issuer: testIssuer}},
		{"JWKS unusable", Config{JWKSURL: broken.URL, Issuer: testIssuer}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := NewVerifier(t.Context(), tt.cfg)
			if err == nil {
				t.Fatalf("NewVerifier: got %v, want an error", v)
			}
		})
	}
}

func TestVerifierCustomLeeway(t *testing.T) {
	v := newTestVerifier(t, Config{HMACSecret: testSecret, Leeway: 5 * time.Minute})
	token := sign(t, jwt.SigningMethodHS256, testSecret, "", claims(set("exp", testNow.Add(-4*time.Minute).Unix())))
	if _, err := v.Verify(t.Context(), token); err != nil {
		t.Errorf("Verify 4 minutes after exp with 5 minutes' leeway: got %v, want no error", err)
	}
	token = sign(t, jwt.SigningMethodHS256, testSecret, "", claims(set("exp", testNow.Add(-6*time.Minute).Unix())))
	_, err := v.Verify(t.Context(), token)
	checkVerifyError(t, err, ErrExpired, token)
}

// The verifier keeps its own copy of the secret, so a caller that reuses the
// slice cannot change which tokens verify.
func TestVerifierCopiesSecret(t *testing.T) {
	secret := append([]byte(nil), testSecret...)
	v := newTestVerifier(t, Config{HMACSecret: secret})
	clear(secret)
	token := sign(t, jwt.SigningMethodHS256, testSecret, "", claims())
	if _, err := v.Verify(t.Context(), token); err != nil {
		t.Errorf("Verify after the caller cleared its secret: got %v, want no error", err)
	}
}
