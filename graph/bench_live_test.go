package graph_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	coderws "github.com/coder/websocket"

	"github.com/calgraph/calgraph/internal/dynamo"
)

// BenchmarkLiveDelivery measures live delivery end to end, through real
// graphql-transport-ws clients (coder/websocket) of two server instances on
// one table: subscribers of one calendar, half on each instance, half of
// them selecting the entry itself (its title, version and calendar), the
// other half the changes' IDs; a writer creates an entry through the first
// instance twice a second (at random moments, 250 to 750 ms apart). Reported: the time from each write's answer to
// each subscriber's delivery of it (p50 and p99) on the instance that took
// the write (woken by its commit) and on the other (which finds it by
// polling every 500 ms), the DynamoDB read calls per write of each
// instance (its polling included), and the writes that failed. It fails if a
// delivery never comes, or comes with an error or without its entry.
//
//	[CALGRAPH_TEST_DYNAMODB=http://127.0.0.1:8000] go test ./graph -run '^$' -bench LiveDelivery -benchtime 60x -timeout 30m
func BenchmarkLiveDelivery(b *testing.B) {
	for _, n := range []int{100, 1000} {
		b.Run(fmt.Sprint("subscribers=", n), func(b *testing.B) { benchmarkLiveDelivery(b, n) })
	}
}

func benchmarkLiveDelivery(b *testing.B, subscribers int) {
	writing := newEnv(b)
	other := newEnv(b, func(o *envOptions) { o.table = writing.store.Table() })
	w := writing.world(fmt.Sprint("bench", subscribers))
	users := subscribers / 10 // ten connections each, five on each instance
	tokens := make([]string, users)
	for u := range users {
		email := fmt.Sprintf("u%d-%d@example.com", u, subscribers)
		tokens[u] = writing.token(email)
		other.tokens.Store(email, tokens[u])
		writing.must(tokens[u], provision, nil)
		writing.must(w.owner, `mutation($c: ID!, $e: String!) { addMember(input: {calendarId: $c, email: $e, role: READER}) { membership { id } } }`,
			map[string]any{"c": w.calendarID, "e": email})
	}
	rec := &deliveryTimes{at: map[string][]time.Time{}}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var clients sync.WaitGroup
	defer clients.Wait()
	defer cancel()
	for i := range subscribers {
		e, where := writing, "writing"
		if i%2 == 1 {
			e, where = other, "other"
		}
		query := liveIDsSubscription
		if (i/2)%2 == 0 {
			query = liveEntrySubscription
		}
		conn := benchDial(b, ctx, e.url, tokens[i%users])
		benchSubscribe(b, ctx, conn, query, w.calendarID)
		clients.Go(func() { benchRead(ctx, conn, where, query == liveEntrySubscription, rec) })
	}
	for writing.hub.Subscriptions()+other.hub.Subscriptions() < subscribers {
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(time.Second) // the members added come and go first
	rec.reset()
	writing.rec.Reset()
	other.rec.Reset()
	written := map[string]time.Time{}
	failed := 0
	rng := rand.New(rand.NewPCG(uint64(subscribers), 2))
	b.ResetTimer()
	for i := range b.N {
		// Two writes a second, at random moments of the other instance's
		// poll interval.
		time.Sleep(time.Duration(250+rng.IntN(500)) * time.Millisecond)
		r := writing.do(w.writer, createTask, map[string]any{"c": w.calendarID, "t": fmt.Sprint("write ", i)})
		if len(r.Errors) > 0 {
			failed++
			b.Logf("write %d failed: %s", i, r.Raw)
			continue
		}
		written[str(r.Data, "createEntry.entry.id")] = time.Now()
	}
	deadline := time.Now().Add(10 * time.Second)
	for rec.count() < len(written)*subscribers && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	b.StopTimer()
	for _, where := range []string{"writing", "other"} {
		lat, missing := rec.latencies(where, written, subscribers/2)
		if len(lat) > 0 {
			b.ReportMetric(float64(lat[len(lat)/2])/1e6, where+"-p50-ms")
			b.ReportMetric(float64(lat[len(lat)*99/100])/1e6, where+"-p99-ms")
		}
		if missing > 0 {
			b.Errorf("%d deliveries on the %s instance never came", missing, where)
		}
	}
	if n := rec.brokenDeliveries(); n > 0 {
		b.Errorf("%d deliveries came with an error or without the entry they select", n)
	}
	writes := float64(b.N)
	b.ReportMetric(float64(readCalls(writing.rec.Calls()))/writes, "writing-reads/write")
	b.ReportMetric(float64(readCalls(other.rec.Calls()))/writes, "other-reads/write")
	b.ReportMetric(float64(failed), "failed-writes")
	b.Logf("%d subscribers, %d writes: writing instance %s; other instance %s", subscribers, b.N,
		callsOf(writing.rec.Calls()), callsOf(other.rec.Calls()))
}

const liveEntrySubscription = `subscription($ids: [ID!]) { calendarChanges(calendarIds: $ids) {
  kind syncToken changes { id type deleted node { ... on Task { title version updatedAt calendar { name } } } } } }`

const liveIDsSubscription = `subscription($ids: [ID!]) { calendarChanges(calendarIds: $ids) {
  kind syncToken changes { id type deleted } } }`

// readCalls counts the read calls among calls.
func readCalls(calls []dynamo.Call) int {
	n := 0
	for _, c := range calls {
		if c.Op == "Query" || c.Op == "BatchGetItem" || c.Op == "GetItem" || c.Op == "Scan" {
			n++
		}
	}
	return n
}

// deliveryTimes records when each subscriber got each change, by the
// instance it is connected to.
type deliveryTimes struct {
	mu     sync.Mutex
	at     map[string][]time.Time // instance + " " + change ID -> arrivals
	n      int
	broken int // deliveries with an error, or without the entry they select
}

func (d *deliveryTimes) add(where string, ids []string, broken bool, at time.Time) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if broken {
		d.broken++
	}
	for _, id := range ids {
		d.at[where+" "+id] = append(d.at[where+" "+id], at)
		d.n++
	}
}

