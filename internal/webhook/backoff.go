package webhook

import (
	"math/rand/v2"
	"time"
)

// The retry schedule: the wait before attempt n+1 after n failed ones
// doubles from RetryFirst up to RetryCap, with jitter, and attempts go on
// until RetryFor has passed since the first; then the webhook is marked
// FAILING and its deliveries wait for it to be resumed. About 32 attempts
// fit in RetryFor.
const (
	RetryFirst = 10 * time.Second
	RetryCap   = time.Hour
	RetryFor   = 24 * time.Hour
)

// Backoff is the wait after the attempt-th failed attempt (1-based):
// "equal jitter", half of the doubled delay fixed and half random, so that
// deliveries that failed together (a receiver down) do not all come back
// at once, and none comes back sooner than half its delay.
func Backoff(attempt int) time.Duration {
	d := min(RetryCap, RetryFirst<<min(max(attempt-1, 0), 20))
	return d/2 + rand.N(d/2+1)
}
