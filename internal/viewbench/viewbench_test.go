package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestEndToEnd runs the whole benchmark at a tiny scale against the DynamoDB
// Local that CALGRAPH_TEST_DYNAMODB names, with the server's view cache off
// (-cold). It seeds one calendar with the
// default 250 entries, not fewer: the first 20 that benchdata.Entry draws all
// fall outside the views' week, and a view that returns nothing would prove
// little.
func TestEndToEnd(t *testing.T) {
	store := os.Getenv("CALGRAPH_TEST_DYNAMODB")
	if store == "" {
		t.Skip("set CALGRAPH_TEST_DYNAMODB to DynamoDB Local's endpoint (e.g. http://127.0.0.1:8000) to run the benchmark end to end")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	o := options{endpoint: store, stores: []string{storeDynamoDB, storeEmbedded}, calendars: []int{1}, perCalendar: 250, views: views, n: 5, rounds: 1, cold: true}
	rep, err := bench(ctx, o, t.Output())
	if err != nil {
		t.Fatal(err)
	}
	if got, want := len(rep.results), 2*len(views); got != want {
		t.Fatalf("got %d results, want %d (one binary on two stores, every view)", got, want)
	}
	if rep.storePID == 0 {
		t.Errorf("DynamoDB Local's process at %s was not found: its CPU is not measured", store)
	}
	for _, r := range rep.results {
		if r.store == storeEmbedded {
			if len(r.samples) != 1 || r.medianCPU() < 0 || r.perView(func(s sample) int { return s.returned }) <= 0 || r.latency(50) <= 0 {
				t.Errorf("%s on embedded: %d samples, %.2f ms CPU/view, %.1f items returned/view, p50 %.2f ms; want 1, at least 0 (5 requests may take less than a clock tick), positive, positive",
					r.view, len(r.samples), r.medianCPU(), r.perView(func(s sample) int { return s.returned }), r.latency(50))
			}
			if cells := strings.Split(row(r), " | "); cells[9] != "–" || cells[4] != "–" {
				t.Errorf("%s on embedded: calls/view %q, DynamoDB Local CPU %q; want – for both: neither is counted there", r.view, cells[9], cells[4])
			}
			continue
		}
		if _, ok := r.storeCPUPerView(); !ok {
			t.Errorf("%s on dynamodb: DynamoDB Local's CPU not measured", r.view)
		}
		if got := len(r.samples); got != 1 {
			t.Errorf("%s: got %d samples, want 1", r.view, got)
			continue
		}
		checks := []struct {
			what string
			got  float64
			ok   bool
		}{
			{"DynamoDB calls/view", r.perView(func(s sample) int { return s.calls }), r.perView(func(s sample) int { return s.calls }) >= 1},
			{"waves/view", r.perView(func(s sample) int { return s.waves }), r.perView(func(s sample) int { return s.waves }) >= 1},
			{"server CPU ms/view", r.medianCPU(), r.medianCPU() >= 0},
			{"items returned/view", r.perView(func(s sample) int { return s.returned }), r.perView(func(s sample) int { return s.returned }) > 0},
			// A search reads its calendar whole once, in the warm-up, then
			// only the change log since: possibly nothing.
			{"items read/view", r.perView(func(s sample) int { return s.itemsRead }), r.perView(func(s sample) int { return s.itemsRead }) > 0 || r.view == "search"},
			{"p50 ms", r.latency(50), r.latency(50) > 0},
		}
		for _, c := range checks {
			if !c.ok {
				t.Errorf("%s: %s = %v, not sane", r.view, c.what, c.got)
			}
		}
		if allocs, ok := r.runtimePerView(func(d runtimeDelta) uint64 { return d.mallocs }); ok != r.binary.debug || (ok && allocs <= 0) {
			t.Errorf("%s: allocs/view = %v, reported %v; want reported exactly when the binary has -debug-addr (%v), and positive", r.view, allocs, ok, r.binary.debug)
		}
	}
	var out bytes.Buffer
	if err := rep.write(&out); err != nil {
		t.Fatal(err)
	}
	if rep.bins[0].cold != "-view-cache-bytes" || !strings.Contains(out.String(), "without its view cache (-cold)") {
		t.Errorf("the server ran with its view cache, or the report does not say it did not:\n%s", out.String())
	}
	if !slices.Contains(rep.bins[0].quiet, "-live-poll") || !slices.Contains(rep.bins[0].quiet, "-webhook-poll") ||
		!strings.Contains(out.String(), "background polls an hour apart (-live-poll 1h") {
		t.Errorf("the server ran with its background polls (%q), or the report does not say it did not:\n%s", rep.bins[0].quiet, out.String())
	}
	for _, v := range views {
		if !strings.Contains(out.String(), "\n## "+v.name+"\n") {
			t.Errorf("the report has no table for %s:\n%s", v.name, out.String())
		}
	}

	// Concurrent clients: every request answered and counted, the
	// throughput reported, waves not.
	o = options{endpoint: store, stores: []string{storeDynamoDB}, calendars: []int{1}, perCalendar: 50, views: views[:1], n: 12, rounds: 1, clients: 4}
	if rep, err = bench(ctx, o, t.Output()); err != nil {
		t.Fatal(err)
	}
	r := rep.results[0]
	if len(r.samples[0].latencies) != 12 || r.throughput() <= 0 || r.perView(func(s sample) int { return s.calls }) < 1 || wavesCell(r) != "–" {
		t.Errorf("4 clients: %d latencies, %.1f views/s, %.1f calls/view, waves %s; want 12, > 0, >= 1, –",
			len(r.samples[0].latencies), r.throughput(), r.perView(func(s sample) int { return s.calls }), wavesCell(r))
	}
}

// TestParseStatTicks reads utime+stime out of /proc/<pid>/stat lines.
func TestParseStatTicks(t *testing.T) {
	// Fields 3 to 17: state ppid pgrp session tty_nr tpgid flags minflt
	// cminflt majflt cmajflt utime stime cutime cstime, then more.
	const rest = " S 1 4321 4321 0 -1 4194560 1000 0 5 0 150 42 7 9 20 0 12 0 777 123456 789"
	tests := []struct {
		name string
		stat string
		want uint64
	}{
		{"plain name", "4321 (calgraph-now)" + rest, 192},
		{"name with spaces and parentheses", "4321 (a (b) ) c) 1 2)" + rest, 192},
		{"name that looks like fields", "4321 (S 1 2 3 4 5 6 7 8 9 10 11 999 999)" + rest, 192},
		{"trailing newline", "4321 (calgraph)" + rest + "\n", 192},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseStatTicks(tt.stat)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("got %d ticks, want %d", got, tt.want)
			}
		})
	}
	for _, bad := range []string{"", "4321 calgraph S 1", "4321 (calgraph) S 1 2 3", "4321 (calgraph) S 1 4321 4321 0 -1 4194560 1000 0 5 0 x 42 7"} {
		if _, err := parseStatTicks(bad); err == nil {
			t.Errorf("parseStatTicks(%q) succeeded, want an error", bad)
		}
	}
}