func (d *deliveryTimes) reset() {
	d.mu.Lock()
	defer d.mu.Unlock()
	clear(d.at)
	d.n, d.broken = 0, 0
}

func (d *deliveryTimes) brokenDeliveries() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.broken
}

func (d *deliveryTimes) count() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.n
}

// latencies returns, sorted, the time from each write's answer to each
// delivery of it on an instance, and how many of the deliveries expected
// (per of them a write) never came.
func (d *deliveryTimes) latencies(where string, written map[string]time.Time, per int) ([]time.Duration, int) {
	d.mu.Lock()
	defer d.mu.Unlock()
	var out []time.Duration
	missing := 0
	for id, done := range written {
		got := d.at[where+" "+id]
		missing += max(0, per-len(got))
		for _, at := range got {
			out = append(out, at.Sub(done))
		}
	}
	slices.Sort(out)
	return out, missing
}

// benchDial opens a connection to url and signs in with token.
func benchDial(b *testing.B, ctx context.Context, url, token string) *coderws.Conn {
	b.Helper()
	conn, _, err := coderws.Dial(ctx, "ws"+strings.TrimPrefix(url, "http")+"/query",
		&coderws.DialOptions{Subprotocols: []string{"graphql-transport-ws"}})
	if err != nil {
		b.Fatal(err)
	}
	conn.SetReadLimit(8 << 20)
	benchWrite(b, ctx, conn, wsMessage{Type: "connection_init", Payload: mustJSON(map[string]any{"Authorization": "Bearer " + token})})
	if _, m, err := conn.Read(ctx); err != nil || !strings.Contains(string(m), "connection_ack") {
		b.Fatalf("connection_init: %s %v", m, err)
	}
	return conn
}

func benchWrite(b *testing.B, ctx context.Context, conn *coderws.Conn, m wsMessage) {
	b.Helper()
	if err := conn.Write(ctx, coderws.MessageText, mustJSON(m)); err != nil {
		b.Fatal(err)
	}
}

func benchSubscribe(b *testing.B, ctx context.Context, conn *coderws.Conn, query, calendarID string) {
	b.Helper()
	benchWrite(b, ctx, conn, wsMessage{ID: "1", Type: "subscribe", Payload: mustJSON(map[string]any{"query": query,
		"variables": map[string]any{"ids": []string{calendarID}}})})
}

// benchRead reads a connection's messages until ctx ends, answering pings
// and noting the time each change arrives, and each delivery that came with
// an error or, where the subscription selects it, without its entry.
func benchRead(ctx context.Context, conn *coderws.Conn, where string, selectsNode bool, rec *deliveryTimes) {
	defer conn.CloseNow()
	for {
		_, data, err := conn.Read(ctx)
		if err != nil {
			return
		}
		at := time.Now()
		var m struct {
			Type    string `json:"type"`
			Payload struct {
				Errors []json.RawMessage `json:"errors"`
				Data   struct {
					CalendarChanges struct {
						Changes []struct {
							ID      string          `json:"id"`
							Deleted bool            `json:"deleted"`
							Node    json.RawMessage `json:"node"`
						} `json:"changes"`
					} `json:"calendarChanges"`
				} `json:"data"`
			} `json:"payload"`
		}
		if json.Unmarshal(data, &m) != nil {
			continue
		}
		switch m.Type {
		case "ping":
			_ = conn.Write(ctx, coderws.MessageText, []byte(`{"type":"pong"}`))
		case "next":
			var ids []string
			broken := len(m.Payload.Errors) > 0
			for _, c := range m.Payload.Data.CalendarChanges.Changes {
				ids = append(ids, c.ID)
				broken = broken || selectsNode && !c.Deleted && (len(c.Node) == 0 || string(c.Node) == "null")
			}
			rec.add(where, ids, broken, at)
		}
	}
}
