package telemetry

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/aws/smithy-go"
	dto "github.com/prometheus/client_model/go"

	"github.com/calgraph/calgraph/internal/ddbread"
	"github.com/calgraph/calgraph/internal/reqinfo"
)

// TestOperationNamesAreBounded: names come from clients, so past
// maxOperationNames new ones count as "other" and the label stays bounded.
func TestOperationNamesAreBounded(t *testing.T) {
	m := NewMetrics()
	for i := range maxOperationNames {
		if got := m.operation(fmt.Sprint("Op", i)); got != fmt.Sprint("Op", i) {
			t.Fatalf("name %d: got %q", i, got)
		}
	}
	if got := m.operation("OneTooMany"); got != "other" {
		t.Errorf("past the bound: got %q, want other", got)
	}
	if got := m.operation("Op7"); got != "Op7" {
		t.Errorf("a name seen before: got %q", got)
	}
	if got := m.operation(""); got != "anonymous" {
		t.Errorf("no name: got %q", got)
	}
}

func TestCallResult(t *testing.T) {
	for _, tt := range []struct {
		err  error
		want string
	}{
		{nil, "ok"},
		{&ddbread.AttemptTimeoutError{Operation: "Query", Err: context.DeadlineExceeded}, "timeout"},
		{fmt.Errorf("wrapped: %w", context.DeadlineExceeded), "timeout"},
		{&smithy.GenericAPIError{Code: "ThrottlingException"}, "throttled"},
		{&smithy.GenericAPIError{Code: "ValidationException"}, "error"},
		{errors.New("boom"), "error"},
	} {
		if got := callResult(tt.err); got != tt.want {
			t.Errorf("%v: got %q, want %q", tt.err, got, tt.want)
		}
	}
}

// TestNamesAreTheRegisteredMetrics: Names lists exactly the calgraph_
// families the registry gathers once each metric has a value.
func TestNamesAreTheRegisteredMetrics(t *testing.T) {
	m := NewMetrics()
	m.GaugeFunc("calgraph_test_gauge", "A gauge.", func() float64 { return 1 })
	m.CounterFunc("calgraph_test_total", "A counter.", func() float64 { return 1 })
	m.requests.WithLabelValues("op", "ok").Inc()
	m.latency.WithLabelValues("op").Observe(1)
	m.calls.WithLabelValues("Query", "ok").Inc()
	m.retries.WithLabelValues("Query").Inc()
	m.callTime.WithLabelValues("Query").Observe(1)
	families, err := m.reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var gathered []string
	for _, f := range families {
		if strings.HasPrefix(f.GetName(), "calgraph_") {
			gathered = append(gathered, f.GetName())
		}
	}
	names := m.Names()
	slices.Sort(names)
	if !slices.Equal(names, gathered) {
		t.Errorf("Names() = %v, want the gathered families %v", names, gathered)
	}
}

// TestClientHangUpIsItsOwnOutcome: a request that failed because its client
// hung up counts as CLIENT_CLOSED, not as the error it produced; one that
// failed with its client still there, or that answered before the client
// left, counts as before.
func TestClientHangUpIsItsOwnOutcome(t *testing.T) {
	m := NewMetrics()
	for _, tt := range []struct {
		op      string
		hangUp  bool
		code    string
		outcome string
	}{
		{"Gone", true, "INTERNAL_SERVER_ERROR", OutcomeClientClosed},
		{"Failed", false, "INTERNAL_SERVER_ERROR", "INTERNAL_SERVER_ERROR"},
		{"Answered", true, "", "ok"},
	} {
		ctx, cancel := context.WithCancel(context.Background())
		ctx, info := reqinfo.With(ctx)
		h := m.GraphQL(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			info.SetOperation(tt.op)
			if tt.hangUp {
				cancel() // what net/http does when the client's connection closes
			}
			if tt.code != "" {
				info.AddCode(tt.code)
			}
		}))
		h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequestWithContext(ctx, http.MethodPost, "/query", nil))
		cancel()
		var got dto.Metric
		if err := m.requests.WithLabelValues(tt.op, tt.outcome).Write(&got); err != nil || got.GetCounter().GetValue() != 1 {
			t.Errorf("%s: %v requests with outcome %s, want 1 (%v)", tt.op, got.GetCounter().GetValue(), tt.outcome, err)
		}
	}
}
