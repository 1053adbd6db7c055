// Package config reads calgraph's settings from the environment and command-line
// flags (flags win), applies defaults and validates them once. Every setting is
// declared in one table, which also produces the README's configuration table.
package config

import (
	"cmp"
	"errors"
	"flag"
	"fmt"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Store modes.
const (
	StoreAuto     = "auto"     // embedded unless an AWS endpoint override is set
	StoreEmbedded = "embedded" // calgraph's own engine in-process, on a file in the data directory
	StoreDynamoDB = "dynamodb" // DynamoDB Local or AWS through the standard AWS settings
)

// Config is calgraph's resolved configuration.
type Config struct {
	Addr            string
	DebugAddr       string // where /debug/pprof and /debug/vars are served; empty: nowhere
	Store           string // StoreEmbedded or StoreDynamoDB once resolved
	Endpoint        string // the AWS endpoint override in effect, if any
	Table           string
	CreateTable     bool
	DataDir         string
	JWTSecret       string
	JWKSURL         string
	JWTIssuer       string
	JWTAudience     string
	DevTokens       bool
	DevEmail        string
	CORSOrigins     []string
	MaxBodyBytes    int64
	ShutdownTimeout time.Duration
	LogFormat       string
	LogLevel        string
	ICalDomain      string
	PublicURL       string // no trailing slash
	RequestTimeout  time.Duration
	AttemptTimeout  time.Duration
	StoreWait       time.Duration // how long start-up waits for DynamoDB and the table
	ChangeRetention time.Duration // how long change records (and sync tokens) last
	LivePoll        time.Duration // how often live delivery reads the recent writes
	LiveSweep       time.Duration // how often, at most, it reads every followed log
	ReminderPoll    time.Duration // how often the reminder schedule is read
	ViewCacheBytes  int           // bytes of entries and memberships the view cache holds; 0: off
	MaxEntries      int
	MaxResponseSize int64
	CORSHeaders     []string // allowed request headers beyond the built-in list
	MetricsAddr     string   // where /metrics is served; empty: nowhere
	OTLPEndpoint    string   // where traces are exported over OTLP/HTTP; empty: no tracing
	ServiceName     string   // service.name of traces
	// WebhookAllowPrivate lets webhooks reach private addresses (webhook.Policy).
	WebhookAllowPrivate bool
	// WebhookPoll is how often the webhook workers read what fell due and
	// the recent writes.
	WebhookPoll time.Duration
	// WebhookSweep is how often calendar webhooks read every cursor.
	WebhookSweep time.Duration
	// AnswerCacheBytes bounds the answer cache (internal/answercache); 0: off.
	AnswerCacheBytes int64
	// SearchIndexBytes bounds the search indexes an instance keeps; 0: none.
	SearchIndexBytes int

	// CacheBytes is what the three caches above hold together at most, when
	// none is set on its own (resolveCaches).
	CacheBytes int64

	devTokens string // "auto", "true" or "false" until resolved
	cors      string // "auto", "none" or a list until resolved
	// The cache sizes as given: autoBytes ("auto") until resolved.
	cacheBytes, viewCacheBytes, answerCacheBytes, searchIndexBytes int64
}

// DevKeyPath is the file holding the local signing key for dev tokens.
func (c Config) DevKeyPath() string { return filepath.Join(c.DataDir, "dev-signing-key") }

// LocalEndpoint reports whether the store is a local engine (the embedded one,
// or DynamoDB Local over plain http), which takes fixed credentials.
func (c Config) LocalEndpoint() bool {
	return c.Store == StoreEmbedded || strings.HasPrefix(c.Endpoint, "http://")
}

// Load reads the settings: environment variables first, then flags registered on
// fs and parsed from args. It returns the validated configuration.
func Load(fs *flag.FlagSet, args []string, getenv func(string) string) (Config, error) {
	var c Config
	raw := map[string]string{}
	for _, s := range settings {
		raw[s.Flag] = s.Default
		if v := getenv(s.Env); v != "" {
			raw[s.Flag] = v
		}
		fs.Func(s.Flag, s.Usage+" (env "+s.Env+")", func(v string) error { raw[s.Flag] = v; return nil })
	}
	var errs []error
	for _, r := range removed {
		if getenv(r.env) != "" {
			errs = append(errs, fmt.Errorf("%s is no longer read: %s", r.env, r.why))
		}
		fs.Func(r.flag, "no longer taken: "+r.why, func(string) error { return errors.New(r.why) })
	}
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	for _, s := range settings {
		if err := s.set(&c, raw[s.Flag]); err != nil {
			errs = append(errs, fmt.Errorf("-%s / %s: %w", s.Flag, s.Env, err))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return c, err
	}
	return c.resolve(getenv)
}

// resolve applies the defaults that depend on other settings and checks the
// settings against each other.
func (c Config) resolve(getenv func(string) string) (Config, error) {
	c.resolveStore(getenv)
	c.resolveCaches()
	if c.OTLPEndpoint == "" { // OpenTelemetry's standard variables
		c.OTLPEndpoint = cmp.Or(getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"), getenv("OTEL_EXPORTER_OTLP_ENDPOINT"))
	}
	if name := getenv("OTEL_SERVICE_NAME"); name != "" && c.ServiceName == "calgraph" {
		c.ServiceName = name
	}
	if c.PublicURL == "" {
		host := c.Addr
		if strings.HasPrefix(host, ":") {
			host = "localhost" + host
		}
		c.PublicURL = "http://" + host
	}
	if c.Endpoint != "" {
		if u, err := url.Parse(c.Endpoint); err != nil || u.Scheme == "" || u.Host == "" {
			return c, fmt.Errorf("AWS endpoint %q is not a URL", c.Endpoint)
		}
	}
	return c, c.resolveAuth()
}

func (c *Config) resolveStore(getenv func(string) string) {
	c.Endpoint = getenv("AWS_ENDPOINT_URL_DYNAMODB")
	if c.Endpoint == "" {
		c.Endpoint = getenv("AWS_ENDPOINT_URL")
	}
	if c.Store == StoreAuto {
		c.Store = StoreEmbedded
		if c.Endpoint != "" {
			c.Store = StoreDynamoDB
		}
	}
	if c.Store == StoreEmbedded {
		c.Endpoint = ""
		c.CreateTable = true
	}
}

func (c *Config) resolveAuth() error {
	external := c.JWTSecret != "" || c.JWKSURL != ""
	c.DevTokens = c.devTokens == "true" || (c.devTokens == "auto" && c.Store == StoreEmbedded && !external)
	if c.DevTokens && external {
		return errors.New("dev tokens cannot be combined with CALGRAPH_JWT_SECRET or CALGRAPH_JWKS_URL: turn one off")
	}
	if c.DevTokens && !c.LocalEndpoint() {
		// Anyone could mint one (GraphiQL hands it out): never against AWS.
		return errors.New("dev tokens work only on the embedded engine or a local DynamoDB (an http:// endpoint), not against AWS")
	}
	switch {
	case c.cors == "auto" && c.DevTokens:
		c.CORSOrigins = []string{"http://localhost:*", "http://127.0.0.1:*"}
	case c.cors == "auto" || c.cors == "none":
		c.CORSOrigins = nil
	default:
		for _, o := range strings.Split(c.cors, ",") {
			if o = strings.TrimSpace(o); o != "" {
				c.CORSOrigins = append(c.CORSOrigins, o)
			}
		}
	}
	if c.JWKSURL != "" && c.JWTIssuer == "" {
		return errors.New("CALGRAPH_JWKS_URL needs CALGRAPH_JWT_ISSUER: tokens from any issuer sharing that key set would be accepted")
	}
	if c.JWTSecret != "" && len(c.JWTSecret) < 32 {
		return errors.New("CALGRAPH_JWT_SECRET must be at least 32 bytes")
	}
	return nil
}

// CheckAuth reports a server that could verify no token at all. Only serving
// needs this; the other commands never see a token.
func (c Config) CheckAuth() error {
	if !c.DevTokens && c.JWTSecret == "" && c.JWKSURL == "" {
		return errors.New("no way to verify tokens: set CALGRAPH_JWT_SECRET, CALGRAPH_JWKS_URL or CALGRAPH_DEV_TOKENS=true")
	}
	return nil
}

func parseBool(v string) (bool, error) {
	b, err := strconv.ParseBool(v)
	if err != nil {
		return false, fmt.Errorf("%q is not true or false", v)
	}
	return b, nil
}

func parseDuration(v string) (time.Duration, error) {
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("%q is not a positive duration like 30s", v)
	}
	return d, nil
}
