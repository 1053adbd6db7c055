package dynamo

import (
	"context"
	"slices"
	"time"

	"github.com/calgraph/calgraph/internal/calendar"
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

// SeedEntries writes entries into calendarID as ctx's viewer's creations,
// as many to a transaction as fit and without checking access: the items
// CreateEntry writes, their change records and what they add to the
// viewer's stats, for tests and benchmarks of users holding thousands. It
// returns their IDs.
func SeedEntries(ctx context.Context, s *Store, calendarID string, timings []calendar.Timing) ([]string, error) {
	viewer, err := calendar.ViewerID(ctx)
	if err != nil {
		return nil, err
	}
	var ids []string
	var ops []txOp
	flush := func() error {
		err := s.transact(ctx, ops...)
		ops = nil
		return err
	}
	for _, t := range timings {
		e, err := calendar.NewEntry{CalendarID: calendarID, Title: "seeded", Timing: t}.Build(calendar.Defaults{})
		if err != nil {
			return nil, err
		}
		now := s.timestamp()
		e.ID = s.newID()
		e.ICalUID, e.Version, e.CreatedAt, e.UpdatedAt, e.CreatedBy = e.ID+"@"+s.icalDomain, 1, now, now, viewer
		writes := entryWrites(&e, nil, s.placement(&e), notExists(), mustBeNew(calendar.CodeInternal, "entry ID collision"), 0)
		if more := append(slices.Clip(ops), writes...); len(ops) > 0 &&
			len(more)+len(changedObjects(more))+addedRaises(more)+len(tallies(viewer, more)) > maxTxActions-1 {
			if err := flush(); err != nil {
				return nil, err
			}
		}
		ops = append(ops, writes...)
		ids = append(ids, e.ID)
	}
	if len(ops) > 0 {
		if err := flush(); err != nil {
			return nil, err
		}
	}
	return ids, nil
}

// MaxRangeReads is how many times a range read reads a calendar that keeps
// changing before it refuses it.
const MaxRangeReads = maxRangeReads
