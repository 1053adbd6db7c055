package httpapi_test

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"

	"github.com/calgraph/calgraph/internal/httpapi"
)

// newServer serves the edge around a GraphQL stand-in that echoes the body
// (or panics when asked to) and a readiness check that reports ready.
func newServer(t *testing.T, logs io.Writer) *httptest.Server {
	t.Helper()
	graphql := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		if string(b) == "panic" {
			panic("boom")
		}
		w.Write([]byte(strings.Repeat("x", len(b))))
	})
	cfg := httpapi.Config{AllowedOrigins: []string{"http://localhost:*", "https://app.example"}, SDL: []byte("type Query"),
		CORSHeaders: []string{"X-Operator-Added"}}
	logger := slog.New(httpapi.LogHandler(slog.NewTextHandler(logs, nil)))
	srv := httptest.NewServer(httpapi.New(cfg, graphql, func(context.Context) error { return nil }, logger))
	t.Cleanup(srv.Close)
	return srv
}

func TestCORS(t *testing.T) {
	srv := newServer(t, io.Discard)
	tests := []struct {
		origin string
		allow  bool
	}{
		{"http://localhost:5173", true},
		{"https://app.example", true},
		{"https://evil.example", false},
		{"http://localhost.evil.example", false},
	}
	for _, tt := range tests {
		t.Run(tt.origin, func(t *testing.T) {
			req, _ := http.NewRequest(http.MethodOptions, srv.URL+"/query", nil)
			req.Header.Set("Origin", tt.origin)
			req.Header.Set("Access-Control-Request-Method", "POST")
			req.Header.Set("Access-Control-Request-Headers", "authorization,content-type")
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
			got := res.Header.Get("Access-Control-Allow-Origin") == tt.origin
			if got != tt.allow {
				t.Fatalf("got allowed %v (header %q), want %v", got, res.Header.Get("Access-Control-Allow-Origin"), tt.allow)
			}
		})
	}
}

// TestCORSHeaders: a preflight asking for the headers SPA tooling sends
// (tracing, Sentry, Apollo Client) and for one the operator added is
// allowed; one nobody allowed is not.
func TestCORSHeaders(t *testing.T) {
	srv := newServer(t, io.Discard)
	for _, tt := range []struct {
		headers string
		allow   bool
	}{
		// Browsers send the list lower-case and sorted.
		{"authorization,baggage,content-type,sentry-trace,traceparent,tracestate", true},
		{"apollo-require-preflight,apollographql-client-name,apollographql-client-version,x-request-id,x-requested-with", true},
		{"x-operator-added", true},
		{"x-unknown", false},
	} {
		req, _ := http.NewRequest(http.MethodOptions, srv.URL+"/query", nil)
		req.Header.Set("Origin", "https://app.example")
		req.Header.Set("Access-Control-Request-Method", "POST")
		req.Header.Set("Access-Control-Request-Headers", tt.headers)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if got := res.Header.Get("Access-Control-Allow-Origin") != ""; got != tt.allow {
			t.Errorf("preflight for %s: got allowed %v, want %v", tt.headers, got, tt.allow)
		}
	}
}

// TestCompression: large answers are encoded as the client's
// Accept-Encoding asks (RFC 9110's q-values, "*" and "identity" included)
// and decode to the same bytes; on a tie gzip wins, since clients list zstd
// they cannot decode (graphql-codegen under Node 20); small answers, and answers to
// clients that accept neither coding, go as they are.
func TestCompression(t *testing.T) {
	srv := newServer(t, io.Discard)
	for _, tt := range []struct {
		accept, want string
		size         int
	}{
		{"gzip", "gzip", 4000},
		{"zstd", "zstd", 4000},
		{"", "", 4000},
		{"gzip", "", 100},
		// Ties go to gzip, whatever the order.
		{"gzip, deflate, br, zstd", "gzip", 4000},
		{"zstd, gzip", "gzip", 4000},
		{"zstd;q=0.8, gzip;q=0.8", "gzip", 4000},
		// q-values: the higher wins; q=0 refuses a coding.
		{"gzip;q=0.9, zstd", "zstd", 4000},
		{"zstd;q=1.0, gzip;q=0.999", "zstd", 4000},
		{"zstd;q=0.5, gzip", "gzip", 4000},
		{"gzip;q=0, zstd;q=0.1", "zstd", 4000},
		{"zstd;q=0, gzip;q=0.001", "gzip", 4000},
		{"gzip;q=0", "", 4000},
		{"gzip;q=0, zstd;q=0", "", 4000},
		// Names are case-insensitive; x-gzip is gzip (RFC 9110, 8.4.1.3).
		{"GZIP", "gzip", 4000},
		{"Zstd;Q=0.5, x-gzip;q=0.4", "zstd", 4000},
		{"x-gzip", "gzip", 4000},
		// "*" stands for every coding not listed.
		{"*", "gzip", 4000},
		{"*;q=0.5, zstd", "zstd", 4000},
		{"gzip;q=0, *", "zstd", 4000},
		{"zstd;q=0, *;q=0.3", "gzip", 4000},
		{"*;q=0", "", 4000},
		// identity, or codings calgraph does not speak, get the answer as it is.
		{"identity", "", 4000},
		{"br, deflate", "", 4000},
		{"identity;q=0, br", "", 4000},
		// A malformed q-value leaves its coding out, not the header.
		{"zstd;q=high, gzip;q=0.5", "gzip", 4000},
		{"gzip;q=2", "", 4000},
		{"gzip;q=NaN, zstd;q=0.2", "zstd", 4000},
		{" gzip ; q=0.5 ,, zstd ; q=0.4 ", "gzip", 4000},
	} {
		req, _ := http.NewRequest(http.MethodPost, srv.URL+"/query", strings.NewReader(strings.Repeat("q", tt.size)))
		req.Header.Set("Accept-Encoding", tt.accept)
		res, err := http.DefaultTransport.RoundTrip(req) // no transparent gzip
		if err != nil {
			t.Fatal(err)
		}
		body := res.Body
		switch res.Header.Get("Content-Encoding") {
		case "gzip":
			body, err = gzip.NewReader(res.Body)
		case "zstd":
			var d *zstd.Decoder
			d, err = zstd.NewReader(res.Body)
			body = d.IOReadCloser()
		}
		if err != nil {
			t.Fatal(err)
		}
		got, _ := io.ReadAll(body)
		res.Body.Close()
		if enc := res.Header.Get("Content-Encoding"); enc != tt.want || string(got) != strings.Repeat("x", tt.size) {
			t.Errorf("Accept-Encoding %q, %d bytes: got encoding %q and %d bytes back, want %q and the answer", tt.accept, tt.size, enc, len(got), tt.want)
		}
	}
}

