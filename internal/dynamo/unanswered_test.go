package dynamo

import (
	"context"
	"errors"
	"net"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/smithy-go"

	"github.com/calgraph/calgraph/internal/calendar"
	"github.com/calgraph/calgraph/internal/ddbread"
)

// TestUnanswered classifies the final errors of calls DynamoDB did not answer:
// a client must be told whether a write may have been applied.
func TestUnanswered(t *testing.T) {
	attempt := &ddbread.AttemptTimeoutError{Operation: "X", After: time.Second, Err: context.DeadlineExceeded}
	dial := &net.OpError{Op: "dial", Net: "tcp", Err: errors.New("connection refused")}
	reset := &net.OpError{Op: "read", Net: "tcp", Err: errors.New("connection reset by peer")}
	throttled := &smithy.GenericAPIError{Code: "ThrottlingException"}
	condition := &smithy.GenericAPIError{Code: "ConditionalCheckFailedException"}
	backoffCut := &aws.RequestCanceledError{Err: context.DeadlineExceeded} // the SDK's, when the deadline cuts a backoff
	live := context.Background()
	expired, cancel := context.WithDeadline(live, time.Now().Add(-time.Second))
	defer cancel()
	gone, hangUp := context.WithCancel(live)
	hangUp()
	cases := []struct {
		name string
		ctx  context.Context
		op   string
		sent bool
		err  error
		want calendar.Code // CodeInternal: left as it was
		// The errors of the call's attempts, when known; the last is often
		// not the final error: the deadline can pass during a backoff.
		attempts []error
		message  string // the client's, when it matters
	}{
		{"read timed out", live, "Query", true, attempt, calendar.CodeUnavailable, nil, ""},
		{"transaction timed out", live, "TransactWriteItems", true, attempt, calendar.CodeOutcomeUnknown, nil, ""},
		{"put timed out", live, "PutItem", true, attempt, calendar.CodeOutcomeUnknown, nil, ""},
		{"write past the request deadline", expired, "UpdateItem", true, context.DeadlineExceeded, calendar.CodeOutcomeUnknown, nil, ""},
		{"write never sent: deadline already past", expired, "UpdateItem", false, context.DeadlineExceeded, calendar.CodeUnavailable, nil, ""},
		{"write never sent: connection refused", live, "TransactWriteItems", true, dial, calendar.CodeUnavailable, nil, ""},
		{"write cut off: connection reset", live, "TransactWriteItems", true, reset, calendar.CodeOutcomeUnknown, nil, ""},
		{"write throttled", live, "TransactWriteItems", true, throttled, calendar.CodeUnavailable, nil, ""},
		{"failed condition", live, "PutItem", true, condition, calendar.CodeInternal, nil, ""},
		{"client went away", gone, "TransactWriteItems", true, context.Canceled, calendar.CodeInternal, nil, ""},
		{"write throttled until the deadline passed in a backoff", live, "TransactWriteItems", true, backoffCut,
			calendar.CodeUnavailable, []error{throttled, throttled}, "the store refused the call for lack of capacity; nothing was changed: try again later"},
		{"write timed out once, then throttled until the deadline", live, "TransactWriteItems", true, backoffCut,
			calendar.CodeOutcomeUnknown, []error{attempt, throttled}, ""},
		{"read refused until the deadline", live, "Query", true, backoffCut,
			calendar.CodeUnavailable, []error{dial, dial}, "the store could not be reached; nothing was changed: try again later"},
		{"read refused until the deadline cut its last attempt", expired, "DescribeTable", true, backoffCut,
			calendar.CodeUnavailable, []error{dial, dial, backoffCut}, "the store could not be reached; nothing was changed: try again later"},
		{"connection refused", live, "Query", true, dial, calendar.CodeUnavailable, nil, "the store could not be reached; nothing was changed: try again later"},
		{"no answer", live, "Query", true, attempt, calendar.CodeUnavailable, nil, "the store did not answer in time; nothing was changed: try again later"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := unanswered(c.ctx, c.op, c.sent, c.err, c.attempts...)
			if got := calendar.ErrorCode(err); got != c.want {
				t.Fatalf("got %s (%v), want %s", got, err, c.want)
			}
			if de := (*calendar.Error)(nil); c.message != "" && (!errors.As(err, &de) || de.Message != c.message) {
				t.Errorf("got message %q, want %q", de.Message, c.message)
			}
			if !errors.Is(err, c.err) {
				t.Errorf("got %v, which lost the cause %v", err, c.err)
			}
		})
	}
	if err := unanswered(live, "Query", true, nil); err != nil {
		t.Errorf("no error: got %v", err)
	}
}
