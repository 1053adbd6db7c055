package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/calgraph/calgraph/internal/dynamotest"
)

// instance is one run of the server command.
type instance struct {
	url, token string
	stop       func() error
	out        *lockedBuffer // what the command printed
}

// settings returns a getenv for a run: the embedded engine in dir, or, when
// CALGRAPH_TEST_DYNAMODB is set and external is true, that endpoint with a table
// of the test's own.
func settings(t *testing.T, dir string, external bool, extra ...string) func(string) string {
	t.Helper()
	env := map[string]string{"CALGRAPH_DATA_DIR": dir, "CALGRAPH_ADDR": "127.0.0.1:0", "CALGRAPH_LOG_LEVEL": "warn"}
	if ep := os.Getenv(dynamotest.EnvEndpoint); ep != "" && external {
		env["AWS_ENDPOINT_URL_DYNAMODB"] = ep
		env["CALGRAPH_DEV_TOKENS"] = "true"
		env["CALGRAPH_TABLE"] = fmt.Sprintf("srv%d", time.Now().UnixNano())
	}
	for i := 0; i+1 < len(extra); i += 2 {
		env[extra[i]] = extra[i+1]
	}
	return func(k string) string { return env[k] }
}

var bannerToken = regexp.MustCompile(`Authorization: Bearer (\S+)`)

// serve starts the server command and waits for its banner.
func serve(t *testing.T, getenv func(string) string) instance {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	out := &lockedBuffer{}
	errc := make(chan error, 1)
	go func() { errc <- run(ctx, nil, getenv, nil, out, out) }()
	deadline := time.Now().Add(30 * time.Second)
	for !bannerToken.MatchString(out.String()) {
		select {
		case err := <-errc:
			cancel()
			t.Fatalf("server stopped before serving: %v\n%s", err, out.String())
		default:
		}
		if time.Now().After(deadline) {
			cancel()
			t.Fatalf("no banner after 30s:\n%s", out.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	url := regexp.MustCompile(`listening on (\S+)`).FindStringSubmatch(out.String())[1]
	stop := func() error { cancel(); return <-errc }
	t.Cleanup(func() { cancel() })
	return instance{url: url, token: bannerToken.FindStringSubmatch(out.String())[1], stop: stop, out: out}
}

// query posts a GraphQL operation and returns the decoded response.
func (in instance) query(t *testing.T, q string) map[string]any {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"query": q})
	req, _ := http.NewRequest(http.MethodPost, in.url+"/query", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+in.token)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var out map[string]any
	if err := json.NewDecoder(res.Body).Decode(&out); err != nil {
		t.Fatal(err)
	}
	if out["errors"] != nil {
		t.Fatalf("%s failed: %v", q, out["errors"])
	}
	return out
}

func calendarNames(t *testing.T, in instance) []string {
	t.Helper()
	out := in.query(t, `{ viewer { calendars(first: 100) { edges { node { calendar { name } } } } } }`)
	var names []string
	data := out["data"].(map[string]any)["viewer"].(map[string]any)["calendars"].(map[string]any)
	for _, e := range data["edges"].([]any) {
		names = append(names, e.(map[string]any)["node"].(map[string]any)["calendar"].(map[string]any)["name"].(string))
	}
	slices.Sort(names)
	return names
}

// signedIn returns the email of the user token signs in on in, and the names
// of that user's calendars.
func signedIn(t *testing.T, in instance, token string) (email string, calendars []string) {
	t.Helper()
	in.token = token
	out := in.query(t, `{ viewer { user { email } } }`)
	email = out["data"].(map[string]any)["viewer"].(map[string]any)["user"].(map[string]any)["email"].(string)
	return email, calendarNames(t, in)
}

// TestRestartKeepsData holds the promise that a graceful restart on the same
// data directory keeps both the data and the dev signing key: the token the
// first run printed and one the token command minted during it still sign
// their users in after the restart and read what they wrote, as do tokens of
// the second run.
func TestRestartKeepsData(t *testing.T) {
	env := settings(t, t.TempDir(), false)
	first := serve(t, env)
	bob := strings.TrimSpace(mustRun(t, env, "token", "-email", "bob@example.com"))
	first.query(t, `mutation { createCalendar(input: {name: "Kept"}) { calendar { id } } }`)
	asBob := first
	asBob.token = bob
	asBob.query(t, `mutation { createCalendar(input: {name: "Bob's"}) { calendar { id } } }`)
	if err := first.stop(); err != nil {
		t.Fatalf("graceful stop: %v", err)
	}

	second := serve(t, env)
	defer second.stop()
	bobAgain := strings.TrimSpace(mustRun(t, env, "token", "-email", "bob@example.com", "-name", "Bob"))
	for _, tt := range []struct {
		name, token, wantEmail string
		wantCalendars          []string
	}{
		{"the token the first run printed", first.token, "dev@example.com", []string{"Kept"}},
		{"a token minted during the first run", bob, "bob@example.com", []string{"Bob's"}},
		{"the token the second run printed", second.token, "dev@example.com", []string{"Kept"}},
		{"a token minted after the restart", bobAgain, "bob@example.com", []string{"Bob's"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			email, calendars := signedIn(t, second, tt.token)
			if email != tt.wantEmail || !slices.Equal(calendars, tt.wantCalendars) {
				t.Fatalf("got %s with calendars %v after the restart, want %s with %v", email, calendars, tt.wantEmail, tt.wantCalendars)
			}
		})
	}
}

func TestCorruptSnapshotFailsLoudly(t *testing.T) {
	for _, tt := range []struct{ name, content, want string }{
		{"truncated", `{"Item":{"PK":{"S":"a"},"SK":{"S":"a"}}}` + "\n" + `{"Item":{"PK":{"S":"b"`, "line 2"},
		{"not JSON", "hello\n", "line 1"},
		{"no key", `{"Item":{"x":{"S":"a"}}}` + "\n", "no string PK and SK"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "snapshot.jsonl")
			if err := os.WriteFile(path, []byte(tt.content), 0o600); err != nil {
				t.Fatal(err)
			}
			var out lockedBuffer
			err := run(context.Background(), nil, settings(t, dir, false), nil, &out, &out)
			if err == nil || !strings.Contains(err.Error(), "snapshot") || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("got %v, want a snapshot error mentioning %q", err, tt.want)
			}
			if got, _ := os.ReadFile(path); string(got) != tt.content {
				t.Fatalf("the corrupt snapshot was changed to %q", got)
			}
		})
	}
}

