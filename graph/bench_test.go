package graph_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"slices"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/calgraph/calgraph/internal/benchdata"
	"github.com/calgraph/calgraph/internal/calendar"
	"github.com/calgraph/calgraph/internal/dynamo"
	"github.com/calgraph/calgraph/internal/dynamotest"
	"github.com/calgraph/calgraph/internal/recurrence"
)

// The benchmarks run the canonical week view and the agenda through the real
// HTTP handler against a realistic data set, on the embedded engine or, when
// CALGRAPH_TEST_DYNAMODB names it, Amazon's DynamoDB Local:
//
//	[CALGRAPH_TEST_DYNAMODB=http://127.0.0.1:8000] [CALGRAPH_BENCH_LATENCY=5ms] \
//	  [CALGRAPH_BENCH_FILLER=195000] go test ./graph -run XXX -bench . -benchtime 200x
//
// CALGRAPH_BENCH_FILLER adds that many entries of another user's calendars to
// the table, to show that a view costs what it returns, not the table's size.
// CALGRAPH_BENCH_LATENCY adds that latency to every DynamoDB call, to show that
// a request's latency tracks its waves times the per-call latency, not its
// number of calls. Reported per request: latency percentiles, throughput (one
// client at a time), process CPU (server and the in-process client; DynamoDB
// Local runs in its own process), DynamoDB calls and waves.

const (
	benchCalendars = 20
	benchEntries   = 5000
)

const weekViewQuery = `{ viewer { calendars(first: 20) { edges { node { role calendar { id name color
	entries(range: {dates: {start: "2026-06-15", end: "2026-06-22"}}) { timeZone entries {
		__typename id title color tags calendar { id name }
		... on TimedEntry { start end timeZone } ... on AllDayEntry { date }
		... on MultiDayEntry { startDate endDate } ... on Task { dueDate due completed } } } } } } } } }`

const agendaQuery = `{ viewer { agenda(range: {dates: {start: "2026-06-15", end: "2026-06-22"}}) { timeZone entries {
	__typename id title calendar { id name color viewerRole }
	... on TimedEntry { start end } ... on AllDayEntry { date } ... on MultiDayEntry { startDate endDate } ... on Task { dueDate due } } } } }`

func BenchmarkWeekView(b *testing.B) { benchmarkQuery(b, weekViewQuery, benchData) }

func BenchmarkAgenda(b *testing.B) { benchmarkQuery(b, agendaQuery, benchData) }

const membersQuery = `{ viewer { calendars(first: 20) { edges { node { role calendar { id name
	members(first: 20) { edges { node { role user { name email } } } } } } } } } }`

func BenchmarkMembers(b *testing.B) { benchmarkQuery(b, membersQuery, benchData) }

// benchmarkQuery measures one query against the data set seed returns.
func benchmarkQuery(b *testing.B, query string, seed func(*testing.B, []func(*envOptions)) (*env, string)) {
	body, _ := json.Marshal(map[string]any{"query": query})
	benchmarkRequests(b, seed, func(*env, string) []byte { return body })
}

// benchmarkRequests measures the requests next makes, one per iteration (20
// more warm up first), against the data set seed returns.
func benchmarkRequests(b *testing.B, seed func(*testing.B, []func(*envOptions)) (*env, string), next func(*env, string) []byte) {
	var opts []func(*envOptions)
	if l := os.Getenv("CALGRAPH_BENCH_LATENCY"); l != "" {
		d, err := time.ParseDuration(l)
		if err != nil {
			b.Fatalf("CALGRAPH_BENCH_LATENCY: %v", err)
		}
		opts = append(opts, withLatency(d))
	}
	if os.Getenv("CALGRAPH_BENCH_COLD") != "" { // every view reads its calendars' entries
		opts = append(opts, withoutViewCache())
	}
	e, tok := seed(b, opts)
	for range 20 { // warm the identity cache, the query cache and DynamoDB Local
		e.post(tok, next(e, tok))
	}

	latencies := make([]time.Duration, 0, b.N)
	calls, waves := 0, 0
	cpuBefore := cpuTime()
	b.ResetTimer()
	for range b.N {
		body := next(e, tok)
		e.rec.Reset()
		start := time.Now()
		e.post(tok, body)
		latencies = append(latencies, time.Since(start))
		c := e.rec.Calls()
		calls, waves = calls+len(c), waves+dynamo.Waves(c)
	}
	b.StopTimer()
	cpu := cpuTime() - cpuBefore
	if os.Getenv("CALGRAPH_BENCH_TRACE") != "" {
		b.Logf("latencies in order: %v", latencies)
	}
	slices.Sort(latencies)
	var total time.Duration
	for _, l := range latencies {
		total += l
	}
	if os.Getenv("CALGRAPH_BENCH_TRACE") != "" {
		for _, c := range e.rec.Calls() {
			b.Logf("%+v", c)
		}
	}
	b.ReportMetric(float64(b.N)/total.Seconds(), "req/s")
	b.ReportMetric(ms(latencies[len(latencies)/2]), "p50-ms")
	b.ReportMetric(ms(latencies[min(len(latencies)-1, len(latencies)*99/100)]), "p99-ms")
	b.ReportMetric(ms(cpu)/float64(b.N), "cpu-ms/req")
	b.ReportMetric(float64(calls)/float64(b.N), "ddb-calls/req")
	b.ReportMetric(float64(waves)/float64(b.N), "ddb-waves/req")
}

