package graph_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	coderws "github.com/coder/websocket"

	"github.com/calgraph/calgraph/graph"
)

// wsClient speaks graphql-transport-ws, as graphql-ws (the client library)
// does, over a real WebSocket to the test server. A goroutine reads every
// message (answering pings) into msgs, until the connection ends with err.
type wsClient struct {
	t    testing.TB
	conn *coderws.Conn
	msgs chan wsMessage
	err  error // set before msgs is closed
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

// open opens a connection without signing in.
func (e *env) open() *wsClient {
	e.t.Helper()
	return e.openWith("graphql-transport-ws")
}

// openWith opens a connection with subprotocol ("" for none) without
// signing in.
func (e *env) openWith(subprotocol string) *wsClient {
	e.t.Helper()
	// 20 s: the handshake is not what tests measure, and a CI machine with
	// the race detector and parallel tests once took over 5 s to answer one
	// (TestResumeNeverGoesBackwards).
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var protocols []string
	if subprotocol != "" {
		protocols = []string{subprotocol}
	}
	conn, _, err := coderws.Dial(ctx, "ws"+strings.TrimPrefix(e.url, "http")+"/query",
		&coderws.DialOptions{Subprotocols: protocols})
	if err != nil {
		e.t.Fatal(err)
	}
	conn.SetReadLimit(8 << 20)
	c := &wsClient{t: e.t, conn: conn, msgs: make(chan wsMessage, 1000)}
	e.t.Cleanup(func() { _ = conn.CloseNow() })
	go c.read()
	return c
}

func (c *wsClient) read() {
	defer close(c.msgs)
	for {
		_, b, err := c.conn.Read(context.Background())
		if err != nil {
			c.err = err
			return
		}
		var m wsMessage
		if err := json.Unmarshal(b, &m); err != nil {
			c.err = err
			return
		}
		switch m.Type {
		case "ping":
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			_ = c.conn.Write(ctx, coderws.MessageText, mustJSON(wsMessage{Type: "pong"}))
			cancel()
		case "pong", "ka": // graphql-ws's keep-alive
		default:
			c.msgs <- m
		}
	}
}

// connect opens a connection and sends connection_init, returning an error
// unless the server acknowledges.
func (e *env) connect(token string) (*wsClient, error) {
	c := e.open()
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

var errNothing = errors.New("nothing came")

// next returns the next message other than a ping or a pong; errNothing
// when none comes within, or the error that ended the connection.
func (c *wsClient) next(within time.Duration) (wsMessage, error) {
	select {
	case m, ok := <-c.msgs:
		if !ok {
			return m, c.err
		}
		return m, nil
	case <-time.After(within):
		return wsMessage{}, errNothing
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
	return c.closeError(within).Code
}

// closeError reads until the connection closes, and returns its close code
// and reason: code -1 when it ended without a close frame, -2 when it is
// still open after within.
func (c *wsClient) closeError(within time.Duration) coderws.CloseError {
	c.t.Helper()
	deadline := time.Now().Add(within)
	for time.Now().Before(deadline) {
		_, err := c.next(time.Until(deadline))
		if errors.Is(err, errNothing) {
			break
		}
		if ce, ok := errors.AsType[coderws.CloseError](err); ok {
			return ce
		}
		if err != nil {
			return coderws.CloseError{Code: -1, Reason: err.Error()}
		}
	}
	return coderws.CloseError{Code: -2, Reason: fmt.Sprintf("still open after %v", within)}
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
	t.Parallel() // its own server and table; it mostly waits for deliveries and quiet spells
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

// TestSubscriptionSignIn: a connection_init without a valid token is
// refused with 4403 and the reason in the close frame; a token HTTP accepts
// (an expired one within the verifier's 60 s leeway) signs a connection in,
// which ends (4403) when the leeway is over; a subscription over plain HTTP
// is refused.
func TestSubscriptionSignIn(t *testing.T) {
	t.Parallel() // its own server and table; it mostly waits for deliveries and quiet spells
	e := newEnv(t)
	for _, tt := range []struct{ token, reason string }{
		{"", "sign in required"},
		{"not-a-jwt", "malformed token"},
		{e.tokenFor("old@example.com", "old@example.com", time.Now().Add(-2*time.Minute)), "token expired"},
	} {
		c := e.open()
		payload := map[string]any{}
		if tt.token != "" {
			payload["Authorization"] = "Bearer " + tt.token
		}
		c.send(wsMessage{Type: "connection_init", Payload: mustJSON(payload)})
		if ce := c.closeError(5 * time.Second); ce.Code != 4403 || !strings.Contains(strings.ToLower(ce.Reason), tt.reason) {
			t.Errorf("token %.20q: closed with %d %q, want 4403 %q", tt.token, ce.Code, ce.Reason, tt.reason)
		}
	}
	// Expired 58 s ago: within the leeway for 2 s more, over HTTP and WebSocket alike.
	e.must(e.token("short@example.com"), provision, nil)
	short := e.tokenFor("short@example.com", "short@example.com", time.Now().Add(-58*time.Second))
	e.must(short, provision, nil)
	c := e.dial(short)
	c.subscribe("1", changesSubscription, nil)
	begin := time.Now()
	if ce := c.closeError(6 * time.Second); ce.Code != 4403 || time.Since(begin) < 500*time.Millisecond {
		t.Errorf("a connection whose token expires: closed with %d %q after %v, want 4403 at the end of the leeway", ce.Code, ce.Reason, time.Since(begin))
	}

	r := e.do(e.token("ada@example.com"), `subscription { calendarChanges { kind } }`, nil)
	if len(r.Errors) == 0 {
		t.Fatalf("a subscription over HTTP POST: %+v, want an error", r)
	}
}

// TestSubscriptionFollowsTheViewersList: without calendarIds a subscription
// follows every calendar the viewer reads, a calendar shared with them
// later (JOINED, then its changes), not one they only see FREE_BUSY, and
// ends a calendar that is deleted (ENDED).
func TestSubscriptionFollowsTheViewersList(t *testing.T) {
	t.Parallel() // its own server and table; it mostly waits for deliveries and quiet spells
	e := newEnv(t)
	w := e.world("all")
	c := e.dial(w.reader)
	c.subscribe("all", changesSubscription, nil)
	time.Sleep(100 * time.Millisecond)

	d := e.must(w.outsider, `mutation { createCalendar(input: {name: "Later"}) { calendar { id } } }`, nil)
	later := str(d, "createCalendar.calendar.id")
	d = e.must(w.outsider, `mutation { createCalendar(input: {name: "Busy only"}) { calendar { id } } }`, nil)
	busy := str(d, "createCalendar.calendar.id")
	for _, share := range []struct{ cal, role string }{{busy, "FREE_BUSY"}, {later, "READER"}} {
		e.must(w.outsider, `mutation($c: ID!, $e: String!, $r: Role!) { addMember(input: {calendarId: $c, email: $e, role: $r}) { membership { id } } }`,
			map[string]any{"c": share.cal, "e": "reader-all@example.com", "r": share.role})
	}
	got := c.delivery("all", 3*time.Second)
	if str(got, "kind") != "JOINED" || str(got, "calendarId") != later || fmt.Sprint(changed(got)) != "[READER]" {
		t.Fatalf("after sharing: %v, want JOINED %s", got, later)
	}
	e.must(w.outsider, createTask, map[string]any{"c": later, "t": "in later"})
	e.must(w.outsider, createTask, map[string]any{"c": busy, "t": "in busy"})
	got = c.delivery("all", 3*time.Second)
	if str(got, "calendarId") != later || fmt.Sprint(changed(got)) != "[in later]" {
		t.Fatalf("a change in the joined calendar: %v", got)
	}
	e.must(w.writer, createTask, map[string]any{"c": w.calendarID, "t": "in team"})
	got = c.delivery("all", 3*time.Second)
	if str(got, "calendarId") != w.calendarID || fmt.Sprint(changed(got)) != "[in team]" {
		t.Fatalf("a change in the first calendar: %v", got)
	}
	e.must(w.outsider, `mutation($c: ID!) { deleteCalendar(input: {id: $c, expectedVersion: 1}) { deletedCalendarId } }`, map[string]any{"c": later})
	got = c.delivery("all", 3*time.Second)
	if str(got, "kind") != "ENDED" || str(got, "calendarId") != later {
		t.Fatalf("after the deletion: %v, want ENDED %s", got, later)
	}
	c.quiet(700 * time.Millisecond)
}

// TestSubscriptionResumesWithoutAGap: a client syncs, disconnects, misses
// changes, and subscribes again with its token: the missed changes come
// first, then the live ones; its replica then equals a full read.
func TestSubscriptionResumesWithoutAGap(t *testing.T) {
	e := newEnv(t)
	w := e.world("resume")
	const read = `query($c: ID!, $t: String) { calendar(id: $c) { changes(syncToken: $t) {
		changes { id deleted node { ... on Task { title version } ... on Calendar { name } ... on Membership { role } } } hasMore syncToken } } }`
	replica := map[string]string{}
	apply := func(cs []any) {
		for _, c := range cs {
			if get(c, "deleted") == true {
				delete(replica, str(c, "id"))
			} else {
				replica[str(c, "id")] = str(c, "node.title") + str(c, "node.name") + str(c, "node.role")
			}
		}
	}
	full := func() map[string]string {
		saved := replica
		replica = map[string]string{}
		d := e.must(w.reader, read, map[string]any{"c": w.calendarID})
		apply(get(d, "calendar.changes.changes").([]any))
		out := replica
		replica = saved
		return out
	}
	d := e.must(w.reader, read, map[string]any{"c": w.calendarID})
	apply(get(d, "calendar.changes.changes").([]any))
	token := str(d, "calendar.changes.syncToken")
	var ids []string
	for _, title := range []string{"a", "b", "c"} {
		r := e.must(w.writer, createTask, map[string]any{"c": w.calendarID, "t": title})
		ids = append(ids, str(r, "createEntry.entry.id"))
	}
	e.must(w.writer, `mutation($id: ID!) { deleteEntry(input: {id: $id, expectedVersion: 1}) { deletedEntryId } }`, map[string]any{"id": ids[1]})

	c := e.dial(w.reader)
	c.subscribe("r", changesSubscription, map[string]any{"ids": []string{w.calendarID},
		"resume": []map[string]any{{"calendarId": w.calendarID, "syncToken": token}}})
	got := c.delivery("r", 3*time.Second)
	apply(get(got, "changes").([]any))
	// The full read's token starts 30 s back (the overlap window): what
	// the world made then comes again, before what was missed.
	if got := fmt.Sprint(changed(got)); !strings.HasSuffix(got, " a -ENTRY c]") {
		t.Fatalf("the catch-up: %v, want it to end with a, b's tombstone, c", got)
	}
	e.must(w.writer, createTask, map[string]any{"c": w.calendarID, "t": "d"})
	got = c.delivery("r", 3*time.Second)
	apply(get(got, "changes").([]any))
	if fmt.Sprint(changed(got)) != "[d]" {
		t.Fatalf("live after the catch-up: %v", changed(got))
	}
	if want := full(); fmt.Sprint(replica) != fmt.Sprint(want) {
		t.Fatalf("replica %v\nwant     %v", replica, want)
	}
	c.subscribe("x", changesSubscription, map[string]any{"ids": []string{w.calendarID},
		"resume": []map[string]any{{"calendarId": w.calendarID, "syncToken": "garbage"}}})
	m, err := c.next(3 * time.Second)
	if err != nil || m.Type != "error" || !strings.Contains(string(m.Payload), "BAD_USER_INPUT") {
		t.Fatalf("a bad token: %s %s %v, want an error with BAD_USER_INPUT", m.Type, m.Payload, err)
	}
}

func withSocketTimes(ping, idle time.Duration) func(*envOptions) {
	return func(o *envOptions) { o.ping, o.idle = ping, idle }
}

// TestSubscriptionLimits: subscriptions per connection and connections per
// user are bounded; a connection without subscriptions is closed after the
// idle timeout; a client that answers no ping is cut off.
func TestSubscriptionLimits(t *testing.T) {
	t.Parallel() // its own server and table; it mostly waits for deliveries and quiet spells
	// Pings every second: gqlgen cuts a connection (with no close frame)
	// whose pong is not back before the next ping, and under -race on a
	// loaded machine a 200 ms interval cut the idle connection below.
	e := newEnv(t, withSocketTimes(time.Second, 800*time.Millisecond))
	w := e.world("limits")
	c := e.dial(w.reader)
	// One more than the limit: they start concurrently, so any one of them
	// is refused (with a `next` carrying the error, then `complete`, as
	// gqlgen answers a subscription whose resolver fails).
	for i := range graph.MaxSubscriptionsPerConnection + 1 {
		c.subscribe(fmt.Sprint(i), changesSubscription, map[string]any{"ids": []string{w.calendarID}})
	}
	m, err := c.next(3 * time.Second)
	if err != nil || m.Type != "next" || !strings.Contains(string(m.Payload), "TOO_MANY_SUBSCRIPTIONS") {
		t.Fatalf("subscription %d: %s %s %s %v, want TOO_MANY_SUBSCRIPTIONS", graph.MaxSubscriptionsPerConnection+1, m.Type, m.ID, m.Payload, err)
	}
	refused := m.ID
	if m, err = c.next(3 * time.Second); err != nil || m.Type != "complete" || m.ID != refused {
		t.Fatalf("after the refusal: %s %s %v, want complete", m.Type, m.ID, err)
	}
	c.quiet(300 * time.Millisecond) // only one refused
	other := "0"
	if refused == "0" {
		other = "1"
	}
	// One ends: another fits at once (the protocol answers a client's
	// complete with nothing).
	c.send(wsMessage{ID: other, Type: "complete"})
	c.subscribe("again", changesSubscription, map[string]any{"ids": []string{w.calendarID}})
	c.quiet(300 * time.Millisecond)

	// Each holds a subscription, so that the idle timeout (800 ms) closes
	// none of them while a starved machine dials the rest (it did under
	// -race: the eleventh then found room).
	conns := []*wsClient{c}
	for i := range graph.MaxConnectionsPerUser - 1 {
		conn := e.dial(w.reader)
		conn.subscribe(fmt.Sprint("held", i), changesSubscription, map[string]any{"ids": []string{w.calendarID}})
		conns = append(conns, conn)
	}
	if _, err := e.connect(w.reader); coderws.CloseStatus(err) != 4429 || !strings.Contains(err.Error(), "at most 10 connections") {
		t.Fatalf("connection %d: %v, want closed with 4429 and the reason", graph.MaxConnectionsPerUser+1, err)
	}
	_ = conns[1].conn.Close(coderws.StatusNormalClosure, "")
	time.Sleep(200 * time.Millisecond)
	idle := e.dial(w.reader) // one closed: another fits
	begin := time.Now()
	if ce := idle.closeError(5 * time.Second); ce.Code != coderws.StatusNormalClosure || time.Since(begin) < 500*time.Millisecond {
		t.Fatalf("an idle connection closed with %d (%s) after %v, want 1000 after the idle timeout", ce.Code, ce.Reason, time.Since(begin))
	}

	deaf := e.dial(w.writer)
	deaf.subscribe("1", changesSubscription, map[string]any{"ids": []string{w.calendarID}})
	// A client that answers no ping: a raw connection that never reads.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	raw, _, err := coderws.Dial(ctx, "ws"+strings.TrimPrefix(e.url, "http")+"/query",
		&coderws.DialOptions{Subprotocols: []string{"graphql-transport-ws"}})
	if err != nil {
		t.Fatal(err)
	}
	defer raw.CloseNow()
	if err := raw.Write(ctx, coderws.MessageText, mustJSON(wsMessage{Type: "connection_init",
		Payload: mustJSON(map[string]any{"Authorization": "Bearer " + w.writer})})); err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Second) // pings go unanswered: the server closes at twice the interval (2 s)
	for {
		if _, _, err := raw.Read(ctx); err != nil {
			if ctx.Err() != nil {
				t.Fatal("a client that answers no ping is still connected")
			}
			break
		}
	}
}

// TestSubscriptionsLeaveNothingBehind: connections with subscriptions that
// end every way (completed by the client, the socket closed, the socket cut)
// leave no goroutine and no followed log behind.
func TestSubscriptionsLeaveNothingBehind(t *testing.T) {
	e := newEnv(t)
	w := e.world("leak")
	if n, stacks := subscriptionGoroutines(); n != 0 {
		t.Fatalf("%d subscription goroutines before any subscription:\n%s", n, stacks)
	}
	for round := range 3 {
		var conns []*wsClient
		for range 4 {
			c := e.dial(w.reader)
			c.subscribe("a", changesSubscription, map[string]any{"ids": []string{w.calendarID}})
			c.subscribe("b", changesSubscription, nil)
			conns = append(conns, c)
		}
		time.Sleep(100 * time.Millisecond) // registered before the change
		e.must(w.writer, createTask, map[string]any{"c": w.calendarID, "t": fmt.Sprint("round ", round)})
		for i, c := range conns {
			for range 2 { // one on each subscription, in either order
				if m, err := c.next(3 * time.Second); err != nil || m.Type != "next" {
					t.Fatalf("a delivery: %s %v", m.Type, err)
				}
			}
			switch i % 3 {
			case 0:
				c.send(wsMessage{ID: "a", Type: "complete"})
				c.send(wsMessage{ID: "b", Type: "complete"})
				_ = c.conn.Close(coderws.StatusNormalClosure, "")
			case 1:
				_ = c.conn.Close(coderws.StatusGoingAway, "")
			default:
				_ = c.conn.CloseNow()
			}
		}
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		n, stacks := subscriptionGoroutines()
		if n == 0 && e.hub.Feeds() == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d goroutines of subscriptions and %d logs followed are left:\n%s", n, e.hub.Feeds(), stacks)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// subscriptionGoroutines counts the goroutines that serve WebSockets and
// subscriptions (the HTTP client's and server's kept-alive connections, which
// come and go with the pool, are not theirs) and returns their stacks.
func subscriptionGoroutines() (int, string) {
	buf := make([]byte, 4<<20)
	all := strings.Split(string(buf[:runtime.Stack(buf, true)]), "\n\n")
	var found []string
	for _, g := range all {
		for _, mark := range []string{"live.(*Subscription)", "graph.(*Resolver).calendarChanges", "coder/websocket", "handler/transport.(*wsConnection)"} {
			if strings.Contains(g, mark) {
				found = append(found, g)
				break
			}
		}
	}
	return len(found), strings.Join(found, "\n\n")
}

// TestSubscriptionAcrossInstances: two servers on one table; a change made
// through one reaches a subscriber of the other within a second. Five
// changes, or two with -short: each waits for the other server's poll.
func TestSubscriptionAcrossInstances(t *testing.T) {
	rounds := 5
	if testing.Short() {
		rounds = 2
	}
	a := newEnv(t)
	b := newEnv(t, func(o *envOptions) { o.table = a.store.Table() })
	w := a.world("across")
	c := b.dial(b.token("reader-across@example.com"))
	c.subscribe("1", changesSubscription, map[string]any{"ids": []string{w.calendarID}})
	time.Sleep(200 * time.Millisecond)
	var lat []time.Duration
	for i := range rounds {
		begin := time.Now()
		a.must(w.writer, createTask, map[string]any{"c": w.calendarID, "t": fmt.Sprint("through a ", i)})
		d := c.delivery("1", 2*time.Second)
		lat = append(lat, time.Since(begin))
		if fmt.Sprint(changed(d)) != fmt.Sprintf("[through a %d]", i) {
			t.Fatalf("delivery %d: %v", i, changed(d))
		}
	}
	for _, l := range lat {
		if l > time.Second {
			t.Fatalf("delivery latencies %v: one over a second", lat)
		}
	}
	t.Logf("delivery latency across instances: %v", lat)
}

// TestSubscriptionEndsOnDemotion: a reader demoted to FREE_BUSY gets ENDED
// and nothing of the calendar after it.
func TestSubscriptionEndsOnDemotion(t *testing.T) {
	t.Parallel() // its own server and table; it mostly waits for deliveries and quiet spells
	e := newEnv(t)
	w := e.world("demote")
	c := e.dial(w.reader)
	c.subscribe("1", changesSubscription, map[string]any{"ids": []string{w.calendarID}})
	time.Sleep(100 * time.Millisecond)
	e.must(w.owner, `mutation($m: ID!, $v: Int!) { changeMemberRole(input: {membershipId: $m, expectedVersion: $v, role: FREE_BUSY}) { membership { id } } }`,
		map[string]any{"m": w.readerMembershipID, "v": w.readerMembershipVersion})
	e.must(w.writer, createTask, map[string]any{"c": w.calendarID, "t": "after demotion"})
	if d := c.delivery("1", 3*time.Second); str(d, "kind") != "ENDED" {
		t.Fatalf("after the demotion: %v, want ENDED", d)
	}
	c.quiet(700 * time.Millisecond)
}
