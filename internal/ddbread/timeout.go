package ddbread

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aws/smithy-go/middleware"
)

// AttemptTimeout returns a client option (for dynamodb.Options.APIOptions)
// that bounds each attempt of a call to d. The SDK's retryer sees an attempt
// that ran out as an AttemptTimeoutError, which it retries when the operation
// is idempotent; the call as a whole stays bounded by its own context. A
// Client made from that SDK client applies the same bound to its attempts.
//
// Without it, a store that accepts connections but never answers holds a call
// until the request's context ends, and the retryer never gets a second try.
func AttemptTimeout(d time.Duration) func(*middleware.Stack) error {
	return func(s *middleware.Stack) error {
		// Added last to the Finalize step, it runs inside the retry loop:
		// once per attempt, around signing and sending.
		return s.Finalize.Add(attemptTimeout{d}, middleware.After)
	}
}

// AttemptTimeoutError is an attempt that got no answer within its bound.
type AttemptTimeoutError struct {
	Operation string
	After     time.Duration
	Err       error
}

func (e *AttemptTimeoutError) Error() string {
	return fmt.Sprintf("%s attempt got no answer within %s: %v", e.Operation, e.After, e.Err)
}

func (e *AttemptTimeoutError) Unwrap() error { return e.Err }

// CanceledError tells the SDK's retryer that the attempt was not cancelled
// by its caller, whatever error the bound left inside.
func (e *AttemptTimeoutError) CanceledError() bool { return false }

// RetryableError tells the SDK's retryer whether sending the call again is
// safe: reads are, and so is TransactWriteItems, whose ClientRequestToken
// makes a repeat of an applied transaction a no-op. A plain write might have
// been applied, and a repeat could fail its condition against itself.
func (e *AttemptTimeoutError) RetryableError() bool { return Idempotent(e.Operation) }

// Idempotent reports whether sending operation op twice has the effect of
// sending it once.
func Idempotent(op string) bool {
	switch op {
	case "GetItem", "BatchGetItem", "Query", "Scan", "TransactGetItems",
		"DescribeTable", "ListTables", "DescribeTimeToLive", "TransactWriteItems":
		return true
	}
	return false
}

type attemptTimeout struct{ d time.Duration }

func (attemptTimeout) ID() string { return "calgraph.AttemptTimeout" }

func (m attemptTimeout) HandleFinalize(ctx context.Context, in middleware.FinalizeInput, next middleware.FinalizeHandler) (middleware.FinalizeOutput, middleware.Metadata, error) {
	actx, cancel := context.WithTimeout(ctx, m.d)
	defer cancel()
	out, md, err := next.HandleFinalize(actx, in)
	return out, md, m.check(ctx, actx, err)
}

// check turns err into an AttemptTimeoutError when it came from the attempt's
// own bound rather than from the call's context.
func (m attemptTimeout) check(ctx, actx context.Context, err error) error {
	if err == nil || ctx.Err() != nil || !errors.Is(actx.Err(), context.DeadlineExceeded) {
		return err
	}
	return &AttemptTimeoutError{Operation: middleware.GetOperationName(ctx), After: m.d, Err: err}
}
