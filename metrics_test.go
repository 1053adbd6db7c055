package main

import (
	"context"
	"flag"
	"io"
	"log/slog"
	"net/http"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/calgraph/calgraph/internal/config"
)

// TestMetrics scrapes the metrics listener after a week view and a refused
// operation: requests by operation and outcome, their latency, DynamoDB
// calls by operation and result, requests in flight and Go's runtime.
func TestMetrics(t *testing.T) {
	in := serve(t, settings(t, t.TempDir(), true, "CALGRAPH_METRICS_ADDR", "127.0.0.1:0"))
	in.query(t, `mutation { createCalendar(input: {name: "Team"}) { calendar { id } } }`)
	in.query(t, `query WeekView { viewer { calendars { edges { node { calendar { name
		entries(range: {dates: {start: "2026-03-02", end: "2026-03-09"}}) { entries { title } } } } } } } }`)
	post(t, in, `query Broken { nope }`)
	addr := regexp.MustCompile(`metrics on (http://\S+/metrics)`).FindStringSubmatch(in.out.String())
	if addr == nil {
		t.Fatalf("no metrics address printed:\n%s", in.out.String())
	}
	res, err := http.Get(addr[1])
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	scrape := string(b)
	for _, want := range []string{
		`calgraph_graphql_requests_total{operation="WeekView",outcome="ok"} 1`,
		// Refused before it ran, and sent without operationName: unnamed.
		`calgraph_graphql_requests_total{operation="anonymous",outcome="GRAPHQL_VALIDATION_FAILED"} 1`,
		`calgraph_graphql_request_duration_seconds_count{operation="WeekView"} 1`,
		`calgraph_dynamodb_calls_total{operation="Query",result="ok"}`,
		`calgraph_dynamodb_calls_total{operation="BatchGetItem",result="ok"}`,
		`calgraph_dynamodb_call_duration_seconds_bucket{operation="Query",le="0.5"}`,
		`calgraph_http_requests_in_flight 0`, // the scrape is not one of the API's requests
		`calgraph_live_subscriptions 0`,
		`calgraph_live_logs_followed 0`,
		"calgraph_reminder_tasks_total ",
		`calgraph_reminder_task_failures_total 0`,
		`calgraph_view_cache_hits_total 0`, // one week view: every range read once
		"calgraph_view_cache_misses_total ",
		"calgraph_view_cache_items ",
		"calgraph_view_cache_bytes ",
		"calgraph_search_index_builds_total ",
		"calgraph_search_index_bytes ",
		"go_goroutines ",
		"process_cpu_seconds_total ",
	} {
		if !strings.Contains(scrape, want) {
			t.Errorf("the scrape lacks %q", want)
		}
	}
}

// TestAccessLog: a GraphQL request's log line names its operation, the codes
// of its errors and the signed-in user.
func TestAccessLog(t *testing.T) {
	in := serve(t, settings(t, t.TempDir(), false, "CALGRAPH_LOG_LEVEL", "info"))
	in.query(t, `query Mine { viewer { user { id } } }`)
	post(t, in, `query Missing { node(id: "Q2FsZW5kYXI6MDFhMjBhYzgtZWI0Yy03NDc1LTljNzUtZTRlYmQ0NTI4MTcz") { id } }`)
	logs := in.out.String()
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(`msg=request .*path=/query status=200 .*operation=Mine user=[0-9a-f-]{36}`),
		regexp.MustCompile(`msg=request .*path=/query status=200 .*operation=Missing codes=NOT_FOUND user=[0-9a-f-]{36}`),
	} {
		if !want.MatchString(logs) {
			t.Errorf("no log line matches %s in:\n%s", want, logs)
		}
	}
}

// TestDocsListEveryMetric keeps the metrics table of docs/operations.md equal
// to the metrics the server registers: none undocumented (the view cache's
// were), none documented that it does not have.
func TestDocsListEveryMetric(t *testing.T) {
	ctx := context.Background()
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	cfg, err := config.Load(fs, nil, settings(t, t.TempDir(), false, "CALGRAPH_METRICS_ADDR", "127.0.0.1:0"))
	if err != nil {
		t.Fatal(err)
	}
	st, err := open(ctx, cfg, slog.New(slog.DiscardHandler), command{name: "serve"})
	if err != nil {
		t.Fatal(err)
	}
	defer st.close()
	if _, _, err := st.api(ctx); err != nil { // registers the metrics read from the store and hub
		t.Fatal(err)
	}
	registered := st.metrics.Names()
	documented := documentedMetrics(t)
	for _, name := range registered {
		if !slices.Contains(documented, name) {
			t.Errorf("%s is registered but not in %s's metrics table", name, metricsDoc)
		}
	}
	for _, name := range documented {
		if !slices.Contains(registered, name) {
			t.Errorf("%s's metrics table lists %s, which the server does not register", metricsDoc, name)
		}
	}
}

// metricsDoc is the page that documents the metrics, for operators.
const metricsDoc = "docs/operations.md"

// documentedMetrics returns the calgraph_ metrics in the first column of
// metricsDoc's metrics table.
func documentedMetrics(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile(metricsDoc)
	if err != nil {
		t.Fatal(err)
	}
	_, table, ok := strings.Cut(string(b), "\n| metric | labels | what |\n")
	if !ok {
		t.Fatalf(`%s has no "| metric | labels | what |" table`, metricsDoc)
	}
	table, _, _ = strings.Cut(table, "\n\n")
	var names []string
	for _, m := range regexp.MustCompile("(?m)^\\| `(calgraph_[a-z_]+)` \\|").FindAllStringSubmatch(table, -1) {
		names = append(names, m[1])
	}
	if len(names) == 0 {
		t.Fatalf("%s's metrics table lists no calgraph_ metric", metricsDoc)
	}
	return names
}
