package graph_test

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/calgraph/calgraph/graph/model"
	"github.com/calgraph/calgraph/internal/dynamotest"
)

// mustCalendarID decodes a calendar's global ID.
func mustCalendarID(t *testing.T, gid string) string {
	t.Helper()
	id, err := model.DecodeCalendarID("id", gid)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// proxy forwards TCP connections to a DynamoDB endpoint while it is up, and
// refuses them (dropping open ones) while it is down: the store becoming
// unreachable and coming back.
type proxy struct {
	ln     net.Listener
	target string
	mu     sync.Mutex
	down   bool
	conns  map[net.Conn]bool
}

func newProxy(t *testing.T, endpoint string) *proxy {
	t.Helper()
	u, err := url.Parse(endpoint)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &proxy{ln: ln, target: u.Host, conns: map[net.Conn]bool{}}
	t.Cleanup(func() { ln.Close(); p.setDown(true) })
	go p.serve()
	return p
}

func (p *proxy) url() string { return "http://" + p.ln.Addr().String() }

func (p *proxy) serve() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.mu.Lock()
		if p.down {
			p.mu.Unlock()
			c.Close()
			continue
		}
		p.conns[c] = true
		p.mu.Unlock()
		go p.forward(c)
	}
}

func (p *proxy) forward(c net.Conn) {
	defer c.Close()
	up, err := net.Dial("tcp", p.target)
	if err != nil {
		return
	}
	defer up.Close()
	p.mu.Lock()
	p.conns[up] = true
	p.mu.Unlock()
	go io.Copy(up, c)
	io.Copy(c, up)
}

func (p *proxy) setDown(down bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.down = down
	if down {
		for c := range p.conns {
			c.Close()
		}
		p.conns = map[net.Conn]bool{}
	}
}

// TestUnreachableStore cuts the server off from DynamoDB: requests fail
// fast with INTERNAL_SERVER_ERROR and no detail, /readyz says not ready, and
// once DynamoDB is back everything works again without a restart.
func TestUnreachableStore(t *testing.T) {
	t.Parallel() // seconds of retries and readiness checks, through a proxy of its own
	p := newProxy(t, dynamotest.Endpoint(t))
	e := newEnv(t, func(o *envOptions) { o.endpoint = p.url() })
	tok := e.token("cut@example.com")
	e.must(tok, `mutation { createCalendar(input: {name: "Before"}) { calendar { id } } }`, nil)

	p.setDown(true)
	start := time.Now()
	r := e.do(tok, `{ viewer { calendars { edges { node { calendar { name } } } } } }`, nil)
	took := time.Since(start)
	if took > 10*time.Second {
		t.Fatalf("a request took %v with the store unreachable, want it to fail fast", took)
	}
	t.Logf("with the store unreachable a request failed after %v", took)
	if r.code() != "UNAVAILABLE" || r.Data != nil {
		t.Fatalf("with the store unreachable: %s", r.Raw)
	}
	if status := e.get(t, "/readyz"); status != http.StatusServiceUnavailable {
		t.Fatalf("/readyz said %d with the store unreachable, want 503", status)
	}
	if status := e.get(t, "/healthz"); status != http.StatusOK {
		t.Fatalf("/healthz said %d, want 200: the process is up", status)
	}

	p.setDown(false)
	deadline := time.Now().Add(10 * time.Second)
	for e.get(t, "/readyz") != http.StatusOK {
		if time.Now().After(deadline) {
			t.Fatal("/readyz did not recover")
		}
		time.Sleep(50 * time.Millisecond)
	}
	d := e.must(tok, `{ viewer { calendars { edges { node { calendar { name } } } } } }`, nil)
	if str(d, "viewer.calendars.edges.0.node.calendar.name") != "Before" {
		t.Fatalf("after recovering: %v", d)
	}
}

func (e *env) get(t *testing.T, path string) int {
	t.Helper()
	res, err := http.Get(e.url + path)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	return res.StatusCode
}

