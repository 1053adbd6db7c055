package main

import (
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"
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
		`calgraph_view_cache_hits_total 0`, // one week view: every range read once
		"calgraph_view_cache_misses_total ",
		"calgraph_view_cache_items ",
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