// post sends a prepared operation and checks its answer without decoding it,
// so the client's own work stays small next to the server's.
func (e *env) post(token string, body []byte) {
	req, _ := http.NewRequest(http.MethodPost, e.url+"/query", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+token)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer res.Body.Close()
	out, _ := io.ReadAll(res.Body)
	if res.StatusCode != http.StatusOK || bytes.Contains(out, []byte(`"errors"`)) {
		e.t.Fatalf("status %d: %s", res.StatusCode, out)
	}
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// seededTable is a seeded table, shared by every benchmark run of the
// process: Go runs a benchmark several times while it sizes b.N.
type seededTable struct {
	once sync.Once
	name string
}

// env returns an env serving the table (seeding it on first use) and the
// token of the user who owns the data.
func (t *seededTable) env(b *testing.B, opts []func(*envOptions), seed func(*testing.B) string) (*env, string) {
	b.Helper()
	t.once.Do(func() { t.name = seed(b) })
	if t.name == "" {
		b.Fatal("seeding the benchmark table failed")
	}
	opts = append(opts, func(o *envOptions) { o.table = t.name })
	e := newEnv(b, opts...)
	return e, e.token("bench@example.com")
}

var benchTable seededTable

// benchData serves 20 calendars and 5,000 entries (seedBenchTable).
func benchData(b *testing.B, opts []func(*envOptions)) (*env, string) {
	return benchTable.env(b, opts, seedBenchTable)
}

// benchOwner creates a table (kept until the process ends) with n calendars
// of bench@example.com, shared with members, and returns the table's name,
// the calendars, a store on it and a context acting as their owner.
func benchOwner(b *testing.B, n int, members []string) (string, []string, *dynamo.Store, context.Context) {
	db := dynamotest.Client(b)
	name := fmt.Sprintf("bench-%d", time.Now().UnixNano())
	if err := dynamo.EnsureTable(context.Background(), db, name); err != nil {
		b.Fatal(err)
	}
	e := newEnv(b, func(o *envOptions) { o.table = name })
	e.must(e.token("bench@example.com"), provision, nil)
	cals := seedCalendars(b, e, "bench@example.com", n, members)
	s := dynamo.New(dynamoClient(e), name, recurrence.Engine{})
	id, _, err := s.ResolveIdentity(context.Background(), calendar.SignUp{Identity: calendar.Identity{Provider: "calgraph-local", Subject: "bench@example.com"}, Email: "bench@example.com"})
	if err != nil {
		b.Fatal(err)
	}
	return name, cals, s, calendar.WithViewer(context.Background(), calendar.Viewer{ID: id})
}

// seedBenchTable creates a table holding 20 calendars and 5,000 entries of
// bench@example.com.
func seedBenchTable(b *testing.B) string {
	name, cals, s, ctx := benchOwner(b, benchCalendars, []string{"m1@example.com"})
	rng := rand.New(rand.NewPCG(1, 2))
	work := make(chan calendar.NewEntry)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for n := range work {
				if _, _, err := s.CreateEntry(ctx, n); err != nil {
					b.Error(err)
				}
			}
		})
	}
	for i := range benchEntries {
		work <- benchdata.Entry(rng, cals[i%len(cals)], i)
	}
	close(work)
	wg.Wait()
	if filler, _ := strconv.Atoi(os.Getenv("CALGRAPH_BENCH_FILLER")); filler > 0 {
		seedFiller(b, s, name, filler)
	}
	return name
}

// seedFiller adds n entries in 200 calendars of another user to the table.
func seedFiller(b *testing.B, s *dynamo.Store, table string, n int) {
	id, _, err := s.ResolveIdentity(context.Background(), calendar.SignUp{Identity: calendar.Identity{Provider: "calgraph-local", Subject: "filler@example.com"}, Email: "filler@example.com"})
	if err != nil {
		b.Fatal(err)
	}
	ctx := calendar.WithViewer(context.Background(), calendar.Viewer{ID: id})
	var cals []string
	for i := range 200 {
		c, _, err := s.CreateCalendar(ctx, calendar.NewCalendar{Name: fmt.Sprint("filler ", i)})
		if err != nil {
			b.Fatal(err)
		}
		cals = append(cals, c.ID)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	work := make(chan calendar.NewEntry)
	var wg sync.WaitGroup
	for range 16 {
		wg.Go(func() {
			for e := range work {
				if _, _, err := s.CreateEntry(ctx, e); err != nil {
					b.Error(err)
				}
			}
		})
	}
	start := time.Now()
	for i := range n {
		work <- benchdata.Entry(rng, cals[i%len(cals)], i)
	}
	close(work)
	wg.Wait()
	b.Logf("filler: %d entries in %s", n, time.Since(start).Round(time.Millisecond))
}
