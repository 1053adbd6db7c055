package httpapi_test

import (
	"net/http/httptest"
	"testing"

	"github.com/calgraph/calgraph/internal/httpapi"
)

func TestOrigins(t *testing.T) {
	for _, tt := range []struct {
		patterns []string
		origin   string
		want     bool
	}{
		{[]string{"http://localhost:*"}, "http://localhost:5173", true},
		{[]string{"http://localhost:*"}, "http://LocalHost:5173", true},
		{[]string{"HTTP://LOCALHOST:*"}, "http://localhost:5173", true},
		{[]string{"http://localhost:*"}, "https://localhost:5173", false},
		{[]string{"http://localhost:*"}, "http://localhost", false},
		{[]string{"http://localhost:*"}, "http://localhost.evil.example", false},
		{[]string{"https://*.example.com"}, "https://a.b.example.com", true},
		{[]string{"https://*.example.com"}, "https://example.com", false},
		{[]string{"https://*.example.com"}, "https://evil.com/.example.com", true}, // no browser sends such an origin
		{[]string{"https://app.example"}, "https://app.example", true},
		{[]string{"https://app.example"}, "https://app.example:443", false},
		{[]string{"https://app.example"}, "https://app.example.evil", false},
		{[]string{" https://app.example "}, "https://app.example", true},
		{[]string{"*"}, "https://anything.example", true},
		{[]string{"*"}, "null", true},
		{nil, "http://localhost:5173", false},
		{[]string{""}, "", false},
		{[]string{"https://app.example"}, "null", false},
	} {
		if got := httpapi.NewOrigins(tt.patterns).Allow(tt.origin); got != tt.want {
			t.Errorf("%q allows %q: got %v, want %v", tt.patterns, tt.origin, got, tt.want)
		}
	}
}

func TestOriginsAllowWebSocket(t *testing.T) {
	o := httpapi.NewOrigins([]string{"http://localhost:*"})
	for _, tt := range []struct {
		origin string
		want   bool
	}{
		{"", true},                        // not a browser
		{"http://calgraph.example", true}, // the server's own host
		{"https://CALGRAPH.example", true},
		{"http://localhost:5173", true},
		{"https://evil.example", false},
		{"null", false},
	} {
		r := httptest.NewRequest("GET", "http://calgraph.example/query", nil)
		if tt.origin != "" {
			r.Header.Set("Origin", tt.origin)
		}
		if got := o.AllowWebSocket(r); got != tt.want {
			t.Errorf("origin %q: got %v, want %v", tt.origin, got, tt.want)
		}
	}
}
