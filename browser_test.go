package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// The browser tests drive headless Chromium (/usr/bin/chromium, or CHROMIUM)
// with playwright-core from node, against a server the test starts. They
// need CALGRAPH_BROWSER_DIR, a directory with node_modules/playwright-core,
// which .ci/run installs; elsewhere they are skipped. One alone:
//
//	CALGRAPH_BROWSER_DIR=~/.cache/calgraph-ci/browser-1 go test -run TestBrowserGraphiQL .

// TestBrowserGraphiQL: GraphiQL starts with no network (every request to
// another origin is refused), its headers editor holds the dev token, and a
// subscription run from it over the server's WebSocket shows a change made
// while it runs (testdata/browser-graphiql.cjs).
func TestBrowserGraphiQL(t *testing.T) {
	in := serve(t, settings(t, t.TempDir(), false))
	browse(t, "testdata/browser-graphiql.cjs", in.url, in.token)
}

// browse runs a browser script with args and fails the test with each
// problem it reports.
func browse(t *testing.T, script string, args ...string) {
	t.Helper()
	dir := os.Getenv("CALGRAPH_BROWSER_DIR")
	if dir == "" {
		t.Skip("set CALGRAPH_BROWSER_DIR to a directory with node_modules/playwright-core (.ci/run does)")
	}
	start := time.Now()
	cmd := exec.Command("node", append([]string{script}, args...)...)
	cmd.Env = append(os.Environ(), "BROWSER_DIR="+dir, "FORCE_COLOR=0")
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s did not run: %v\n%s", script, err, out)
	}
	var res struct {
		Problems []string       `json:"problems"`
		Timings  map[string]int `json:"timings"`
	}
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("%s printed %q: %v", script, out, err)
	}
	t.Logf("%s took %s (in ms: %v)", script, time.Since(start).Round(time.Millisecond), res.Timings)
	for _, p := range res.Problems {
		t.Error(p)
	}
}

// TestBrowserCrossOriginSPA: a page served from another localhost port, as
// an app under development is (Vite's http://localhost:5173), may POST to
// /query and run a subscription over the server's WebSocket and receive a
// delivery (testdata/browser-cors.cjs): with its origin listed in
// -cors-origins, and with -cors-origins auto, which allows http://localhost:*.
// One alone:
//
//	CALGRAPH_BROWSER_DIR=~/.cache/calgraph-ci/browser-1 go test -run TestBrowserCrossOriginSPA .
func TestBrowserCrossOriginSPA(t *testing.T) {
	spa := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write([]byte("<!DOCTYPE html><title>an app on another port</title>"))
	}))
	defer spa.Close()
	origin := strings.Replace(spa.URL, "127.0.0.1", "localhost", 1)
	for _, tt := range []struct{ name, origins string }{
		{"listed", origin},
		{"auto", "auto"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			in := serve(t, settings(t, t.TempDir(), false, "CALGRAPH_CORS_ORIGINS", tt.origins))
			browse(t, "testdata/browser-cors.cjs", in.url, in.token, spa.URL)
		})
	}
}
