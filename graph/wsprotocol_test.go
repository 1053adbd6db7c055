package graph_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	coderws "github.com/coder/websocket"
)

// sendText writes text as it is, valid JSON or not.
func (c *wsClient) sendText(text string) {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := c.conn.Write(ctx, coderws.MessageText, []byte(text)); err != nil {
		c.t.Fatalf("write %s: %v", text, err)
	}
}

// signIn sends connection_init with token and waits for the acknowledgement.
func (c *wsClient) signIn(token string) {
	c.t.Helper()
	c.send(wsMessage{Type: "connection_init", Payload: mustJSON(map[string]any{"Authorization": "Bearer " + token})})
	if m, err := c.next(5 * time.Second); err != nil || m.Type != "connection_ack" {
		c.t.Fatalf("after connection_init: %s %s %v, want connection_ack", m.Type, m.Payload, err)
	}
}

// TestWebSocketCloseCodes: each breach of graphql-transport-ws closes the
// connection with the code its protocol gives it
// (https://github.com/enisdenjo/graphql-ws/blob/master/PROTOCOL.md).
func TestWebSocketCloseCodes(t *testing.T) {
	t.Parallel() // its own server and table; it mostly waits for deliveries and quiet spells
	e := newEnv(t, func(o *envOptions) { o.initWait = 500 * time.Millisecond })
	w := e.world("codes")
	sub := func(id string) string {
		return string(mustJSON(wsMessage{ID: id, Type: "subscribe", Payload: mustJSON(map[string]any{
			"query": changesSubscription, "variables": map[string]any{"ids": []string{w.calendarID}}})}))
	}
	for _, tt := range []struct {
		name       string
		signedIn   bool // connection_init first, acknowledged
		send       []string
		code       coderws.StatusCode
		reasonHas  string
		atLeastFor time.Duration // the close comes no sooner
	}{
		{name: "no connection_init in time", code: 4408, reasonHas: "initialisation timeout", atLeastFor: 500 * time.Millisecond},
		{name: "subscribe before connection_init", send: []string{sub("1")}, code: 4401, reasonHas: "Unauthorized"},
		{name: "complete before connection_init", send: []string{`{"id":"1","type":"complete"}`}, code: 4401, reasonHas: "Unauthorized"},
		{name: "not JSON", send: []string{`connection_init`}, code: 4400},
		{name: "JSON but not an object", send: []string{`[]`}, code: 4400},
		{name: "no type", send: []string{`{"payload":{}}`}, code: 4400},
		{name: "unknown type", send: []string{`{"type":"start","id":"1","payload":{}}`}, code: 4400},
		{name: "connection_init with a string payload", send: []string{`{"type":"connection_init","payload":"x"}`}, code: 4400},
		{name: "connection_init with an array payload", send: []string{`{"type":"connection_init","payload":[]}`}, code: 4400},
		{name: "connection_init with a number payload", send: []string{`{"type":"connection_init","payload":1}`}, code: 4400},
		{name: "a second connection_init", signedIn: true, send: []string{`{"type":"connection_init"}`}, code: 4429, reasonHas: "Too many initialisation requests"},
		{name: "a server's message", signedIn: true, send: []string{`{"type":"next","id":"1","payload":{}}`}, code: 4400},
		{name: "subscribe without an id", signedIn: true, send: []string{`{"type":"subscribe","payload":{"query":"subscription { calendarChanges { kind } }"}}`}, code: 4400},
		{name: "subscribe with a string payload", signedIn: true, send: []string{`{"type":"subscribe","id":"1","payload":"subscription { calendarChanges { kind } }"}`}, code: 4400},
		{name: "complete without an id", signedIn: true, send: []string{`{"type":"complete"}`}, code: 4400},
		{name: "a duplicate subscription id", signedIn: true, send: []string{sub("dup"), sub("dup")}, code: 4409, reasonHas: "Subscriber for dup already exists"},
		{name: "a long duplicate id", signedIn: true, send: []string{sub(strings.Repeat("d", 300)), sub(strings.Repeat("d", 300))}, code: 4409, reasonHas: "Subscriber for ddd"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			// Timed from before the connection opens: the server's wait for
			// connection_init starts when it accepts it, and a loaded machine
			// may take a while to hand the client its end.
			begin := time.Now()
			c := e.open()
			c.t = t
			if tt.signedIn {
				c.signIn(w.reader)
			}
			for _, text := range tt.send {
				c.sendText(text)
			}
			ce := c.closeError(5 * time.Second)
			if ce.Code != tt.code || !strings.Contains(ce.Reason, tt.reasonHas) {
				t.Fatalf("closed with %d %q, want %d %q", ce.Code, ce.Reason, tt.code, tt.reasonHas)
			}
			if took := time.Since(begin); took < tt.atLeastFor {
				t.Fatalf("closed after %v, want no sooner than %v", took, tt.atLeastFor)
			}
		})
	}
}

