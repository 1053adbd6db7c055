package telemetry

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/aws/smithy-go"

	"github.com/calgraph/calgraph/internal/ddbread"
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