// TestProcessCPU reads this very process's CPU time.
func TestProcessCPU(t *testing.T) {
	cpu, err := processCPU(os.Getpid(), clockTick(context.Background()))
	if err != nil {
		t.Fatal(err)
	}
	if cpu < 0 {
		t.Errorf("got %v of CPU, want at least 0", cpu)
	}
}

// TestListenerPID finds this very process by a port it listens on, as it
// finds DynamoDB Local's.
func TestListenerPID(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	pid, err := listenerPID("http://" + ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	if pid != os.Getpid() {
		t.Errorf("got pid %d, want this process's, %d", pid, os.Getpid())
	}
	ln.Close()
	if pid, err := listenerPID("http://" + ln.Addr().String()); err == nil {
		t.Errorf("found pid %d listening on a closed port", pid)
	}
}

// Canned DynamoDB answers.
const (
	queryAnswer    = `{"Count":2,"Items":[{"pk":{"S":"a"}},{"pk":{"S":"b"}}],"ScannedCount":5}`
	scanAnswer     = `{"Count":0,"Items":[],"ScannedCount":3}`
	getAnswer      = `{"Item":{"pk":{"S":"a"}}}`
	batchAnswer    = `{"Responses":{"t":[{"pk":{"S":"a"}},{"pk":{"S":"b"}},{"pk":{"S":"c"}}],"u":[{"pk":{"S":"d"}}]},"UnprocessedKeys":{}}`
	transactAnswer = `{"Responses":[{"Item":{"pk":{"S":"a"}}},{},{"Item":{"pk":{"S":"b"}}}]}`
	emptyAnswer    = `{}`
	errorAnswer    = `{"__type":"com.amazonaws.dynamodb.v20120810#ValidationException","message":"no"}`
)

// fakeDynamoDB answers each request with the status and answer its body
// names in "Status" and "Answer".
func fakeDynamoDB(t *testing.T) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var in struct {
			Answer string
			Status int
		}
		if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
			t.Errorf("fake DynamoDB: %v", err)
		}
		w.Header().Set("Content-Type", "application/x-amz-json-1.0")
		w.Header().Set("X-Amz-Crc32", "12345")
		w.WriteHeader(in.Status)
		_, _ = io.WriteString(w, in.Answer)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// send posts a DynamoDB request through p and returns the answer.