func TestExportImportRoundTrip(t *testing.T) {
	for _, external := range []bool{false, true} {
		name := "embedded"
		if external {
			if os.Getenv(dynamotest.EnvEndpoint) == "" {
				continue
			}
			name = "dynamodb"
		}
		t.Run(name, func(t *testing.T) {
			from, to := settings(t, t.TempDir(), external), settings(t, t.TempDir(), external)
			srv := serve(t, from)
			srv.query(t, `mutation { createCalendar(input: {name: "One", description: "with text", isResource: true}) { calendar { id } } }`)
			srv.query(t, `mutation { updateProfile(input: {expectedVersion: 1, name: "Exporter"}) { user { id } } }`)
			if err := srv.stop(); err != nil {
				t.Fatal(err)
			}
			file := filepath.Join(t.TempDir(), "export.jsonl")
			mustRun(t, from, "export", "-o", file)
			mustRun(t, to, "import", "-i", file)
			again := filepath.Join(t.TempDir(), "again.jsonl")
			mustRun(t, to, "export", "-o", again)
			a, b := sortedLines(t, file), sortedLines(t, again)
			// 6 items and 3 change records (the calendar and the membership in
			// the calendar's log, the membership in the user's).
			if len(a) != 9 || !slices.Equal(a, b) {
				t.Fatalf("export after import differs or is not the 9 items written:\nfirst:  %v\nsecond: %v", a, b)
			}
		})
	}
}

func TestCommands(t *testing.T) {
	dir := t.TempDir()
	env := settings(t, dir, false)
	if out := mustRun(t, env, "seed"); !strings.Contains(out, "3 calendars created") {
		t.Fatalf("first seed said %q", out)
	}
	if out := mustRun(t, env, "seed"); !strings.Contains(out, "0 calendars created") {
		t.Fatalf("second seed said %q", out)
	}
	if out := mustRun(t, env, "init-table"); !strings.Contains(out, "ready") {
		t.Fatalf("init-table said %q", out)
	}
	if out := mustRun(t, env, "check"); !strings.Contains(out, "the table is consistent") {
		t.Fatalf("check said %q", out)
	}
	tok := strings.TrimSpace(mustRun(t, env, "token", "-email", "alice@example.com"))
	srv := serve(t, env)
	defer srv.stop()
	srv.token = tok
	if got := calendarNames(t, srv); !slices.Equal(got, []string{"Room 101 (demo)", "Team (demo)"}) {
		t.Fatalf("alice sees %v, want [Room 101 (demo) Team (demo)]", got)
	}
	for _, args := range [][]string{{"token"}, {"frobnicate"}, {"serve", "-store", "nowhere"}, {"token", "-email", "not-an-email"}} {
		var out lockedBuffer
		if err := run(context.Background(), args, env, nil, &out, &out); err == nil {
			t.Errorf("%v succeeded, want an error", args)
		}
	}
}

func TestDataDirIsLocked(t *testing.T) {
	env := settings(t, t.TempDir(), false)
	srv := serve(t, env)
	defer srv.stop()
	var out lockedBuffer
	err := run(context.Background(), []string{"seed"}, env, nil, &out, &out)
	if err == nil || !strings.Contains(err.Error(), "in use") {
		t.Fatalf("got %v, want the data directory reported in use", err)
	}
}

func mustRun(t *testing.T, getenv func(string) string, args ...string) string {
	t.Helper()
	var out lockedBuffer
	if err := run(context.Background(), args, getenv, nil, &out, &out); err != nil {
		t.Fatalf("%v: %v\n%s", args, err, out.String())
	}
	return out.String()
}

func sortedLines(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	slices.Sort(lines)
	return lines
}

type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
