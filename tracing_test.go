package main

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	coltrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"
)

// TestTracing runs a week view with a caller's traceparent against a server
// exporting to an OTLP/HTTP receiver: the spans continue the caller's trace,
// and the HTTP request's span holds the operation's, which holds loader
// batches and DynamoDB calls.
func TestTracing(t *testing.T) {
	var mu sync.Mutex
	spans := map[string]string{} // span ID → name
	parents := map[string]string{}
	var traces []string
	receiver := otlpReceiver(t, func(s *tracepb.Span) {
		mu.Lock()
		defer mu.Unlock()
		id := hex.EncodeToString(s.SpanId)
		spans[id], parents[id] = s.Name, hex.EncodeToString(s.ParentSpanId)
		traces = append(traces, hex.EncodeToString(s.TraceId))
	})
	in := serve(t, settings(t, t.TempDir(), false, "CALGRAPH_OTLP_ENDPOINT", receiver.URL))
	in.query(t, `mutation { createCalendar(input: {name: "Traced"}) { calendar { id } } }`)
	const traceID, callerSpan = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
	body, _ := json.Marshal(map[string]any{"query": `query WeekView { viewer { calendars { edges { node { calendar { name
		entries(range: {dates: {start: "2026-03-02", end: "2026-03-09"}}) { entries { title } } } } } } } }`})
	req, _ := http.NewRequest(http.MethodPost, in.url+"/query", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+in.token)
	req.Header.Set("traceparent", "00-"+traceID+"-"+callerSpan+"-01")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if err := in.stop(); err != nil { // flushes the exporter
		t.Fatal(err)
	}

	mu.Lock()
	defer mu.Unlock()
	// ancestors returns the names above a span, up to the caller's.
	ancestors := func(id string) []string {
		var names []string
		for p := parents[id]; p != "" && p != callerSpan; p = parents[p] {
			names = append(names, spans[p])
		}
		return names
	}
	var found = map[string]bool{}
	for id, name := range spans {
		if !inTrace(id, parents, callerSpan) {
			continue
		}
		found[name] = true
		switch name {
		case "DynamoDB.Query", "DynamoDB.BatchGetItem", "loader.batch":
			if a := ancestors(id); !contains(a, "graphql WeekView") || !contains(a, "POST /query") {
				t.Errorf("%s has ancestors %v, want the operation's and the request's spans", name, a)
			}
		}
	}
	for _, want := range []string{"POST /query", "graphql WeekView", "loader.batch", "DynamoDB.BatchGetItem", "DynamoDB.Query"} {
		if !found[want] {
			t.Errorf("no span %q in the caller's trace; spans: %v", want, spans)
		}
	}
	if !contains(traces, traceID) {
		t.Errorf("no span continues the caller's trace %s", traceID)
	}
}

// inTrace reports whether a span descends from the caller's span.
func inTrace(id string, parents map[string]string, caller string) bool {
	for p := parents[id]; p != ""; p = parents[p] {
		if p == caller {
			return true
		}
	}
	return false
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// TestTracingHidesFeedSecrets: a feed's URL is its secret, so no exported
// span (its name or any attribute) may hold it, as the access log does not.
func TestTracingHidesFeedSecrets(t *testing.T) {
	var mu sync.Mutex
	var exported [][]byte
	receiver := otlpReceiver(t, func(s *tracepb.Span) {
		b, _ := json.Marshal(s) // name, attributes, events
		mu.Lock()
		defer mu.Unlock()
		exported = append(exported, b)
	})
	in := serve(t, settings(t, t.TempDir(), false, "CALGRAPH_OTLP_ENDPOINT", receiver.URL))
	out := in.query(t, `mutation { createCalendar(input: {name: "Fed"}) { calendar { id } } }`)
	cal := out["data"].(map[string]any)["createCalendar"].(map[string]any)["calendar"].(map[string]any)["id"].(string)
	out = in.query(t, `mutation { rotateCalendarFeed(input: {calendarId: "`+cal+`"}) { url } }`)
	feed := out["data"].(map[string]any)["rotateCalendarFeed"].(map[string]any)["url"].(string)
	secret := strings.TrimSuffix(feed[strings.LastIndex(feed, "/")+1:], ".ics")
	res, err := http.Get(in.url + "/feeds/" + secret + ".ics?x=" + secret)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK { // the handler got the path as sent
		t.Fatalf("the feed answered %s, want 200", res.Status)
	}
	if err := in.stop(); err != nil { // flushes the exporter
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(exported) == 0 {
		t.Fatal("no span exported for the feed request")
	}
	for _, s := range exported {
		if bytes.Contains(s, []byte(secret)) {
			t.Errorf("an exported span holds the feed's secret: %s", s)
		}
	}
}

// otlpReceiver is an OTLP/HTTP trace collector handing each exported span to
// got (from the exporter's goroutines).
func otlpReceiver(t *testing.T, got func(*tracepb.Span)) *httptest.Server {
	t.Helper()
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var req coltrace.ExportTraceServiceRequest
		if err := proto.Unmarshal(body, &req); err != nil {
			t.Errorf("OTLP export is not protobuf: %v", err)
		}
		for _, rs := range req.ResourceSpans {
			for _, ss := range rs.ScopeSpans {
				for _, s := range ss.Spans {
					got(s)
				}
			}
		}
	}))
	t.Cleanup(receiver.Close)
	return receiver
}
