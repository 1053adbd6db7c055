package main

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/calgraph/calgraph/internal/dynamo"
	"github.com/calgraph/calgraph/internal/dynamotest"
)

// coldStore stands for a DynamoDB Local still starting: until warm it
// accepts calls and answers none, and then the first createStalls
// CreateTable calls get no answer either, as a JVM compiling its way through
// a first table creation.
type coldStore struct {
	proxy        *httputil.ReverseProxy
	warm         time.Time
	createStalls atomic.Int32
	done         chan struct{} // closed when the test ends: nothing stalls any more
}

func (s *coldStore) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	create := strings.HasSuffix(r.Header.Get("X-Amz-Target"), ".CreateTable")
	if time.Now().Before(s.warm) || (create && s.createStalls.Add(-1) >= 0) {
		select { // the caller's attempt timeout ends it
		case <-r.Context().Done():
		case <-s.done:
		}
		return
	}
	s.proxy.ServeHTTP(w, r)
}

// TestStartWaitsForAColdStore: start-up waits for a DynamoDB that answers
// nothing at first, then lets the first attempts of its CreateTable time
// out, and serves once the table is made.
func TestStartWaitsForAColdStore(t *testing.T) {
	t.Parallel() // its own server and table; it waits for a store to warm up
	cold := &coldStore{proxy: dynamotest.Forward(t), warm: time.Now().Add(1500 * time.Millisecond), done: make(chan struct{})}
	cold.createStalls.Store(2)
	srv := httptest.NewServer(cold)
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(cold.done) }) // before Close, which waits for handlers
	table := fmt.Sprintf("cold%d", time.Now().UnixNano())
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		_ = dynamo.DeleteTable(ctx, dynamotest.Client(t), table)
	})
	in := serve(t, settings(t, t.TempDir(), false, "CALGRAPH_STORE", "dynamodb", "AWS_ENDPOINT_URL_DYNAMODB", srv.URL,
		"CALGRAPH_TABLE", table, "CALGRAPH_DEV_TOKENS", "true", "CALGRAPH_STORE_ATTEMPT_TIMEOUT", "200ms"))
	in.query(t, `mutation { createCalendar(input: {name: "After a cold start"}) { calendar { id } } }`)
	if err := in.stop(); err != nil {
		t.Fatal(err)
	}
	if n := cold.createStalls.Load(); n >= 0 {
		t.Fatalf("%d CreateTable attempts left to stall: the test did not stall the first ones", n+1)
	}
}

// TestStartGivesUpClearly: with nothing listening at the endpoint, start-up
// gives up after -store-wait and says that DynamoDB could not be reached
// there, not that it did not answer in time.
func TestStartGivesUpClearly(t *testing.T) {
	t.Parallel() // nothing shared; it waits out -store-wait
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	endpoint := "http://" + ln.Addr().String()
	ln.Close() // connections to it are refused from now on
	var out lockedBuffer
	begin := time.Now()
	err = run(context.Background(), []string{"init-table"}, settings(t, t.TempDir(), false, "CALGRAPH_STORE", "dynamodb",
		"AWS_ENDPOINT_URL_DYNAMODB", endpoint, "CALGRAPH_STORE_WAIT", "2s"), nil, &out, &out)
	took := time.Since(begin)
	if err == nil {
		t.Fatalf("init-table succeeded with nothing at %s", endpoint)
	}
	for _, want := range []string{"DynamoDB at " + endpoint + " did not become ready within 2s", "could not be reached", "connection refused"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("got %q, want it to say %q", err, want)
		}
	}
	if strings.Contains(err.Error(), "did not answer in time") {
		t.Errorf("got %q, which blames a slow answer for a refused connection", err)
	}
	if took > 30*time.Second {
		t.Errorf("gave up after %v, want about -store-wait (2s)", took)
	}
}

// TestShutdownSaysItIsDone: a graceful shutdown logs its start and, once
// every request is answered, a last line saying it is done, so an operator
// reading the log knows the process stopped on purpose and cleanly.
func TestShutdownSaysItIsDone(t *testing.T) {
	in := serve(t, settings(t, t.TempDir(), false, "CALGRAPH_LOG_LEVEL", "info"))
	if err := in.stop(); err != nil {
		t.Fatal(err)
	}
	logs := in.out.String()
	begun := strings.Index(logs, "shutting down")
	done := strings.Index(logs, "msg=\"shut down")
	if begun < 0 || done < begun {
		t.Fatalf("want a line saying the shutdown began and a later one saying it is done, got:\n%s", logs)
	}
	if rest := strings.TrimSpace(logs[done:]); strings.Contains(rest, "\n") {
		t.Errorf("want the shutdown's line last, got after it:\n%s", rest)
	}
}
