package dynamo

import (
	"context"
	"errors"
	"fmt"
	"net"
	"slices"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"

	"github.com/calgraph/calgraph/internal/calendar"
	"github.com/calgraph/calgraph/internal/ddbread"
)

// SDK-error translation. Anything not classified here stays an internal error: it
// is wrapped with context and logged by the API layer, never shown to a client.

// retryableCancellation reports whether a cancelled transaction failed only
// because of contention or throttling, so sending it again may succeed.
func retryableCancellation(tce *types.TransactionCanceledException) bool {
	retry := false
	for _, r := range tce.CancellationReasons {
		switch aws.ToString(r.Code) {
		case "None", "":
		case "TransactionConflict", "ThrottlingError", "ProvisionedThroughputExceeded", "RequestLimitExceeded":
			retry = true
		default:
			return false
		}
	}
	return retry
}

// Explanations shared by several writes.

// mustBeNew explains a failed attribute_not_exists condition.
func mustBeNew(code calendar.Code, format string, args ...any) explainFunc {
	return func(item) error { return calendar.Errorf(code, format, args...) }
}

// versioned reads the version of any mutable item.
type versioned struct {
	Version int `dynamodbav:"version"`
}

// versionMismatch explains a failed "exists and has the expected version"
// condition: NOT_FOUND when the item is gone, VERSION_CONFLICT otherwise.
func versionMismatch(what string, expected int) explainFunc {
	return func(old item) error {
		if old == nil {
			return calendar.Errorf(calendar.CodeNotFound, "%s not found", what)
		}
		current, _ := unmarshal[versioned](old)
		return calendar.Errorf(calendar.CodeVersionConflict,
			"%s has version %d, not the expected %d: reload it and try again", what, current.Version, expected)
	}
}

// Calls that got no answer. A request must end within its deadline whatever
// the store does, and its client must learn whether a write may have been
// applied: unanswered turns the final error of a call DynamoDB did not answer
// into CodeUnavailable (nothing was changed: a read, a write that was never
// sent or was refused by throttling) or CodeOutcomeUnknown (a write was sent
// and no answer came back: it may have been applied).
//
// attempts are the errors of the call's attempts, when known (the SDK's
// stack: attemptLog). They decide, rather than the final error, whether a
// write may have been applied: an attempt that timed out may have been
// applied even if a later one was throttled, and a call whose deadline passed
// while it waited to retry ends on the deadline, not on what its attempts met.
func unanswered(ctx context.Context, op string, sent bool, err error, attempts ...error) error {
	if err == nil || errors.Is(ctx.Err(), context.Canceled) {
		return err // no failure, or the client went away: nobody reads the answer
	}
	if outcomeOf(err) == answered {
		return err
	}
	if len(attempts) == 0 {
		attempts = []error{err}
	}
	last := attempts[len(attempts)-1]
	if !errors.Is(err, last) { // for logs: the deadline alone would not say what the attempts met
		err = fmt.Errorf("%w; the last attempt: %w", err, last)
	}
	applied := slices.ContainsFunc(attempts, func(a error) bool { return outcomeOf(a) == maybeApplied })
	if sent && applied && slices.Contains(writeOps, op) {
		return &calendar.Error{Code: calendar.CodeOutcomeUnknown, Err: err,
			Message: "the store did not confirm this change in time: it may or may not have been applied"}
	}
	// An attempt the call's own deadline cut short says nothing of the
	// store: the one before it tells what the attempts met.
	cause := last
	if n := len(attempts); n > 1 && ctx.Err() != nil && errors.Is(last, context.DeadlineExceeded) {
		cause = attempts[n-2]
	}
	var why string
	switch {
	case dialFailed(cause):
		why = "the store could not be reached" // refused: nothing listens there
	case outcomeOf(cause) == notApplied:
		why = "the store refused the call for lack of capacity"
	default:
		why = "the store did not answer in time"
	}
	return &calendar.Error{Code: calendar.CodeUnavailable, Err: err, Message: why + "; nothing was changed: try again later"}
}

// outcome is what an error says of whether its call was applied.
type outcome int

const (
	answered     outcome = iota // DynamoDB answered: not a matter for unanswered
	notApplied                  // refused (throttled) or never sent (no connection)
	maybeApplied                // sent, and no answer came back
)

func outcomeOf(err error) outcome {
	var apiErr smithy.APIError
	var respErr interface{ HTTPStatusCode() int }
	var timeout *ddbread.AttemptTimeoutError
	var netErr net.Error
	switch {
	case errors.As(err, &apiErr) && slices.Contains(throttleCodes, apiErr.ErrorCode()):
		return notApplied
	case errors.As(err, &timeout), errors.Is(err, context.DeadlineExceeded), errors.As(err, &netErr):
		if dialFailed(err) {
			return notApplied
		}
		return maybeApplied
	case errors.As(err, &respErr) && respErr.HTTPStatusCode() >= 500:
		return maybeApplied
	}
	return answered
}

// writeOps are the operations that change items.
var writeOps = []string{"PutItem", "UpdateItem", "DeleteItem", "BatchWriteItem", "TransactWriteItems"}

// throttleCodes are DynamoDB's refusals for lack of capacity.
var throttleCodes = []string{"ProvisionedThroughputExceededException", "ThrottlingException", "RequestLimitExceeded"}

// dialFailed reports whether a connection could not even be opened, so
// nothing was sent.
func dialFailed(err error) bool {
	var opErr *net.OpError
	return errors.As(err, &opErr) && opErr.Op == "dial"
}