func TestRequestIDs(t *testing.T) {
	var logs bytes.Buffer
	srv := newServer(t, &logs)
	for _, tt := range []struct{ sent, want string }{
		{"client-chosen-id-1", "client-chosen-id-1"},
		{"bad id with spaces", ""},
		{"", ""},
	} {
		req, _ := http.NewRequest(http.MethodGet, srv.URL+"/healthz", nil)
		if tt.sent != "" {
			req.Header.Set(httpapi.HeaderRequestID, tt.sent)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		got := res.Header.Get(httpapi.HeaderRequestID)
		if got == "" || (tt.want != "" && got != tt.want) || (tt.want == "" && got == tt.sent) {
			t.Errorf("sent %q, got request ID %q", tt.sent, got)
		}
		if !strings.Contains(logs.String(), "request_id="+got) {
			t.Errorf("access log lacks request_id=%s:\n%s", got, logs.String())
		}
	}
}

func TestPanics(t *testing.T) {
	var logs bytes.Buffer
	srv := newServer(t, &logs)
	post := func(body io.Reader) *http.Response {
		res, err := http.Post(srv.URL+"/query", "application/json", body)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res
	}
	if res := post(strings.NewReader("panic")); res.StatusCode != http.StatusInternalServerError {
		t.Errorf("panicking handler: got %d, want 500", res.StatusCode)
	}
	if !strings.Contains(logs.String(), "boom") {
		t.Errorf("the panic was not logged:\n%s", logs.String())
	}
	if res := post(strings.NewReader("{}")); res.StatusCode != 200 {
		t.Errorf("after a panic: got %d, want the server still serving", res.StatusCode)
	}
}

// TestFeedSecretsStayOutOfTheLog: a feed's URL is its secret, and only its
// hash is stored; the access log leaves it out.
func TestFeedSecretsStayOutOfTheLog(t *testing.T) {
	var logs syncBuffer
	srv := newServer(t, &logs)
	res, err := http.Get(srv.URL + "/feeds/S3CR3TfeedTOKENvalue.ics")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if out := logs.String(); strings.Contains(out, "S3CR3T") || !strings.Contains(out, "/feeds/<secret>") {
		t.Fatalf("access log: %s", out)
	}
}

// syncBuffer is a bytes.Buffer safe for the server's goroutines.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// TestCORSNone: with no origins configured (-cors-origins none, or auto
// without dev tokens) no browser origin may call the API.
func TestCORSNone(t *testing.T) {
	srv := httptest.NewServer(httpapi.New(httpapi.Config{}, http.NotFoundHandler(), func(context.Context) error { return nil }, slog.New(slog.DiscardHandler)))
	t.Cleanup(srv.Close)
	for _, origin := range []string{"http://localhost:5173", "https://evil.example"} {
		req, _ := http.NewRequest(http.MethodOptions, srv.URL+"/query", nil)
		req.Header.Set("Origin", origin)
		req.Header.Set("Access-Control-Request-Method", "POST")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if got := res.Header.Get("Access-Control-Allow-Origin"); got != "" {
			t.Errorf("%s: got Access-Control-Allow-Origin %q, want none", origin, got)
		}
	}
}
