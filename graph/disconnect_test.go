package graph_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestClientDisconnectIsNotAnError: a client that hangs up mid-request is
// logged at INFO, not ERROR: nothing is wrong with the server, and alerts on
// ERROR lines must not fire for it.
func TestClientDisconnectIsNotAnError(t *testing.T) {
	t.Parallel() // its own server and table; it mostly waits out its store's latency
	// The client hangs up once the server has sent the request's first call
	// to the store (which the latency holds): with a fixed timeout instead,
	// a loaded machine could let it hang up before the server had the
	// request.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var sent atomic.Bool
	e := newEnv(t, withLatency(300*time.Millisecond), func(o *envOptions) {
		o.client = append(o.client, beforeOperation("", func() {
			if sent.Load() {
				cancel()
			}
		}))
	})
	tok := e.token("gone@example.com")
	body, _ := json.Marshal(map[string]any{"query": `{ viewer { calendars { edges { node { calendar { name } } } } } }`})
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, e.url+"/query", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+tok)
	sent.Store(true)
	if res, err := http.DefaultClient.Do(req); err == nil {
		res.Body.Close()
		t.Fatal("the request finished before the client hung up: raise the latency")
	}
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(e.logs.String(), "msg=request") && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond) // the request's own log line ends it
	}
	if logs := e.logs.String(); !strings.Contains(logs, "msg=request") || strings.Contains(logs, "level=ERROR") {
		t.Fatalf("after a client hung up, the log says:\n%s\nwant its request line and no ERROR", logs)
	}
}