func send(t *testing.T, p *proxy, op, body string) (status int, answer string, header http.Header) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, p.url+"/", strings.NewReader(body))
	req.Header.Set("X-Amz-Target", "DynamoDB_20120810."+op)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Errorf("%s through the proxy: %v", op, err) // not Fatal: some callers are goroutines
		return 0, "", nil
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b), res.Header
}

func newProxy(t *testing.T, target string) *proxy {
	t.Helper()
	p, err := startProxy(target)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Close() })
	return p
}

// TestProxyCounts checks that the proxy forwards calls unchanged and counts
// each one's operation, index, items read and answer bytes.
func TestProxyCounts(t *testing.T) {
	p := newProxy(t, fakeDynamoDB(t).URL)
	type counted struct {
		Op, Index    string
		Items, Bytes int
	}
	tests := []struct {
		op, index, answer string
		status            int
		items             int
	}{
		{"Query", "byDay", queryAnswer, http.StatusOK, 5}, // the scanned count: filtered out items were read too
		{"Scan", "", scanAnswer, http.StatusOK, 3},
		{"GetItem", "", getAnswer, http.StatusOK, 1},
		{"GetItem", "", emptyAnswer, http.StatusOK, 0}, // no such item
		{"BatchGetItem", "", batchAnswer, http.StatusOK, 4},
		{"TransactGetItems", "", transactAnswer, http.StatusOK, 2},
		{"PutItem", "", emptyAnswer, http.StatusOK, 0},
		{"Query", "", errorAnswer, http.StatusBadRequest, 0},
	}
	var want []counted
	for _, tt := range tests {
		body, _ := json.Marshal(map[string]any{"TableName": "t", "IndexName": tt.index, "Answer": tt.answer, "Status": tt.status})
		status, answer, header := send(t, p, tt.op, string(body))
		if status != tt.status || answer != tt.answer {
			t.Errorf("%s: got %d %s, want %d %s", tt.op, status, answer, tt.status, tt.answer)
		}
		if got := header.Get("X-Amz-Crc32"); got != "12345" {
			t.Errorf("%s: got X-Amz-Crc32 %q, want DynamoDB's", tt.op, got)
		}
		want = append(want, counted{tt.op, tt.index, tt.items, len(tt.answer)})
	}
	var got []counted
	calls := p.Calls()
	for _, c := range calls {
		if c.Err != nil {
			t.Errorf("%s: %v", c.Op, c.Err)
		}
		got = append(got, counted{c.Op, c.Index, c.Items, c.Bytes})
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("calls (-want +got):\n%s", diff)
	}
	if got, want := waves(calls), len(tests); got != want {
		t.Errorf("got %d waves of calls sent one after another, want %d", got, want)
	}
	p.Reset()
	if got := p.Calls(); len(got) != 0 {
		t.Errorf("got %d calls after Reset, want none", len(got))
	}
}

