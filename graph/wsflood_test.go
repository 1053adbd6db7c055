package graph_test

import (
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/calgraph/calgraph/graph"
)

// TestMalformedInitLeavesNothing: a connection_init whose payload is not an
// object is answered with 4400 and the server closes its socket by itself,
// though the client answers nothing and never closes its end; nothing of the
// connection is left behind, goroutine or descriptor.
func TestMalformedInitLeavesNothing(t *testing.T) {
	e := newEnv(t)
	baseFiles := openFiles(t)
	var wg sync.WaitGroup
	for _, protocol := range []string{"graphql-transport-ws", "graphql-ws"} {
		for _, payload := range []string{`"x"`, `[]`, `1`, `true`} {
			s, status, err := dialRaw(t, e.url, protocol)
			if err != nil || status != http.StatusSwitchingProtocols {
				t.Fatalf("upgrade: %d %v", status, err)
			}
			if err := s.sendText(`{"type":"connection_init","payload":` + payload + `}`); err != nil {
				t.Fatal(err)
			}
			wg.Go(func() {
				// The server waits a while for a close frame in answer to
				// its own, then closes the socket anyway.
				end := s.readToEnd(20 * time.Second)
				if end.code != 4400 || !end.eof {
					t.Errorf("%s, payload %s: got close %d %q then EOF %v (texts %v), want 4400 and the socket closed by the server",
						protocol, payload, end.code, end.reason, end.eof, end.texts)
				}
				s.conn.Close()
			})
		}
	}
	wg.Wait()
	waitForNothingLeft(t, e, baseFiles)
}

// TestInitFloodDoesNotStarve: hundreds of connections that never complete
// connection_init (malformed, with a bad token, or silent; none of which
// reads or closes) cannot keep more than graph.MaxPendingConnections sockets open on
// the server, nor keep out the authenticated: the health check, a query and
// a new subscription all work while the flood holds its sockets, and when it
// leaves nothing of it remains.
func TestInitFloodDoesNotStarve(t *testing.T) {
	e := newEnv(t)
	w := e.world("flood")
	baseFiles := openFiles(t)

	const malformed, badToken, silent = 200, 100, graph.MaxPendingConnections + 50
	var sockets []*rawSocket
	for i := range malformed + badToken + silent {
		s, status, err := dialRaw(t, e.url, "graphql-transport-ws")
		if err != nil || status != http.StatusSwitchingProtocols {
			t.Fatalf("upgrade %d: %d %v", i, status, err)
		}
		var init string
		switch {
		case i < malformed:
			init = `{"type":"connection_init","payload":"x"}`
		case i < malformed+badToken:
			init = `{"type":"connection_init","payload":{"Authorization":"Bearer not-a-token"}}`
		}
		if init != "" {
			if err := s.sendText(init); err != nil {
				t.Fatal(err)
			}
		}
		sockets = append(sockets, s)
	}

	// The authenticated are served while every socket of the flood is open
	// on its side.
	res, err := http.Get(e.url + "/healthz")
	if err != nil || res.StatusCode != http.StatusOK {
		t.Fatalf("health check during the flood: %v %v", res, err)
	}
	res.Body.Close()
	e.must(w.reader, `{ viewer { user { id } } }`, nil)
	c := e.dial(w.reader)
	c.subscribe("1", changesSubscription, map[string]any{"ids": []string{w.calendarID}})
	time.Sleep(100 * time.Millisecond)
	e.must(w.writer, createTask, map[string]any{"c": w.calendarID, "t": "during the flood"})
	c.delivery("1", 5*time.Second)

	// The server closes every malformed one, and all but the latest
	// MaxPendingConnections silent ones; the subscriber's pushed one more out.
	// Each socket is read until the server closes it, or for 8 s; once the
	// server has closed every socket it must (all malformed and bad-token
	// ones, all silent ones but MaxPendingConnections), the rest are the
	// pending ones it may keep until their init timeout, and are not waited
	// for: a server that keeps more still makes the test wait 8 s and fail.
	ends := make([]rawEnd, len(sockets))
	var wg sync.WaitGroup
	var mu sync.Mutex
	refused, silentOver := malformed+badToken, silent-graph.MaxPendingConnections // still to be closed
	for i, s := range sockets {
		wg.Go(func() {
			ends[i] = s.readToEnd(8 * time.Second)
			if !ends[i].eof {
				return
			}
			mu.Lock()
			defer mu.Unlock()
			if i < malformed+badToken {
				refused--
			} else {
				silentOver--
			}
			if refused == 0 && silentOver <= 0 {
				for _, pending := range sockets[malformed+badToken:] {
					_ = pending.conn.SetReadDeadline(time.Now())
				}
			}
		})
	}
	wg.Wait()
	open, codes := 0, map[int]int{}
	for i, end := range ends {
		if !end.eof {
			open++
		}
		codes[end.code]++
		// (On a starved machine, one may have been pushed out, 4408, before
		// the server read its connection_init.)
		if i < malformed && (end.code != 4400 && end.code != 4408 || !end.eof) {
			t.Fatalf("malformed connection_init %d: close %d, EOF %v; want 4400 and closed", i, end.code, end.eof)
		}
		if i >= malformed && i < malformed+badToken && (end.code != 4403 && end.code != 4408 || !end.eof) {
			t.Fatalf("connection_init with a bad token %d: close %d, EOF %v; want 4403 and closed", i, end.code, end.eof)
		}
	}
	t.Logf("close codes of the flood: %v; open on the server after it: %d", codes, open)
	if open > graph.MaxPendingConnections {
		t.Fatalf("%d sockets of the flood are still open on the server, want at most %d", open, graph.MaxPendingConnections)
	}
	if codes[4400]+codes[4403] < malformed+badToken-10 {
		t.Fatalf("%d malformed and bad-token connections closed with 4400 and 4403, want nearly all %d", codes[4400]+codes[4403], malformed+badToken)
	}
	if codes[4408] < silent-graph.MaxPendingConnections {
		t.Fatalf("%d silent sockets closed with 4408, want at least %d", codes[4408], silent-graph.MaxPendingConnections)
	}
	for _, s := range sockets {
		s.conn.Close()
	}
	c.conn.CloseNow()
	waitForNothingLeft(t, e, baseFiles)
}

// waitForNothingLeft waits until no goroutine of a WebSocket is left and the
// process holds no more descriptors than it did before (give or take the
// HTTP client's kept-alive connections).
func waitForNothingLeft(t *testing.T, e *env, baseFiles int) {
	t.Helper()
	http.DefaultClient.CloseIdleConnections()
	deadline := time.Now().Add(20 * time.Second)
	for {
		n, stacks := subscriptionGoroutines()
		files := openFiles(t)
		if n == 0 && files <= baseFiles+2 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d WebSocket goroutines and %d descriptors (%d before) are left:\n%s", n, files, baseFiles, stacks)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
