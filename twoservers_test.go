package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/calgraph/calgraph/internal/dynamotest"
)

// envHelper makes the test binary a server process (TestHelperServer).
const envHelper = "CALGRAPH_TEST_HELPER_SERVER"

// TestHelperServer is not a test: run by TestTwoServersSyncExactly as a
// child process (with envHelper set), it serves calgraph with the settings
// of its environment and a clock CALGRAPH_TEST_CLOCK_SKEW off, until killed.
func TestHelperServer(t *testing.T) {
	if os.Getenv(envHelper) == "" {
		t.Skip("a server process for TestTwoServersSyncExactly")
	}
	skew, err := time.ParseDuration(os.Getenv("CALGRAPH_TEST_CLOCK_SKEW"))
	if err != nil {
		t.Fatal(err)
	}
	clockSkew = skew
	if ahead := os.Getenv("CALGRAPH_TEST_CLOCK_AHEAD"); ahead != "" {
		if clockAhead, err = time.ParseDuration(ahead); err != nil {
			t.Fatal(err)
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer stop()
	if err := run(ctx, nil, os.Getenv, nil, os.Stdout, os.Stderr); err != nil {
		t.Fatal(err)
	}
}

// server is a calgraph process started by a test.
type server struct{ url, token string }

// startServer starts the test binary as a server process with env and a
// clock skew, and waits for its banner.
func startServer(t *testing.T, env map[string]string, skew time.Duration) server {
	t.Helper()
	s, _ := startServerProcess(t, env, skew)
	return s
}

// startServerPID is startServer without skew, also returning the process ID
// (for a test to kill it).
func startServerPID(t *testing.T, env map[string]string) (server, int) {
	t.Helper()
	s, p := startServerProcess(t, env, 0)
	return s, p.Pid
}

func startServerProcess(t *testing.T, env map[string]string, skew time.Duration) (server, *os.Process) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperServer$")
	cmd.Env = append(os.Environ(), envHelper+"=1", "CALGRAPH_TEST_CLOCK_SKEW="+skew.String())
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	cmd.Env = append(cmd.Env, "AWS_CA_BUNDLE=") // the SDK refuses a custom HTTP client with it
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = io.MultiWriter(&stderr, os.Stderr)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
		}
	})
	lines := bufio.NewScanner(out)
	var s server
	deadline := time.AfterFunc(60*time.Second, func() { _ = cmd.Process.Kill() })
	defer deadline.Stop()
	for lines.Scan() && (s.url == "" || s.token == "") {
		if m := regexp.MustCompile(`listening on (\S+)`).FindStringSubmatch(lines.Text()); m != nil {
			s.url = m[1]
		}
		if m := bannerToken.FindStringSubmatch(lines.Text()); m != nil {
			s.token = m[1]
		}
	}
	if s.url == "" || s.token == "" {
		t.Fatalf("the server process printed no banner:\n%s", stderr.String())
	}
	go func() { // keep its stdout drained
		for lines.Scan() {
		}
	}()
	return s, cmd.Process
}

// gql posts an operation and returns data, or the first error's code.
func (s server) gql(t *testing.T, q string, vars map[string]any) (map[string]any, string) {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"query": q, "variables": vars})
	req, _ := http.NewRequest(http.MethodPost, s.url+"/query", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+s.token)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Error(err)
		return nil, "TRANSPORT"
	}
	defer res.Body.Close()
	var r struct {
		Data   map[string]any
		Errors []struct {
			Message    string
			Extensions map[string]any
		}
	}
	if err := json.NewDecoder(res.Body).Decode(&r); err != nil {
		t.Error(err)
		return nil, "DECODE"
	}
	if len(r.Errors) > 0 {
		code, _ := r.Errors[0].Extensions["code"].(string)
		if code == "" || code == "INTERNAL_SERVER_ERROR" {
			t.Errorf("%s: %s", q, r.Errors[0].Message)
		}
		return nil, code
	}
	return r.Data, ""
}

func field(v any, path ...string) any {
	for _, p := range path {
		m, _ := v.(map[string]any)
		v = m[p]
	}
	return v
}

const syncQuery = `query($c: ID!, $t: String) { calendar(id: $c) { changes(syncToken: $t, first: 37) {
  changes { id deleted node { ... on Task { title version } ... on Calendar { name version } ... on Membership { role version } } }
  hasMore syncToken } } }`

// syncAll reads changes from token (all of it when "") until none is left,
// applying them to replica, and returns the new token.
func syncAll(t *testing.T, s server, cal, token string, replica map[string]string) string {
	t.Helper()
	for {
		vars := map[string]any{"c": cal}
		if token != "" {
			vars["t"] = token
		}
		d, code := s.gql(t, syncQuery, vars)
		if code != "" {
			t.Fatalf("sync: %s", code)
		}
		page := field(d, "calendar", "changes")
		for _, c := range field(page, "changes").([]any) {
			id := field(c, "id").(string)
			if field(c, "deleted") == true {
				delete(replica, id)
			} else {
				replica[id] = fmt.Sprint(field(c, "node"))
			}
		}
		token = field(page, "syncToken").(string)
		if field(page, "hasMore") != true {
			return token
		}
	}
}