// TestEngineFaults uses the embedded engine's failure knobs: an index that
// fails, a table that fails, batches that leave items unprocessed. Answers
// are complete and correct or a clean UNAVAILABLE, never partial. The store
// retries a failing call until the request's deadline, here a short one:
// 5 s, or 2 s with -short (two of its requests wait it out).
func TestEngineFaults(t *testing.T) {
	engine := dynamotest.Engine(t)
	if engine == nil {
		t.Skip("needs the embedded engine's fault injection")
	}
	// Most of its time is spent waiting for deadlines, and its faults are
	// its own table's: it waits beside the other parallel tests, which run
	// after every sequential one (so never beside a wave-gated plan test).
	t.Parallel()
	deadline := 5 * time.Second
	if testing.Short() {
		deadline = 2 * time.Second
	}
	e := newEnv(t, withDeadline(deadline))
	w := e.world("faults")
	e.weekly(w)
	table := e.store.Table()
	week := `query($c: ID!) { calendar(id: $c) { name entries(range: {dates: {start: "2026-01-05", end: "2026-01-12"}}) { entries { title } } } }`
	vars := map[string]any{"c": w.calendarID}

	t.Run("a failing index", func(t *testing.T) {
		engine.Faults().FailTable(table, true, "LSI1")
		r := e.do(w.reader, week, vars)
		engine.Faults().FailTable(table, false, "LSI1")
		if r.code() != "UNAVAILABLE" || get(r.Data, "calendar.name") != "Team" || get(r.Data, "calendar.entries") != nil {
			t.Fatalf("with LSI1 failing: %s", r.Raw)
		}
		if n := len(get(e.must(w.reader, week, vars), "calendar.entries.entries").([]any)); n != 1 {
			t.Fatalf("after LSI1 recovered: %d entries, want 1", n)
		}
	})
	t.Run("a failing table", func(t *testing.T) {
		engine.Faults().FailTable(table, true)
		r := e.do(w.writer, `mutation($c: ID!) { createEntry(input: {calendarId: $c, title: "lost", timing: {allDay: {date: "2026-01-07"}}}) { entry { id } } }`, vars)
		engine.Faults().FailTable(table, false)
		if r.code() != "UNAVAILABLE" {
			t.Fatalf("with the table failing: %s", r.Raw)
		}
		if n := len(get(e.must(w.reader, week, vars), "calendar.entries.entries").([]any)); n != 1 {
			t.Fatalf("a failed write left %d entries, want 1", n)
		}
	})
	t.Run("unprocessed batch items", func(t *testing.T) {
		// Every other key of each batch comes back unprocessed the first time.
		seen := map[string]bool{}
		var mu sync.Mutex
		engine.Faults().LeaveUnprocessed(table, func(n int, key map[string]string) bool {
			mu.Lock()
			defer mu.Unlock()
			k := key["PK"] + "/" + key["SK"]
			if n%2 == 0 || seen[k] {
				return false
			}
			seen[k] = true
			return true
		})
		defer engine.Faults().LeaveUnprocessed(table, nil)
		d := e.must(w.owner, `{ viewer { calendars { edges { node { role calendar { name members { edges { node { role user { email } } } } } } } } } }`, nil)
		if n := len(get(d, "viewer.calendars.edges.0.node.calendar.members.edges").([]any)); n != 3 {
			t.Fatalf("%d members read through unprocessed keys, want 3", n)
		}
		own := str(e.must(w.owner, `mutation { createCalendar(input: {name: "Gone"}) { calendar { id version } } }`, nil), "createCalendar.calendar.id")
		e.createAllDay(w.owner, own, "one")
		e.createAllDay(w.owner, own, "two")
		e.must(w.owner, `mutation($c: ID!) { deleteCalendar(input: {id: $c, expectedVersion: 1}) { deletedCalendarId } }`, map[string]any{"c": own})
		if n := countPartition(t, e, own); n != 0 {
			t.Fatalf("%d items of the deleted calendar left after unprocessed deletes", n)
		}
	})
}

// countPartition counts the items left in a calendar's partition, but its change log.
func countPartition(t *testing.T, e *env, calendarID string) int {
	t.Helper()
	out, err := dynamoClient(e).Query(context.Background(), &dynamodb.QueryInput{TableName: aws.String(e.store.Table()),
		KeyConditionExpression: aws.String("PK = :pk"), ConsistentRead: aws.Bool(true),
		ExpressionAttributeValues: map[string]types.AttributeValue{":pk": &types.AttributeValueMemberS{Value: "CAL#" + mustCalendarID(t, calendarID)}}})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, it := range out.Items {
		if et, _ := it["entityType"].(*types.AttributeValueMemberS); et == nil || et.Value != "CHANGE" {
			n++ // change records stay, until they expire, for live delivery to read
		}
	}
	return n
}