// TestWebSocketPingBeforeInit: a ping may come before connection_init
// (graphql-transport-ws allows it at any time): it gets its pong, and the
// connection signs in after it.
func TestWebSocketPingBeforeInit(t *testing.T) {
	e := newEnv(t)
	w := e.world("ping")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	conn, _, err := coderws.Dial(ctx, "ws"+strings.TrimPrefix(e.url, "http")+"/query",
		&coderws.DialOptions{Subprotocols: []string{"graphql-transport-ws"}})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.CloseNow()
	for _, m := range []wsMessage{{Type: "ping"}, {Type: "pong"}, {Type: "connection_init", Payload: mustJSON(map[string]any{"Authorization": "Bearer " + w.reader})}} {
		if err := conn.Write(ctx, coderws.MessageText, mustJSON(m)); err != nil {
			t.Fatal(err)
		}
	}
	var got []string
	for len(got) < 2 {
		_, b, err := conn.Read(ctx)
		if err != nil {
			t.Fatalf("after %v: %v", got, err)
		}
		var m wsMessage
		_ = json.Unmarshal(b, &m)
		got = append(got, m.Type)
	}
	if fmt.Sprint(got) != "[pong connection_ack]" {
		t.Fatalf("got %v, want [pong connection_ack]", got)
	}
}

// TestWebSocketCompleteIsFinal: after the client completes a subscription,
// nothing more comes for its id (not even gqlgen's `complete`, nor a
// delivery already under way), and the id may be used again at once.
func TestWebSocketCompleteIsFinal(t *testing.T) {
	t.Parallel() // its own server and table; it mostly waits for deliveries and quiet spells
	e := newEnv(t)
	w := e.world("final")
	c := e.dial(w.reader)
	vars := map[string]any{"ids": []string{w.calendarID}}
	for round := range 3 {
		c.subscribe("1", changesSubscription, vars)
		time.Sleep(100 * time.Millisecond) // registered before the change
		e.must(w.writer, createTask, map[string]any{"c": w.calendarID, "t": fmt.Sprint("before ", round)})
		if d := c.delivery("1", 3*time.Second); fmt.Sprint(changed(d)) != fmt.Sprintf("[before %d]", round) {
			t.Fatalf("round %d: %v", round, changed(d))
		}
		// A change on its way as the client completes: whatever the order,
		// nothing of it reaches the client.
		e.must(w.writer, createTask, map[string]any{"c": w.calendarID, "t": fmt.Sprint("racing ", round)})
		c.send(wsMessage{ID: "1", Type: "complete"})
		e.must(w.writer, createTask, map[string]any{"c": w.calendarID, "t": fmt.Sprint("after ", round)})
		for {
			m, err := c.next(700 * time.Millisecond)
			if err != nil {
				break
			}
			// The racing delivery may have been sent before the complete
			// was read; anything after it may not.
			if m.Type != "next" || !strings.Contains(string(m.Payload), fmt.Sprint("racing ", round)) {
				t.Fatalf("round %d: after complete, got %s %s %s, want nothing", round, m.Type, m.ID, m.Payload)
			}
		}
	}
	// The connection is still in order: a subscription on it works.
	c.subscribe("2", changesSubscription, vars)
	time.Sleep(100 * time.Millisecond)
	e.must(w.writer, createTask, map[string]any{"c": w.calendarID, "t": "last"})
	if d := c.delivery("2", 3*time.Second); fmt.Sprint(changed(d)) != "[last]" {
		t.Fatalf("a subscription after: %v", changed(d))
	}
}