// TestProxyWaves checks that calls that overlap count as one wave and a call
// sent after their answers as the next.
func TestProxyWaves(t *testing.T) {
	var arrived sync.WaitGroup
	arrived.Add(2)
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Amz-Target") == "DynamoDB_20120810.GetItem" {
			arrived.Done()
			arrived.Wait() // both GetItems are under way before either ends
		}
		_, _ = io.WriteString(w, `{}`)
	}))
	t.Cleanup(upstream.Close)
	p := newProxy(t, upstream.URL)
	var wg sync.WaitGroup
	for range 2 {
		wg.Go(func() { send(t, p, "GetItem", `{}`) })
	}
	wg.Wait()
	send(t, p, "PutItem", `{}`)
	if got := waves(p.Calls()); got != 2 {
		t.Errorf("got %d waves, want 2: two overlapping calls, then one", got)
	}
}

// TestProxyRefusesEncodedAnswers checks that an answer the proxy cannot
// count is an error, not zero items.
func TestProxyRefusesEncodedAnswers(t *testing.T) {
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Encoding", "gzip")
		_, _ = io.WriteString(w, "not really gzip")
	}))
	t.Cleanup(upstream.Close)
	p := newProxy(t, upstream.URL)
	send(t, p, "Query", `{}`)
	if calls := p.Calls(); len(calls) != 1 || calls[0].Err == nil {
		t.Errorf("got calls %+v, want one with an error", calls)
	}
}

// TestLostCallsAreCountedNotFatal: a call DynamoDB never answers (nothing
// listens) is marked lost, counted, and does not fail the sample, whose
// request the server retried; any other failed call does.
func TestLostCallsAreCountedNotFatal(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	gone := "http://" + ln.Addr().String()
	ln.Close()
	p := newProxy(t, gone)
	if status, _, _ := send(t, p, "Query", `{}`); status != http.StatusBadGateway {
		t.Fatalf("got HTTP %d from a proxy to nothing, want 502", status)
	}
	calls := p.Calls()
	if len(calls) != 1 || !calls[0].Lost {
		t.Fatalf("got calls %+v, want one, lost", calls)
	}
	tg := &target{bin: &binary{label: "now"}}
	var s sample
	if err := tg.count(calls, views[0], &s); err != nil || s.calls != 1 || s.lost != 1 {
		t.Errorf("count of a lost call: %v, %d calls, %d lost; want no error, 1, 1", err, s.calls, s.lost)
	}
	calls[0].Lost = false
	if err := tg.count(calls, views[0], &s); err == nil {
		t.Error("count of a failed call that was answered succeeded, want an error")
	}
}

func TestParseStatusMemory(t *testing.T) {
	status := "Name:\tcalgraph\nVmPeak:\t 2000 kB\nVmHWM:\t   51200 kB\nVmRSS:\t   40960 kB\nThreads:\t9\n"
	rss, peak, err := parseStatusMemory(status)
	if err != nil || rss != 40<<20 || peak != 50<<20 {
		t.Fatalf("got %d, %d, %v; want 40 MiB, 50 MiB", rss, peak, err)
	}
	for _, bad := range []string{"Name:\tx\n", "VmHWM:\t1 kB\nVmRSS:\tmany kB\n"} {
		if _, _, err := parseStatusMemory(bad); err == nil {
			t.Errorf("%q: got no error", bad)
		}
	}
}

// TestSweepRangesDiffer: the sweep view's first 1,825 requests are each
// over a range of their own, of 7 to 11 days.
func TestSweepRangesDiffer(t *testing.T) {
	seen := map[string]bool{}
	for i := range 365 * 5 {
		r := sweepRange(i, nil)
		k := r["start"].(string) + "/" + r["end"].(string)
		if seen[k] {
			t.Fatalf("request %d repeats the range %s", i, k)
		}
		seen[k] = true
	}
}

func TestEveryViewIsFound(t *testing.T) {
	for _, name := range []string{"week", "agenda", "members", "sweep", "search", "create"} {
		if v, err := findViews(name); err != nil || len(v) != 1 || v[0].name != name {
			t.Errorf("%s: got %v, %v", name, v, err)
		}
	}
}
