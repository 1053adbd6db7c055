package dynamo

import (
	"context"
	"math/rand/v2"
	"time"
)

// Backoff bounds for re-sending unprocessed batch items and retrying conflicted
// transactions: exponential from retryBase, capped at retryCap, with jitter, for at
// most maxAttempts sends.
const (
	retryBase   = 25 * time.Millisecond
	retryCap    = time.Second
	maxAttempts = 8
)

// backoff returns the delay before retry number attempt (1-based): "equal jitter",
// half fixed and half random, so retries spread out but never collapse to zero.
func backoff(attempt int) time.Duration {
	d := min(retryCap, retryBase<<min(attempt-1, 16))
	return d/2 + rand.N(d/2+1)
}

// sleep waits for d or until ctx is done.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
