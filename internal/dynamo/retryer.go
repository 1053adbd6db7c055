package dynamo

import (
	"context"
	"errors"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/ratelimit"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/smithy-go/middleware"
	smithyhttp "github.com/aws/smithy-go/transport/http"

	"github.com/calgraph/calgraph/internal/ddbread"
)

// Retries: a call is retried until its context's deadline (the request's),
// with jittered exponential backoff capped at maxBackoff. The SDK's standard
// retryer also caps attempts (3) and draws every retry from a token bucket
// shared by the whole client (500 tokens, 5 or 10 a retry). Under contention
// both turn a slow store into failed requests: 50 bookings at once on a
// DynamoDB Local that timed out their first attempts emptied the bucket, and
// from then on every call failed after one attempt, OUTCOME_UNKNOWN for the
// writes, with most of the request's deadline unspent. The
// deadline is the budget that means something to a client, so it is the
// only one, with two exceptions:
//   - a call made without a deadline (commands, background work) gets
//     callBudget;
//   - a store that refuses connections, or drops them before answering, gets
//     maxConnectionAttempts: nothing is listening, retrying for the whole
//     deadline would only hold every request that long, and /readyz says
//     so at once.
const (
	maxBackoff            = time.Second
	maxConnectionAttempts = 3
	callBudget            = time.Minute
)

// newRetryer returns the retryer of every client (ddbread's included).
func newRetryer() aws.Retryer {
	return deadlineRetryer{retry.NewStandard(func(o *retry.StandardOptions) {
		o.MaxBackoff = maxBackoff
		o.RateLimiter = ratelimit.None
	})}
}

// deadlineRetryer is the standard retryer without its attempt cap.
type deadlineRetryer struct{ *retry.Standard }

// MaxAttempts is 0: no limit but the context's.
func (deadlineRetryer) MaxAttempts() int { return 0 }

// RetryDelay is the standard backoff, except after maxConnectionAttempts
// failed connections: then it refuses with the call's own error, which is
// what the caller gets.
func (r deadlineRetryer) RetryDelay(attempt int, err error) (time.Duration, error) {
	if attempt >= maxConnectionAttempts && connectionFailed(err) {
		return 0, err
	}
	return r.Standard.RetryDelay(attempt, err)
}

// connectionFailed reports whether an attempt failed for want of a
// connection (refused, reset or closed before the answer), not for want of
// an answer in time.
func connectionFailed(err error) bool {
	var timeout *ddbread.AttemptTimeoutError
	var send *smithyhttp.RequestSendError
	return errors.As(err, &send) && !errors.As(err, &timeout) && !errors.Is(err, context.DeadlineExceeded)
}

// budgetCalls gives a call made without a deadline one of callBudget, so
// that its retries end.
var budgetCalls = addInitialize("calgraph.callBudget", func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, callBudget)
		defer cancel()
	}
	return next.HandleInitialize(ctx, in)
})

// attemptLogKey holds, in a call's context, the errors of its attempts.
type attemptLogKey struct{}

// withAttemptLog returns a context in which logAttempts records the errors
// of the call's attempts, and where they will be.
func withAttemptLog(ctx context.Context) (context.Context, *[]error) {
	log := new([]error)
	return context.WithValue(ctx, attemptLogKey{}, log), log
}

// logAttempts records each attempt's error in the call's attempt log: it
// runs inside the retry loop, once per attempt (the attempts of a call are
// sequential).
func logAttempts(stack *middleware.Stack) error {
	return stack.Finalize.Add(middleware.FinalizeMiddlewareFunc("calgraph.attemptLog",
		func(ctx context.Context, in middleware.FinalizeInput, next middleware.FinalizeHandler) (middleware.FinalizeOutput, middleware.Metadata, error) {
			out, md, err := next.HandleFinalize(ctx, in)
			if log, ok := ctx.Value(attemptLogKey{}).(*[]error); ok && err != nil {
				*log = append(*log, err)
			}
			return out, md, err
		}), middleware.After)
}
