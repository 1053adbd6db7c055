package graph_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	coderws "github.com/coder/websocket"
)

// wsClient speaks graphql-transport-ws, as graphql-ws (the client library)
// does, over a real WebSocket to the test server.
type wsClient struct {
	t    testing.TB
	conn *coderws.Conn
}

type wsMessage struct {
	ID      string          `json:"id,omitempty"`
	Type    string          `json:"type"`
	Payload json.RawMessage `json:"payload,omitempty"`
}

// dial opens a connection and signs in with token ("" for none); it fails
// the test unless the server acknowledges.
func (e *env) dial(token string) *wsClient {
	e.t.Helper()
	c, err := e.connect(token)
	if err != nil {
		e.t.Fatal(err)
	}
	return c
}

// connect opens a connection and sends connection_init, returning an error
// unless the server acknowledges.
func (e *env) connect(token string) (*wsClient, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	conn, _, err := coderws.Dial(ctx, "ws"+strings.TrimPrefix(e.url, "http")+"/query",
		&coderws.DialOptions{Subprotocols: []string{"graphql-transport-ws"}})
	if err != nil {
		return nil, err
	}
	conn.SetReadLimit(8 << 20)
	c := &wsClient{t: e.t, conn: conn}
	e.t.Cleanup(func() { _ = conn.CloseNow() })
	payload := map[string]any{}
	if token != "" {
		payload["Authorization"] = "Bearer " + token
	}
	c.send(wsMessage{Type: "connection_init", Payload: mustJSON(payload)})
	m, err := c.next(5 * time.Second)
	if err != nil {
		return nil, err
	}
	if m.Type != "connection_ack" {
		return nil, fmt.Errorf("got %s, want connection_ack", m.Type)
	}
	return c, nil
}

func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

func (c *wsClient) send(m wsMessage) {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := c.conn.Write(ctx, coderws.MessageText, mustJSON(m)); err != nil {
		c.t.Fatalf("write %s: %v", m.Type, err)
	}
}

// next reads the next message other than a ping (answered) or a pong.
func (c *wsClient) next(within time.Duration) (wsMessage, error) {
	ctx, cancel := context.WithTimeout(context.Background(), within)
	defer cancel()
	for {
		_, b, err := c.conn.Read(ctx)
		if err != nil {
			return wsMessage{}, err
		}
		var m wsMessage
		if err := json.Unmarshal(b, &m); err != nil {
			return m, err
		}
		switch m.Type {
		case "ping":
			c.send(wsMessage{Type: "pong"})
		case "pong":
		default:
			return m, nil
		}
	}
}

// subscribe starts a subscription with id.
func (c *wsClient) subscribe(id, query string, vars map[string]any) {
	c.t.Helper()
	c.send(wsMessage{ID: id, Type: "subscribe", Payload: mustJSON(map[string]any{"query": query, "variables": vars})})
}

// delivery reads the next message, which must be a `next` of id, and
// returns its data.calendarChanges.
func (c *wsClient) delivery(id string, within time.Duration) map[string]any {
	c.t.Helper()
	m, err := c.next(within)
	if err != nil {
		c.t.Fatalf("waiting for a delivery: %v", err)
	}
	if m.Type != "next" || m.ID != id {
		c.t.Fatalf("got %s %s (%s), want next %s", m.Type, m.ID, m.Payload, id)
	}
	var r struct {
		Data   map[string]any `json:"data"`
		Errors []any          `json:"errors"`
	}
	if err := json.Unmarshal(m.Payload, &r); err != nil || len(r.Errors) > 0 {
		c.t.Fatalf("delivery %s: %v %v", m.Payload, err, r.Errors)
	}
	d, _ := r.Data["calendarChanges"].(map[string]any)
	return d
}

// quiet checks that nothing comes for a while.
func (c *wsClient) quiet(d time.Duration) {
	c.t.Helper()
	if m, err := c.next(d); err == nil {
		c.t.Fatalf("got %s %s, want nothing", m.Type, m.Payload)
	}
}

