package telemetry

import (
	"context"
	"errors"
	"fmt"
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
