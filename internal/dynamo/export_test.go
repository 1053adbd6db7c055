package dynamo

import (
	"context"
	"time"
)

// SetBeforeTransact installs a hook that runs just before each transaction is
// sent, so tests can change the world between a write's read and its write.
func SetBeforeTransact(s *Store, hook func(ctx context.Context)) { s.beforeTransact = hook }

// SetMaxSeriesActions lowers how many actions a series change puts in one
// transaction, so tests reach the three-step path with few exceptions.
func SetMaxSeriesActions(s *Store, n int) { s.maxSeriesActions = n }

// SetChangeRecords turns change records off (false) or on, for the
// benchmark of their cost.
func SetChangeRecords(s *Store, on bool) { s.noChangeRecords = !on }

// SetViewCacheSettle sets how long the view cache waits after first seeing a
// calendar revision before caching reads at it, and its clock.
func SetViewCacheSettle(s *Store, d time.Duration, now func() time.Time) {
	s.views.settle, s.views.now = d, now
}

// MaxRangeReads is how many times a range read reads a calendar that keeps
// changing before it refuses it.
const MaxRangeReads = maxRangeReads
