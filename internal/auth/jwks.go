package auth

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rsa"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"time"

	"github.com/MicahParks/jwkset"
	"github.com/MicahParks/keyfunc/v3"
	"github.com/golang-jwt/jwt/v5"
	"golang.org/x/time/rate"
)

// JWKS fetching policy.
const (
	// jwksTimeout bounds one fetch of the key set, and also how long a request
	// with an unknown kid may wait for the refresh rate limiter.
	jwksTimeout = 10 * time.Second
	// jwksRefreshInterval is how often the key set is fetched in the background, so
	// that a key the issuer withdraws stops verifying within this time.
	jwksRefreshInterval = 15 * time.Minute
	// unknownKIDRefreshEvery rate-limits the fetches an unknown kid triggers, so
	// that tokens with made-up kids cannot make the server hammer the issuer.
	unknownKIDRefreshEvery = time.Minute
	// minRSABits rejects RSA keys too short to trust.
	minRSABits = 2048
)

// newJWKS returns a keyfunc over the key set at cfg.JWKSURL, which refreshes on
// an unknown kid at most once per unknownKIDRefreshEvery.
func newJWKS(ctx context.Context, cfg Config) (keyfunc.Keyfunc, error) {
	if err := checkJWKSURL(cfg.JWKSURL); err != nil {
		return nil, err
	}
	// The refresh goroutine starts before the first fetch; stop it if we fail.
	ctx, cancel := context.WithCancel(ctx)
	ok := false
	defer func() {
		if !ok {
			cancel()
		}
	}()
	remote, err := fetchJWKS(ctx, cfg)
	if err != nil {
		return nil, err
	}
	limiter := cfg.unknownKIDLimiter
	if limiter == nil {
		limiter = rate.NewLimiter(rate.Every(unknownKIDRefreshEvery), 1)
	}
	storage, err := jwkset.NewHTTPClient(jwkset.HTTPClientOptions{
		HTTPURLs:          map[string]jwkset.Storage{cfg.JWKSURL: remote},
		RateLimitWaitMax:  jwksTimeout,
		RefreshUnknownKID: limiter,
	})
	if err != nil {
		return nil, fmt.Errorf("JWKS client: %w", err)
	}
	kf, err := keyfunc.New(keyfunc.Options{
		Ctx:     ctx,
		Storage: storage,
		// A key published for encryption must not verify signatures; most issuers
		// leave use out, which the JWK spec allows.
		UseWhitelist: []jwkset.USE{jwkset.UseSig, ""},
	})
	if err != nil {
		return nil, fmt.Errorf("JWKS keyfunc: %w", err)
	}
	ok = true
	return kf, nil
}

// fetchJWKS fetches the key set once, so that a wrong URL fails at start-up, and
// starts refreshing it every jwksRefreshInterval until ctx ends.
func fetchJWKS(ctx context.Context, cfg Config) (jwkset.Storage, error) {
	client := cfg.HTTPClient
	if client == nil {
		client = &http.Client{Timeout: jwksTimeout}
	}
	logger := cfg.Logger
	if logger == nil {
		logger = slog.Default()
	}
	remote, err := jwkset.NewStorageFromHTTP(cfg.JWKSURL, jwkset.HTTPClientStorageOptions{
		Client:          client,
		Ctx:             ctx,
		HTTPTimeout:     jwksTimeout,
		RefreshInterval: jwksRefreshInterval,
		RefreshErrorHandler: func(ctx context.Context, err error) {
			logger.ErrorContext(ctx, "refresh JWKS", "url", cfg.JWKSURL, "error", err)
		},
	})
	if err != nil {
		return nil, fmt.Errorf("fetch JWKS: %w", err)
	}
	return remote, nil
}

// checkJWKSURL refuses plain HTTP except to this machine: whoever can alter the
// key set in transit can sign any token.
func checkJWKSURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		return fmt.Errorf("JWKS URL: %w", err)
	}
	switch {
	case u.Host == "":
		return fmt.Errorf("JWKS URL %q has no host", raw)
	case u.Scheme == "https":
		return nil
	case u.Scheme == "http" && isLoopback(u.Hostname()):
		return nil
	}
	return fmt.Errorf("JWKS URL %q: want https (plain http only to a loopback host)", raw)
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// checkKey returns key if it is the kind alg must be verified with: RS256 an RSA
// key of at least minRSABits, ES256 a P-256 key. The JWKS may hold other kinds
// (even symmetric "oct" keys), and the kid alone must not choose among them.
func checkKey(method jwt.SigningMethod, key any) (any, error) {
	switch method {
	case jwt.SigningMethodRS256:
		if k, ok := key.(*rsa.PublicKey); ok && k.N.BitLen() >= minRSABits {
			return k, nil
		}
	case jwt.SigningMethodES256:
		if k, ok := key.(*ecdsa.PublicKey); ok && k.Curve == elliptic.P256() {
			return k, nil
		}
	}
	return nil, fmt.Errorf("%w: a %T does not fit %s", errKey, key, method.Alg())
}
