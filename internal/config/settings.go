package config

import (
	"fmt"
	"log/slog"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Setting is one configuration knob: a flag, its environment variable, its
// default and how it is applied.
type Setting struct {
	Flag    string
	Env     string
	Default string
	Usage   string
	set     func(c *Config, v string) error
}

// removed are settings calgraph no longer takes: setting one, by flag or
// environment, is refused with why, rather than ignored (an operator who
// turned the view cache off with -view-cache-items 0 must not find it on).
var removed = []struct{ flag, env, why string }{
	{"view-cache-items", "CALGRAPH_VIEW_CACHE_ITEMS", "the view cache is bounded in bytes now: use -view-cache-bytes / CALGRAPH_VIEW_CACHE_BYTES (an entry takes about 1 KB; 0 still turns it off)"},
}

// Settings lists every setting, in the order the README documents them.
func Settings() []Setting { return slices.Clone(settings) }

var settings = []Setting{
	{"addr", "CALGRAPH_ADDR", "localhost:8080", "address to listen on; use :8080 to accept connections from other hosts",
		func(c *Config, v string) error { c.Addr = v; return nil }},
	{"debug-addr", "CALGRAPH_DEBUG_ADDR", "", "address of a separate listener serving Go's profiler (/debug/pprof/) and runtime counters (/debug/vars); empty: off. Keep it private",
		func(c *Config, v string) error { c.DebugAddr = v; return nil }},
	{"store", "CALGRAPH_STORE", StoreAuto, "auto, embedded or dynamodb; auto picks dynamodb when AWS_ENDPOINT_URL_DYNAMODB or AWS_ENDPOINT_URL is set",
		func(c *Config, v string) error {
			if v != StoreAuto && v != StoreEmbedded && v != StoreDynamoDB {
				return fmt.Errorf("%q is not auto, embedded or dynamodb", v)
			}
			c.Store = v
			return nil
		}},
	{"table", "CALGRAPH_TABLE", "calgraph", "DynamoDB table name",
		func(c *Config, v string) error {
			if len(v) < 3 || len(v) > 255 || strings.Trim(v, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-") != "" {
				return fmt.Errorf("%q is not a DynamoDB table name", v)
			}
			c.Table = v
			return nil
		}},
	{"create-table", "CALGRAPH_CREATE_TABLE", "true", "create the table and its indexes at start when missing (always on in embedded mode); turn off in production",
		func(c *Config, v string) (err error) { c.CreateTable, err = parseBool(v); return err }},
	{"data-dir", "CALGRAPH_DATA_DIR", "calgraph-data", "embedded mode: directory of the engine's data file (calgraph.db) and the dev signing key",
		func(c *Config, v string) error { c.DataDir = v; return nonEmpty(v) }},
	{"jwt-secret", "CALGRAPH_JWT_SECRET", "", "HMAC secret (at least 32 bytes) for HS256 tokens",
		func(c *Config, v string) error { c.JWTSecret = v; return nil }},
	{"jwks-url", "CALGRAPH_JWKS_URL", "", "issuer's JWKS URL for RS256/ES256 tokens; needs -jwt-issuer",
		func(c *Config, v string) error { c.JWKSURL = v; return nil }},
	{"jwt-issuer", "CALGRAPH_JWT_ISSUER", "", "required iss claim of tokens",
		func(c *Config, v string) error { c.JWTIssuer = v; return nil }},
	{"jwt-audience", "CALGRAPH_JWT_AUDIENCE", "", "required aud claim of tokens",
		func(c *Config, v string) error { c.JWTAudience = v; return nil }},
	{"dev-tokens", "CALGRAPH_DEV_TOKENS", "auto", "accept tokens signed by a local key kept in the data directory, print one at start; auto means on in embedded mode when no JWT secret or JWKS is set",
		func(c *Config, v string) error {
			if v == "auto" {
				c.devTokens = v
				return nil
			}
			b, err := parseBool(v)
			c.devTokens = strconv.FormatBool(b)
			return err
		}},
	{"dev-email", "CALGRAPH_DEV_EMAIL", "dev@example.com", "email of the user whose dev token is printed at start",
		func(c *Config, v string) error { c.DevEmail = v; return nonEmpty(v) }},
	{"cors-origins", "CALGRAPH_CORS_ORIGINS", "auto", "comma-separated browser origins allowed to call the API (one * wildcard each), or none; auto allows http://localhost:* and http://127.0.0.1:* when dev tokens are on",
		func(c *Config, v string) error { c.cors = v; return nil }},
	{"max-body-bytes", "CALGRAPH_MAX_BODY_BYTES", "1048576", "largest request body accepted",
		func(c *Config, v string) error {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil || n < 1024 {
				return fmt.Errorf("%q is not a number of bytes of at least 1024", v)
			}
			c.MaxBodyBytes = n
			return nil
		}},
	{"shutdown-timeout", "CALGRAPH_SHUTDOWN_TIMEOUT", "20s", "how long a graceful shutdown waits for in-flight requests",
		func(c *Config, v string) (err error) { c.ShutdownTimeout, err = parseDuration(v); return err }},
	{"request-timeout", "CALGRAPH_REQUEST_TIMEOUT", "15s", "deadline of one GraphQL request or feed: by then it has its answer; store calls cut off by it fail with UNAVAILABLE, or OUTCOME_UNKNOWN for a write that was sent",
		func(c *Config, v string) (err error) { c.RequestTimeout, err = parseDuration(v); return err }},
	{"store-attempt-timeout", "CALGRAPH_STORE_ATTEMPT_TIMEOUT", "3s", "deadline of one attempt of a DynamoDB call; reads and transactions are retried after it, within the request's deadline",
		func(c *Config, v string) (err error) { c.AttemptTimeout, err = parseDuration(v); return err }},
	{"store-wait", "CALGRAPH_STORE_WAIT", "2m", "how long start-up waits, retrying, for DynamoDB to answer and the table and its indexes to be ready (a cold DynamoDB Local can take a minute) before giving up",
		func(c *Config, v string) (err error) { c.StoreWait, err = parseDuration(v); return err }},
	{"change-retention", "CALGRAPH_CHANGE_RETENTION", "168h", "how long change records are kept: a sync token older than that fails with SYNC_TOKEN_EXPIRED (at least 1h)",
		func(c *Config, v string) (err error) {
			if c.ChangeRetention, err = parseDuration(v); err == nil && c.ChangeRetention < time.Hour {
				err = fmt.Errorf("must be at least 1h")
			}
			return err
		}},
	{"live-poll", "CALGRAPH_LIVE_POLL", "500ms", "how often live delivery reads the table's recent writes, then the change logs they name that subscriptions follow, for changes made through other instances",
		func(c *Config, v string) (err error) { c.LivePoll, err = parseDuration(v); return err }},
	{"reminder-poll", "CALGRAPH_REMINDER_POLL", "500ms", "how often this instance reads the schedule of reminders for what fell due: reminders fire within about this much of their time",
		func(c *Config, v string) (err error) { c.ReminderPoll, err = parseDuration(v); return err }},
	{"live-sweep", "CALGRAPH_LIVE_SWEEP", "30s", "how often, at most, live delivery reads every change log subscriptions follow, in case the recent writes missed one (at most 8 logs a poll)",
		func(c *Config, v string) (err error) { c.LiveSweep, err = parseDuration(v); return err }},
	{"cache-bytes", "CALGRAPH_CACHE_BYTES", "auto", "how many bytes this instance's caches hold together: the view cache, the answer cache and the search indexes, a sixth, a sixth and two thirds of it unless one is set on its own below; auto: a quarter of the container's memory limit when there is one, else 402653184 (384 MiB)",
		func(c *Config, v string) (err error) {
			c.cacheBytes, err = parseBytes(v)
			return err
		}},
	{"view-cache-bytes", "CALGRAPH_VIEW_CACHE_BYTES", "auto", "how many bytes of entries and memberships (about 1 KB an entry) this instance keeps of recent views, exact by each calendar's revision, to answer a repeated view without reading its calendars' entries again; 0 turns it off; auto: a sixth of -cache-bytes",
		func(c *Config, v string) (err error) {
			c.viewCacheBytes, err = parseBytes(v)
			return err
		}},
	{"answer-cache-bytes", "CALGRAPH_ANSWER_CACHE_BYTES", "auto", "how many bytes of finished query answers (with what each read) this instance keeps, to answer a repeated query after checking in one wave that nothing it read changed; 0 turns it off; auto: a sixth of -cache-bytes",
		func(c *Config, v string) (err error) {
			c.answerCacheBytes, err = parseBytes(v)
			return err
		}},
	{"search-index-bytes", "CALGRAPH_SEARCH_INDEX_BYTES", "auto", "how many bytes of search indexes (of the calendars searched lately, counted as about 3.1 KB an entry) this instance keeps; a calendar not held is read whole at its next search; 0 keeps none; auto: two thirds of -cache-bytes",
		func(c *Config, v string) (err error) {
			c.searchIndexBytes, err = parseBytes(v)
			return err
		}},
	{"max-entries", "CALGRAPH_MAX_ENTRIES", "10000", "most entries one request may return, counted across all its views, aliases included; more is REQUEST_TOO_LARGE",
		func(c *Config, v string) (err error) { c.MaxEntries, err = parsePositive(v); return err }},
	{"max-response-bytes", "CALGRAPH_MAX_RESPONSE_BYTES", "16777216", "most bytes of entry text (titles, descriptions, locations, tags) one request may return; more is REQUEST_TOO_LARGE",
		func(c *Config, v string) error {
			n, err := parsePositive(v)
			c.MaxResponseSize = int64(n)
			return err
		}},
	{"webhook-allow-private", "CALGRAPH_WEBHOOK_ALLOW_PRIVATE", "false", "let webhooks reach localhost, loopback and private (RFC 1918, ULA) addresses, for receivers inside your own network; link-local (169.254.169.254) and multicast stay refused",
		func(c *Config, v string) (err error) { c.WebhookAllowPrivate, err = parseBool(v); return err }},
	{"webhook-poll", "CALGRAPH_WEBHOOK_POLL", "1s", "how often webhook deliveries read what fell due and the table's recent writes: a delivery is sent within about this much of its write",
		func(c *Config, v string) (err error) { c.WebhookPoll, err = parseDuration(v); return err }},
	{"webhook-sweep", "CALGRAPH_WEBHOOK_SWEEP", "1m", "how often calendar webhooks read every cursor, for writes the recent-writes index did not name and calendars their owners joined; each cursor costs about 5 read units a sweep",
		func(c *Config, v string) (err error) { c.WebhookSweep, err = parseDuration(v); return err }},
	{"cors-headers", "CALGRAPH_CORS_HEADERS", "", "comma-separated request headers browsers may send beyond the built-in list (Authorization, Content-Type, tracing and Apollo headers; see README)",
		func(c *Config, v string) error { c.CORSHeaders = splitList(v); return nil }},
	{"metrics-addr", "CALGRAPH_METRICS_ADDR", "", "address of a separate listener serving Prometheus metrics at /metrics; empty: off",
		func(c *Config, v string) error { c.MetricsAddr = v; return nil }},
	{"otlp-endpoint", "CALGRAPH_OTLP_ENDPOINT", "", "OTLP/HTTP endpoint (like http://localhost:4318) traces are exported to; empty: the standard OTEL_EXPORTER_OTLP_(TRACES_)ENDPOINT if set, else no tracing",
		func(c *Config, v string) error { c.OTLPEndpoint = v; return nil }},
	{"service-name", "CALGRAPH_SERVICE_NAME", "calgraph", "service.name of exported traces (OTEL_SERVICE_NAME also works)",
		func(c *Config, v string) error { c.ServiceName = v; return nonEmpty(v) }},
	{"ical-domain", "CALGRAPH_ICAL_DOMAIN", "calgraph.local", "domain of new entries' iCalendar UIDs (<id>@<domain>); existing UIDs never change",
		func(c *Config, v string) error {
			if v == "" || strings.ContainsAny(v, "@ \t\n") {
				return fmt.Errorf("%q is not a domain name", v)
			}
			c.ICalDomain = v
			return nil
		}},
	{"public-url", "CALGRAPH_PUBLIC_URL", "", "the server's URL as clients reach it, for the iCalendar feed URLs it hands out; defaults to http://<addr>",
		func(c *Config, v string) error {
			if v == "" {
				return nil
			}
			u, err := url.Parse(v)
			if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
				return fmt.Errorf("%q is not an http(s) URL without query", v)
			}
			c.PublicURL = strings.TrimSuffix(v, "/")
			return nil
		}},
	{"log-format", "CALGRAPH_LOG_FORMAT", "text", "text or json",
		func(c *Config, v string) error {
			if v != "text" && v != "json" {
				return fmt.Errorf("%q is not text or json", v)
			}
			c.LogFormat = v
			return nil
		}},
	{"log-level", "CALGRAPH_LOG_LEVEL", "info", "debug, info, warn or error",
		func(c *Config, v string) error {
			var l slog.Level
			if err := l.UnmarshalText([]byte(v)); err != nil {
				return fmt.Errorf("%q is not debug, info, warn or error", v)
			}
			c.LogLevel = v
			return nil
		}},
}

func parsePositive(v string) (int, error) {
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		return 0, fmt.Errorf("%q is not a positive whole number", v)
	}
	return n, nil
}

func splitList(v string) []string {
	var out []string
	for _, s := range strings.Split(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

func nonEmpty(v string) error {
	if v == "" {
		return fmt.Errorf("must not be empty")
	}
	return nil
}

// MarkdownTable renders the settings as the README's configuration table.
func MarkdownTable() string {
	var b strings.Builder
	b.WriteString("| flag | environment variable | default | meaning |\n|---|---|---|---|\n")
	for _, s := range settings {
		def := "`" + s.Default + "`"
		if s.Default == "" {
			def = "(none)"
		}
		fmt.Fprintf(&b, "| `-%s` | `%s` | %s | %s |\n", s.Flag, s.Env, def, s.Usage)
	}
	return b.String()
}
