package config_test

import (
	"flag"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/calgraph/calgraph/internal/config"
)

func load(t *testing.T, env map[string]string, args ...string) (config.Config, error) {
	t.Helper()
	fs := flag.NewFlagSet("test", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	return config.Load(fs, args, func(k string) string { return env[k] })
}

func TestDefaults(t *testing.T) {
	c, err := load(t, nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.Store != config.StoreEmbedded || !c.DevTokens || !c.CreateTable || c.Addr != "localhost:8080" ||
		c.Table != "calgraph" || c.DataDir != "calgraph-data" || c.ShutdownTimeout != 20*time.Second || c.MaxBodyBytes != 1<<20 ||
		c.WebhookSweep != time.Minute || c.WebhookPoll != time.Second {
		t.Fatalf("got %+v, want embedded defaults", c)
	}
	if !slices.Equal(c.CORSOrigins, []string{"http://localhost:*", "http://127.0.0.1:*"}) {
		t.Fatalf("got CORS origins %v, want localhost ones", c.CORSOrigins)
	}
	if !c.LocalEndpoint() {
		t.Fatal("the embedded engine is not a local endpoint")
	}
}

func TestModes(t *testing.T) {
	tests := []struct {
		name      string
		env       map[string]string
		args      []string
		wantStore string
		wantDev   bool
		wantLocal bool
		wantCORS  int
	}{
		{"endpoint picks dynamodb", map[string]string{"AWS_ENDPOINT_URL_DYNAMODB": "http://localhost:8000", "CALGRAPH_DEV_TOKENS": "true"}, nil,
			config.StoreDynamoDB, true, true, 2},
		{"generic endpoint too", map[string]string{"AWS_ENDPOINT_URL": "http://ddb:8000", "CALGRAPH_JWT_SECRET": strings.Repeat("s", 32)}, nil,
			config.StoreDynamoDB, false, true, 0},
		{"AWS proper", map[string]string{"CALGRAPH_STORE": "dynamodb", "CALGRAPH_JWKS_URL": "https://id.example/jwks", "CALGRAPH_JWT_ISSUER": "https://id.example/"}, nil,
			config.StoreDynamoDB, false, false, 0},
		{"flag beats env", map[string]string{"CALGRAPH_STORE": "dynamodb"}, []string{"-store", "embedded"},
			config.StoreEmbedded, true, true, 2},
		{"explicit origins", map[string]string{"CALGRAPH_CORS_ORIGINS": "https://app.example, https://*.example.org"}, nil,
			config.StoreEmbedded, true, true, 2},
		{"no origins", map[string]string{"CALGRAPH_CORS_ORIGINS": "none"}, nil,
			config.StoreEmbedded, true, true, 0},
		{"secret turns dev tokens off", map[string]string{"CALGRAPH_JWT_SECRET": strings.Repeat("s", 32)}, nil,
			config.StoreEmbedded, false, true, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := load(t, tt.env, tt.args...)
			if err != nil {
				t.Fatal(err)
			}
			if c.Store != tt.wantStore || c.DevTokens != tt.wantDev || c.LocalEndpoint() != tt.wantLocal || len(c.CORSOrigins) != tt.wantCORS {
				t.Fatalf("got store %s dev %v local %v cors %v; want %s %v %v %d",
					c.Store, c.DevTokens, c.LocalEndpoint(), c.CORSOrigins, tt.wantStore, tt.wantDev, tt.wantLocal, tt.wantCORS)
			}
		})
	}
}

func TestInvalid(t *testing.T) {
	tests := []struct {
		name string
		env  map[string]string
		args []string
		want string
	}{
		{"unknown store", map[string]string{"CALGRAPH_STORE": "s3"}, nil, "CALGRAPH_STORE"},
		{"bad table", nil, []string{"-table", "a b"}, "table"},
		{"bad duration", map[string]string{"CALGRAPH_SHUTDOWN_TIMEOUT": "soon"}, nil, "SHUTDOWN_TIMEOUT"},
		{"negative duration", map[string]string{"CALGRAPH_SHUTDOWN_TIMEOUT": "-1s"}, nil, "SHUTDOWN_TIMEOUT"},
		{"bad bool", map[string]string{"CALGRAPH_CREATE_TABLE": "maybe"}, nil, "CREATE_TABLE"},
		{"tiny body limit", map[string]string{"CALGRAPH_MAX_BODY_BYTES": "10"}, nil, "MAX_BODY_BYTES"},
		{"webhook sweep of zero", map[string]string{"CALGRAPH_WEBHOOK_SWEEP": "0s"}, nil, "WEBHOOK_SWEEP"},
		{"bad log level", map[string]string{"CALGRAPH_LOG_LEVEL": "loud"}, nil, "LOG_LEVEL"},
		{"JWKS without issuer", map[string]string{"CALGRAPH_JWKS_URL": "https://id.example/jwks"}, nil, "ISSUER"},
		{"short secret", map[string]string{"CALGRAPH_JWT_SECRET": "short"}, nil, "32 bytes"},
		{"dev tokens with a secret", map[string]string{"CALGRAPH_JWT_SECRET": strings.Repeat("s", 32), "CALGRAPH_DEV_TOKENS": "true"}, nil, "cannot be combined"},
		{"endpoint not a URL", map[string]string{"AWS_ENDPOINT_URL_DYNAMODB": "localhost", "CALGRAPH_DEV_TOKENS": "true"}, nil, "not a URL"},
		{"dev tokens against AWS", map[string]string{"CALGRAPH_STORE": "dynamodb", "CALGRAPH_DEV_TOKENS": "true"}, nil, "not against AWS"},
		{"dev tokens against an https endpoint", map[string]string{"AWS_ENDPOINT_URL_DYNAMODB": "https://dynamodb.eu-west-1.amazonaws.com", "CALGRAPH_DEV_TOKENS": "true"}, nil, "not against AWS"},
		{"unknown flag", nil, []string{"-nope"}, "nope"},
		{"negative cache bytes", map[string]string{"CALGRAPH_CACHE_BYTES": "-1"}, nil, "CACHE_BYTES"},
		{"cache bytes in words", nil, []string{"-answer-cache-bytes", "lots"}, "answer-cache-bytes"},
		{"the view cache in items, by flag", nil, []string{"-view-cache-items", "0"}, "-view-cache-bytes"},
		{"the view cache in items, by environment", map[string]string{"CALGRAPH_VIEW_CACHE_ITEMS": "0"}, nil, "CALGRAPH_VIEW_CACHE_BYTES"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := load(t, tt.env, tt.args...)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("got %v, want an error mentioning %q", err, tt.want)
			}
		})
	}
}

func TestCheckAuth(t *testing.T) {
	c, err := load(t, map[string]string{"CALGRAPH_STORE": "dynamodb"})
	if err != nil {
		t.Fatalf("loading without token settings must work for commands that need none: %v", err)
	}
	if err := c.CheckAuth(); err == nil || !strings.Contains(err.Error(), "no way to verify tokens") {
		t.Fatalf("got %v, want serving refused without a way to verify tokens", err)
	}
	if c, _ := load(t, nil); c.CheckAuth() != nil {
		t.Fatalf("embedded defaults must be able to serve")
	}
}
