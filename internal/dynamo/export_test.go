package dynamo

import (
	"context"
	"slices"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/calgraph/calgraph/internal/calendar"
)

// SetBeforeTransact installs a hook that runs just before each transaction is
// sent, so tests can change the world between a write's read and its write.
func SetBeforeTransact(s *Store, hook func(ctx context.Context)) { s.beforeTransact = hook }

// SetPlanHook installs a hook given the plan (write.Plan) of each write the
// store sends as a transaction.
func SetPlanHook(s *Store, hook func(plan []string)) { s.onWrite = hook }

// SetMaxSeriesActions lowers how many actions a series change puts in one
// transaction, so tests reach the three-step path with few exceptions: n
// besides the four a series write may add for itself (its idempotency
// marker, the change records of the series and of one split off it, and
// its calendar's revision).
func SetMaxSeriesActions(s *Store, n int) { s.maxSeriesActions = n + 4 }

// SetTrashBudget lowers how many bytes a trash item or part holds, so tests
// reach trash parts with a few attendees.
func SetTrashBudget(s *Store, bytes int) { s.trashBudget = bytes }

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
	w := newWrite()
	w.Idempotent(ctx)
	flush := func() error {
		err := s.commit(ctx, w)
		w = newWrite()
		w.Idempotent(ctx)
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
		writes := entryWrites(&e, s.placement(&e), notExists(), mustBeNew(calendar.CodeInternal, "entry ID collision"), 0)
		more := &write{ops: slices.Clone(w.ops), logs: slices.Clone(w.logs), raises: slices.Clone(w.raises),
			tallies: slices.Clone(w.tallies), req: w.req, asked: w.asked}
		more.Add(writes...)
		more.LogEntry(calendarID, e.ID)
		more.Tally(viewer, nil, &e)
		if len(w.ops) > 0 && more.Room() < 0 {
			if err := flush(); err != nil {
				return nil, err
			}
			w.Add(writes...)
			w.LogEntry(calendarID, e.ID)
			w.Tally(viewer, nil, &e)
		} else {
			w = more
		}
		ids = append(ids, e.ID)
	}
	if len(w.ops) > 0 {
		if err := flush(); err != nil {
			return nil, err
		}
	}
	return ids, nil
}

// MaxRangeReads is how many times a range read reads a calendar that keeps
// changing before it refuses it.
const MaxRangeReads = maxRangeReads

// SetReminderDefaults sets ctx's viewer's default reminders on a calendar
// through their calendar settings.
func SetReminderDefaults(ctx context.Context, s *Store, calendarID string, reminders []calendar.Reminder) error {
	viewer, err := calendar.ViewerID(ctx)
	if err != nil {
		return err
	}
	m, _, err := s.ownMembership(ctx, calendarID, viewer)
	if err != nil {
		return err
	}
	_, _, err = s.UpdateCalendarSettings(ctx, calendar.SettingsUpdate{CalendarID: calendarID,
		ExpectedVersion: m.Settings.Version, DefaultReminders: calendar.Set(reminders)})
	return err
}

// ClaimDueReminders claims the due items that fell due at now and does
// nothing more: an instance that stops right after its claims.
func ClaimDueReminders(ctx context.Context, s *Store, now time.Time) (int, error) {
	tasks, err := s.ReminderTasks(ctx, now, 100)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, t := range tasks {
		if t.Wake {
			continue
		}
		if _, ok, err := s.claim(ctx, itemKey{PK: t.Ref[0], SK: t.Ref[1]}, now); err != nil {
			return n, err
		} else if ok {
			n++
		}
	}
	return n, nil
}

// MarkLegacyWakes marks the table as EnsureTable does when it adds GSI5 to
// a table of an earlier version.
func MarkLegacyWakes(ctx context.Context, s *Store) error { return markLegacyWakes(ctx, s.db, s.table) }

// ItemBytes is an item's size as DynamoDB counts it.
func ItemBytes(it map[string]types.AttributeValue) int { return itemBytes(it) }

// ReadUsers reads users' items by key in one batch, as the loaders do.
func ReadUsers(ctx context.Context, s *Store, ids ...string) error {
	keys := make([]itemKey, len(ids))
	for i, id := range ids {
		keys[i] = userKey(id)
	}
	_, err := s.batchGet(ctx, keys)
	return err
}