// TestSubscriptionWithTwoRootFields: a subscription selects one root field
// (GraphQL's "single root field" rule, counted by response name, so two
// aliases of the one field are two). Two are a validation error like any
// other, before sign-in is even looked at: 400 over HTTP, an `error`
// message over WebSocket, and no ERROR in the log.
func TestSubscriptionWithTwoRootFields(t *testing.T) {
	t.Parallel() // its own server and table; it mostly waits for deliveries and quiet spells
	e := newEnv(t)
	w := e.world("roots")
	for _, tt := range []struct{ name, query, message string }{
		{"two aliases", `subscription { a: calendarChanges { kind } b: calendarChanges { kind } }`, "must select only one top level field"},
		{"a named operation", `subscription Two { a: calendarChanges { kind } b: calendarChanges { syncToken } }`, `Subscription "Two" must select only one top level field`},
		{"through a fragment", `subscription { ...F } fragment F on Subscription { a: calendarChanges { kind } calendarChanges { kind } }`, "must select only one top level field"},
		{"introspection", `subscription { calendarChanges { kind } __typename }`, "must select only one top level field"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			before := strings.Count(e.logs.String(), "level=ERROR")
			body, _ := json.Marshal(map[string]any{"query": tt.query})
			req, _ := http.NewRequest(http.MethodPost, e.url+"/query", bytes.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/graphql-response+json")
			r := e.send(req)
			if r.Status != http.StatusBadRequest || r.code() != "GRAPHQL_VALIDATION_FAILED" || !strings.Contains(r.Errors[0].Message, tt.message) {
				t.Fatalf("over HTTP: %d %s, want 400 GRAPHQL_VALIDATION_FAILED %q", r.Status, r.Raw, tt.message)
			}

			c := e.dial(w.reader)
			c.t = t
			c.send(wsMessage{ID: "x", Type: "subscribe", Payload: mustJSON(map[string]any{"query": tt.query})})
			m, err := c.next(3 * time.Second)
			var errs []gqlError
			if err == nil {
				_ = json.Unmarshal(m.Payload, &errs)
			}
			if err != nil || m.Type != "error" || m.ID != "x" || len(errs) == 0 ||
				errs[0].Extensions.Code != "GRAPHQL_VALIDATION_FAILED" || !strings.Contains(errs[0].Message, tt.message) {
				t.Fatalf("over WebSocket: %s %s %s %v, want an error with GRAPHQL_VALIDATION_FAILED", m.Type, m.ID, m.Payload, err)
			}
			c.quiet(300 * time.Millisecond) // `error` ends the operation: no `complete` after it
			if after := strings.Count(e.logs.String(), "level=ERROR"); after != before {
				t.Fatalf("%d ERROR lines logged:\n%s", after-before, e.logs.String())
			}
		})
	}
	// One field, selected twice under one name, is one root field.
	r := e.do(w.reader, `subscription { calendarChanges { kind } calendarChanges { syncToken } }`, nil)
	if r.code() == "GRAPHQL_VALIDATION_FAILED" {
		t.Fatalf("one field selected twice: %s, want it valid", r.Raw)
	}
}

// TestLegacyProtocol: the older graphql-ws protocol (subscriptions-transport-ws,
// also what a client that names no subprotocol gets) still signs in,
// delivers and stops; a malformed connection_init closes it too.
func TestLegacyProtocol(t *testing.T) {
	t.Parallel() // its own server and table; it mostly waits for deliveries and quiet spells
	e := newEnv(t)
	w := e.world("legacy")
	for _, protocol := range []string{"graphql-ws", ""} {
		c := e.openWith(protocol)
		c.send(wsMessage{Type: "connection_init", Payload: mustJSON(map[string]any{"Authorization": "Bearer " + w.reader})})
		if m, err := c.next(5 * time.Second); err != nil || m.Type != "connection_ack" {
			t.Fatalf("%q: %s %v, want connection_ack", protocol, m.Type, err)
		}
		c.send(wsMessage{ID: "1", Type: "start", Payload: mustJSON(map[string]any{"query": changesSubscription, "variables": map[string]any{"ids": []string{w.calendarID}}})})
		time.Sleep(100 * time.Millisecond)
		title := fmt.Sprintf("legacy %q", protocol)
		e.must(w.writer, createTask, map[string]any{"c": w.calendarID, "t": title})
		m, err := c.next(3 * time.Second)
		if err != nil || m.Type != "data" || m.ID != "1" || !strings.Contains(string(m.Payload), strings.ReplaceAll(title, `"`, `\"`)) {
			t.Fatalf("%q: %s %s %s %v, want data", protocol, m.Type, m.ID, m.Payload, err)
		}
		c.send(wsMessage{ID: "1", Type: "stop"})
		e.must(w.writer, createTask, map[string]any{"c": w.calendarID, "t": "stopped"})
		c.quiet(700 * time.Millisecond)
		c.send(wsMessage{Type: "connection_terminate"})
		if code := c.closeCode(5 * time.Second); code != coderws.StatusNormalClosure {
			t.Fatalf("%q: connection_terminate closed with %d, want 1000", protocol, code)
		}

		bad := e.openWith(protocol)
		bad.sendText(`{"type":"connection_init","payload":"x"}`)
		if code := bad.closeCode(5 * time.Second); code != 4400 {
			t.Fatalf("%q: a malformed connection_init closed with %d, want 4400", protocol, code)
		}
	}
}
