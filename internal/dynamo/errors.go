package dynamo

import (
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/calgraph/calgraph/internal/calendar"
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
