// Package auth verifies bearer JWTs and establishes the signed-in user.
//
// A Verifier checks a token's signature and claims; an Authenticator turns a
// request's Authorization header into the viewer that the calendar package's
// ViewerID reports. For local development, LoadOrCreateSecret and Mint provide
// an HMAC key and tokens signed with it.
package auth

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"time"

	"github.com/MicahParks/keyfunc/v3"
	"github.com/golang-jwt/jwt/v5"
	"golang.org/x/time/rate"
)

// DefaultLeeway is the clock skew allowed on exp, nbf and iat when Config.Leeway is zero.
const DefaultLeeway = 60 * time.Second

// MinSecretLength is the shortest HMAC secret accepted, in bytes: HS256 keys
// shorter than the hash output weaken it (RFC 7518 section 3.2).
const MinSecretLength = 32

// Config says which tokens a Verifier accepts. At least one of HMACSecret and
// JWKSURL must be set.
type Config struct {
	// HMACSecret, when set, makes HS256 tokens acceptable, verified with it.
	HMACSecret []byte
	// JWKSURL, when set, makes RS256 and ES256 tokens acceptable, verified with the
	// issuer's JWKS. It must be https unless the host is a loopback address.
	JWKSURL string
	// Issuer, when set, must equal the token's iss. Required with JWKSURL, since a
	// JWKS alone does not say whose tokens its keys sign.
	Issuer string
	// Audience, when set, must be among the token's aud values.
	Audience string
	// Leeway is the clock skew allowed on exp, nbf and iat; zero means DefaultLeeway.
	Leeway time.Duration
	// HTTPClient fetches the JWKS; nil means a client with a 10s timeout.
	HTTPClient *http.Client
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Logger receives failures of background JWKS refreshes, which have no caller
	// to return them to; nil means slog.Default().
	Logger *slog.Logger

	// unknownKIDLimiter overrides the rate of JWKS refreshes on an unknown kid, so
	// that tests can rotate keys without waiting.
	unknownKIDLimiter *rate.Limiter
}

// Claims are the verified facts a token states about its holder.
type Claims struct {
	Issuer  string
	Subject string
	Email   string // may be empty; the user service decides whether it is usable
	Name    string // may be empty
	// EmailUnverified is set when the token says its issuer has not verified the
	// email (email_verified false): such an email must not claim an account.
	EmailUnverified bool
	ExpiresAt       time.Time
	// ValidUntil is when the Verifier stops accepting the token: ExpiresAt
	// plus the leeway for clock skew. A connection signed in with it (a
	// WebSocket) ends then, as a request with it would be refused from then.
	ValidUntil time.Time
}

// Verifier checks bearer JWTs. It is safe for concurrent use.
type Verifier struct {
	secret  []byte
	jwks    keyfunc.Keyfunc // nil without a JWKS URL
	methods []string
	parser  *jwt.Parser
	leeway  time.Duration
	now     func() time.Time
	checked *verifiedCache // tokens accepted lately (verified.go)
}

// NewVerifier returns a Verifier for cfg. With a JWKS URL it fetches the key set
// once before returning, so a wrong URL fails at start-up, and keeps refreshing it
// in the background until ctx ends.
func NewVerifier(ctx context.Context, cfg Config) (*Verifier, error) {
	if err := cfg.validate(); err != nil {
		return nil, fmt.Errorf("new verifier: %w", err)
	}
	v := &Verifier{leeway: cmp.Or(cfg.Leeway, DefaultLeeway), now: cfg.Now, checked: newVerifiedCache()}
	if v.now == nil {
		v.now = time.Now
	}
	if len(cfg.HMACSecret) > 0 {
		v.secret = slices.Clone(cfg.HMACSecret)
		v.methods = append(v.methods, jwt.SigningMethodHS256.Alg())
	}
	if cfg.JWKSURL != "" {
		jwks, err := newJWKS(ctx, cfg)
		if err != nil {
			return nil, fmt.Errorf("new verifier: %w", err)
		}
		v.jwks = jwks
		v.methods = append(v.methods, jwt.SigningMethodRS256.Alg(), jwt.SigningMethodES256.Alg())
	}
	v.parser = jwt.NewParser(cfg.parserOptions(v.methods)...)
	return v, nil
}

func (cfg Config) validate() error {
	switch {
	case len(cfg.HMACSecret) == 0 && cfg.JWKSURL == "":
		return errors.New("neither an HMAC secret nor a JWKS URL is configured")
	case len(cfg.HMACSecret) > 0 && len(cfg.HMACSecret) < MinSecretLength:
		return fmt.Errorf("HMAC secret is %d bytes; at least %d are required", len(cfg.HMACSecret), MinSecretLength)
	case cfg.JWKSURL != "" && cfg.Issuer == "":
		return errors.New("an issuer is required with a JWKS URL")
	case cfg.Leeway < 0:
		return fmt.Errorf("leeway %v is negative", cfg.Leeway)
	}
	return nil
}

