package calendar_test

import (
	"context"
	"errors"
	"testing"

	"github.com/calgraph/calgraph/internal/calendar"
)

// unreadableRecords is an idempotency store whose records cannot be read:
// the store did not answer.
type unreadableRecords struct{}

func (unreadableRecords) IdempotencyRecord(context.Context, string) (*calendar.IdempotencyRecord, error) {
	return nil, calendar.Errorf(calendar.CodeUnavailable, "the store did not answer")
}

func (unreadableRecords) SaveIdempotentResult(context.Context, string, string) error { return nil }

// TestReplayThatCannotReadAnswersWithTheReadsError: a retry whose marker is
// refused (an earlier attempt's is there) and whose earlier record cannot be
// read answers UNAVAILABLE, as the read did, not with the marker's refusal,
// which the API could only call an internal error (seen under load in
// TestFrozenStore).
func TestReplayThatCannotReadAnswersWithTheReadsError(t *testing.T) {
	ctx := calendar.WithViewer(context.Background(), calendar.Viewer{ID: "u1"})
	_, err := calendar.Once(ctx, unreadableRecords{}, "key-1", "fingerprint", func(context.Context) (string, error) {
		return "", calendar.ErrReplayed
	})
	if errors.Is(err, calendar.ErrReplayed) || calendar.ErrorCode(err) != calendar.CodeUnavailable {
		t.Fatalf("got %v (code %q), want the read's UNAVAILABLE", err, calendar.ErrorCode(err))
	}
}