// TestTwoServersSyncExactly: two server processes on one DynamoDB table,
// their clocks 4 s behind and 4 s ahead, take writes from 8 writers at once
// (creating, renaming and deleting tasks) while a client syncs through
// either of them every 50 ms. After the writes, one more sync makes the
// client's replica equal a full read.
func TestTwoServersSyncExactly(t *testing.T) {
	if os.Getenv(dynamotest.EnvEndpoint) == "" {
		t.Skip("two processes share a table on DynamoDB Local only (set " + dynamotest.EnvEndpoint + ")")
	}
	env := map[string]string{"CALGRAPH_DATA_DIR": t.TempDir(), "CALGRAPH_ADDR": "127.0.0.1:0", "CALGRAPH_LOG_LEVEL": "warn",
		"AWS_ENDPOINT_URL_DYNAMODB": os.Getenv(dynamotest.EnvEndpoint), "CALGRAPH_DEV_TOKENS": "true",
		"CALGRAPH_TABLE": fmt.Sprintf("two%d", time.Now().UnixNano())}
	a := startServer(t, env, -4*time.Second) // the first creates the table
	b := startServer(t, env, 4*time.Second)  // the same data dir: the same dev signing key
	servers := []server{a, b}
	d, _ := a.gql(t, `mutation { createCalendar(input: {name: "Shared"}) { calendar { id } } }`, nil)
	cal := field(d, "createCalendar", "calendar", "id").(string)

	replica := map[string]string{}
	token := syncAll(t, b, cal, "", replica)
	stop := make(chan struct{})
	var writers sync.WaitGroup
	var mu sync.Mutex
	var ids []string
	counts := map[string]int{}
	for w := range 8 {
		writers.Go(func() {
			s := servers[w%2]
			rng := rand.New(rand.NewPCG(uint64(w), 1))
			for n := 0; ; n++ {
				select {
				case <-stop:
					return
				default:
				}
				mu.Lock()
				var id string
				if len(ids) > 0 {
					id = ids[rng.IntN(len(ids))]
				}
				mu.Unlock()
				op := rng.IntN(3)
				if id == "" {
					op = 0
				}
				var code string
				switch op {
				case 0:
					var d map[string]any
					d, code = s.gql(t, `mutation($c: ID!, $t: String!) { createEntry(input: {calendarId: $c, title: $t,
						timing: {task: {dueDate: "2026-12-01"}}}) { entry { id } } }`, map[string]any{"c": cal, "t": fmt.Sprintf("w%d-%d", w, n)})
					if code == "" {
						mu.Lock()
						ids = append(ids, field(d, "createEntry", "entry", "id").(string))
						mu.Unlock()
					}
				case 1:
					d, c := s.gql(t, `query($id: ID!) { node(id: $id) { ... on Task { version } } }`, map[string]any{"id": id})
					if code = c; code == "" && field(d, "node") != nil {
						_, code = s.gql(t, `mutation($id: ID!, $v: Int!, $t: String!) { updateEntry(input: {id: $id, expectedVersion: $v, title: $t}) { entry { id } } }`,
							map[string]any{"id": id, "v": field(d, "node", "version"), "t": fmt.Sprintf("renamed by w%d-%d", w, n)})
					}
				default:
					d, c := s.gql(t, `query($id: ID!) { node(id: $id) { ... on Task { version } } }`, map[string]any{"id": id})
					if code = c; code == "" && field(d, "node") != nil {
						_, code = s.gql(t, `mutation($id: ID!, $v: Int!) { deleteEntry(input: {id: $id, expectedVersion: $v}) { deletedEntryId } }`,
							map[string]any{"id": id, "v": field(d, "node", "version")})
					}
				}
				mu.Lock()
				counts[fmt.Sprint(op, code)]++
				mu.Unlock()
			}
		})
	}
	syncs := 0
	for end := time.Now().Add(4 * time.Second); time.Now().Before(end); syncs++ {
		token = syncAll(t, servers[syncs%2], cal, token, replica)
		time.Sleep(50 * time.Millisecond)
	}
	close(stop)
	writers.Wait()
	syncAll(t, a, cal, token, replica)
	full := map[string]string{}
	syncAll(t, b, cal, "", full)
	if fmt.Sprint(replica) != fmt.Sprint(full) {
		var diff []string
		for k, v := range full {
			if replica[k] != v {
				diff = append(diff, fmt.Sprintf("%s: replica %q, full read %q", k, replica[k], v))
			}
		}
		for k, v := range replica {
			if _, ok := full[k]; !ok {
				diff = append(diff, fmt.Sprintf("%s: replica %q, gone", k, v))
			}
		}
		t.Fatalf("after %d syncs the replica differs from a full read:\n%s", syncs, strings.Join(diff, "\n"))
	}
	t.Logf("%d syncs; operations by kind (0 create, 1 rename, 2 delete) and outcome: %v; %d objects", syncs, counts, len(full))
	if counts["0"] == 0 || counts["1"] == 0 || counts["2"] == 0 {
		t.Fatalf("some kind of write never succeeded: %v", counts)
	}
}