func (cfg Config) parserOptions(methods []string) []jwt.ParserOption {
	leeway, now := cfg.Leeway, cfg.Now
	if leeway == 0 {
		leeway = DefaultLeeway
	}
	if now == nil {
		now = time.Now
	}
	opts := []jwt.ParserOption{
		jwt.WithValidMethods(methods),
		jwt.WithLeeway(leeway),
		jwt.WithTimeFunc(now),
		jwt.WithExpirationRequired(),
		jwt.WithIssuedAt(),
	}
	if cfg.Issuer != "" {
		opts = append(opts, jwt.WithIssuer(cfg.Issuer))
	}
	if cfg.Audience != "" {
		opts = append(opts, jwt.WithAudience(cfg.Audience))
	}
	return opts
}

// Verify checks raw's signature and claims and returns the claims. Its errors
// wrap ErrExpired or ErrInvalid and their messages are safe to show a client:
// they never quote the token or its header.
func (v *Verifier) Verify(ctx context.Context, raw string) (Claims, error) {
	if raw == "" {
		return Claims{}, &verifyError{kind: ErrInvalid, reason: "empty token"}
	}
	now := v.now()
	keyOf := v.keyfunc(ctx)
	if e, ok := v.checked.get(raw, now); ok {
		if key, err := keyOf(e.header); err == nil && sameKey(e.key, key) {
			return e.claims, nil
		}
	}
	var c tokenClaims
	var used any
	tok, err := v.parser.ParseWithClaims(raw, &c, func(t *jwt.Token) (any, error) {
		key, err := keyOf(t)
		used = key
		return key, err
	})
	if err != nil {
		return Claims{}, v.classify(tok, err)
	}
	cl := Claims{
		Issuer:          c.Issuer,
		Subject:         c.Subject,
		Email:           c.Email,
		Name:            c.name(),
		ExpiresAt:       c.ExpiresAt.Time,
		ValidUntil:      c.ExpiresAt.Add(v.leeway),
		EmailUnverified: c.EmailVerified == false || c.EmailVerified == "false",
	}
	v.checked.put(raw, tok, used, cl, now)
	return cl, nil
}

// keyfunc pins each algorithm to its own kind of key: HS256 only ever gets the
// HMAC secret and RS256/ES256 only keys of the matching type from the JWKS, so a
// token cannot pick the verification key by choosing its alg.
func (v *Verifier) keyfunc(ctx context.Context) jwt.Keyfunc {
	return func(t *jwt.Token) (any, error) {
		switch t.Method {
		case jwt.SigningMethodHS256:
			if v.secret == nil {
				return nil, errAlgorithm
			}
			return v.secret, nil
		case jwt.SigningMethodRS256, jwt.SigningMethodES256:
			if v.jwks == nil {
				return nil, errAlgorithm
			}
			key, err := v.jwks.KeyfuncCtx(ctx)(t)
			if err != nil {
				return nil, fmt.Errorf("%w: %w", errKey, err)
			}
			return checkKey(t.Method, key)
		default:
			return nil, errAlgorithm
		}
	}
}

// tokenClaims is the JSON shape of the claims this package reads.
type tokenClaims struct {
	jwt.RegisteredClaims
	Email             string `json:"email,omitempty"`
	Name              string `json:"name,omitempty"`
	PreferredUsername string `json:"preferred_username,omitempty"`
	// EmailVerified is a boolean in OIDC, a string in some providers' tokens.
	EmailVerified any `json:"email_verified,omitempty"`
}

// UnmarshalJSON refuses exp, nbf and iat that are not JSON numbers before
// decoding the claims: RFC 7519 makes each a NumericDate, a number, and the
// library reads them through json.Number, which also takes a string of
// digits ("exp": "1795800000"). A token that bends the format is refused,
// not reinterpreted.
func (c *tokenClaims) UnmarshalJSON(b []byte) error {
	var times struct{ Exp, Nbf, Iat json.RawMessage }
	if err := json.Unmarshal(b, &times); err != nil {
		return err
	}
	for _, v := range []json.RawMessage{times.Exp, times.Nbf, times.Iat} {
		if v != nil && !isJSONNumber(v) {
			return errTimeClaim
		}
	}
	type plain tokenClaims // without this method
	return json.Unmarshal(b, (*plain)(c))
}

// isJSONNumber reports whether v, one JSON value, is a number.
func isJSONNumber(v json.RawMessage) bool {
	v = bytes.TrimSpace(v)
	return len(v) > 0 && (v[0] == '-' || ('0' <= v[0] && v[0] <= '9'))
}

// Validate adds the sub requirement to the library's checks, so that a token
// lacking sub is reported as invalid even when it has also expired.
func (c tokenClaims) Validate() error {
	if c.Subject == "" {
		return errNoSubject
	}
	return nil
}

func (c tokenClaims) name() string {
	if c.Name != "" {
		return c.Name
	}
	return c.PreferredUsername
}