// closeCode reads until the connection closes, and returns its close code.
func (c *wsClient) closeCode(within time.Duration) coderws.StatusCode {
	c.t.Helper()
	for {
		_, err := c.next(within)
		if err != nil {
			return coderws.CloseStatus(err)
		}
	}
}

const changesSubscription = `subscription($ids: [ID!], $resume: [CalendarSyncTokenInput!]) {
  calendarChanges(calendarIds: $ids, resume: $resume) {
    kind calendarId syncToken
    changes { type id deleted
      node { ... on TimedEntry { title version calendar { name } } ... on Task { title }
             ... on Membership { role user { email } } ... on Calendar { name } }
      exceptions { id status } } } }`

// changed lists the titles (or roles, or names) of a delivery's nodes, and
// "-<type>" for tombstones.
func changed(d map[string]any) []string {
	var out []string
	for _, c := range get(d, "changes").([]any) {
		switch {
		case get(c, "deleted") == true:
			out = append(out, "-"+str(c, "type"))
		case str(c, "node.title") != "":
			out = append(out, str(c, "node.title"))
		case str(c, "node.role") != "":
			out = append(out, str(c, "node.role"))
		default:
			out = append(out, str(c, "node.name"))
		}
	}
	return out
}

const createTask = `mutation($c: ID!, $t: String!) { createEntry(input: {calendarId: $c, title: $t,
  timing: {task: {dueDate: "2026-12-01"}}}) { entry { id version } } }`

// TestSubscriptionEndToEnd: a reader subscribed to a calendar receives a
// writer's changes, with the sync token after them (a sync from it finds
// nothing more), and the data of each delivery as it is then (the calendar's
// new name, read with the delivery's own loaders); removing the reader ends
// the calendar's deliveries before anything after it reaches them.
func TestSubscriptionEndToEnd(t *testing.T) {
	e := newEnv(t)
	w := e.world("sub")
	c := e.dial(w.reader)
	c.subscribe("1", changesSubscription, map[string]any{"ids": []string{w.calendarID}})
	time.Sleep(100 * time.Millisecond) // the subscription is registered before the change
	e.must(w.writer, createTask, map[string]any{"c": w.calendarID, "t": "first"})
	d := c.delivery("1", 2*time.Second)
	if str(d, "kind") != "CHANGES" || str(d, "calendarId") != w.calendarID || fmt.Sprint(changed(d)) != "[first]" {
		t.Fatalf("first delivery: %v", d)
	}
	token := str(d, "syncToken")
	r := e.must(w.reader, `query($c: ID!, $t: String) { calendar(id: $c) { changes(syncToken: $t) { changes { id } hasMore syncToken } } }`,
		map[string]any{"c": w.calendarID, "t": token})
	if n := len(get(r, "calendar.changes.changes").([]any)); n != 0 {
		t.Fatalf("a sync from the delivery's token found %d changes, want none", n)
	}

	e.must(w.owner, `mutation($c: ID!) { updateCalendar(input: {id: $c, expectedVersion: 1, name: "Renamed"}) { calendar { id } } }`,
		map[string]any{"c": w.calendarID})
	d = c.delivery("1", 2*time.Second)
	if fmt.Sprint(changed(d)) != "[Renamed]" {
		t.Fatalf("rename delivery: %v", changed(d))
	}
	e.must(w.writer, createTask, map[string]any{"c": w.calendarID, "t": "second"})
	d = c.delivery("1", 2*time.Second)
	if fmt.Sprint(changed(d)) != "[second]" || str(d, "changes.0.node.calendar.name") != "" {
		t.Fatalf("second delivery: %v", d)
	}

	e.must(w.owner, `mutation($m: ID!, $v: Int!) { removeMember(input: {membershipId: $m, expectedVersion: $v}) { removedMembershipId } }`,
		map[string]any{"m": w.readerMembershipID, "v": w.readerMembershipVersion})
	e.must(w.writer, createTask, map[string]any{"c": w.calendarID, "t": "after removal"})
	d = c.delivery("1", 2*time.Second)
	if str(d, "kind") != "ENDED" || d["syncToken"] != nil {
		t.Fatalf("after the removal: %v, want ENDED", d)
	}
	c.quiet(time.Second)
}
