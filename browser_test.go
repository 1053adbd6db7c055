package main

import (
	"encoding/json"
	"os"
	"os/exec"
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
