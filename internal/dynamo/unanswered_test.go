package dynamo

import (
	"context"
	"errors"
	"net"
	"testing"
	"time"

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
	}{
		{"read timed out", live, "Query", true, attempt, calendar.CodeUnavailable},
		{"transaction timed out", live, "TransactWriteItems", true, attempt, calendar.CodeOutcomeUnknown},
		{"put timed out", live, "PutItem", true, attempt, calendar.CodeOutcomeUnknown},
		{"write past the request deadline", expired, "UpdateItem", true, context.DeadlineExceeded, calendar.CodeOutcomeUnknown},
		{"write never sent: deadline already past", expired, "UpdateItem", false, context.DeadlineExceeded, calendar.CodeUnavailable},
		{"write never sent: connection refused", live, "TransactWriteItems", true, dial, calendar.CodeUnavailable},
		{"write cut off: connection reset", live, "TransactWriteItems", true, reset, calendar.CodeOutcomeUnknown},
		{"write throttled", live, "TransactWriteItems", true, throttled, calendar.CodeUnavailable},
		{"failed condition", live, "PutItem", true, condition, calendar.CodeInternal},
		{"client went away", gone, "TransactWriteItems", true, context.Canceled, calendar.CodeInternal},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := unanswered(c.ctx, c.op, c.sent, c.err)
			if got := calendar.ErrorCode(err); got != c.want {
				t.Fatalf("got %s (%v), want %s", got, err, c.want)
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
