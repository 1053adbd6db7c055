package dynamo

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"

	"github.com/calgraph/calgraph/internal/calendar"
)

// What becomes of users' reminders when their entry goes:
//
//   - Deleting an entry or a whole series keeps every user's setting on it
//     with its trash (trashMyReminders): right after the deletion commits,
//     each gets the trash item's expiresAt, so TTL purges them with it.
//     SetMyReminders checks in its transaction that the entry exists, so
//     once the deletion has committed no new setting can appear, and the
//     one Query after it finds them all. Nothing reads a setting of an
//     entry that is not live (the scheduler starts from live entries), and
//     a restore clears expiresAt again right after it commits
//     (restoreMyReminders). A crash between the two leaves settings with
//     expiresAt on a gone entry (purged in time) or on a live one (purged
//     with the trash it left): Store.Check reports both.
//   - Moving an entry to another calendar moves the settings with it
//     (moveMyReminders): each is put under the new calendar, then the old
//     one deleted.
//   - A THIS_AND_FOLLOWING change that splits a series gives the new series
//     each user's setting as it stood from the split on (splitMyReminders),
//     right after the split commits.
//   - Deleting a calendar sweeps them with the rest of its partition.
//   - A member who leaves, or is removed, keeps their settings, unread:
//     SetMyReminders and Entry.myReminders need the entry readable, and the
//     scheduler must not fire for a user who cannot read the entry. They go
//     with the entry or the calendar, and count again if the user rejoins.

// dropMyReminders deletes every user's setting on the entry or series root.
func (s *Store) dropMyReminders(ctx context.Context, root calendar.EntryKey) error {
	sets, err := s.RemindersOfEntry(ctx, root)
	if err != nil || len(sets) == 0 {
		return err
	}
	ops := make([]txOp, 0, len(sets))
	for _, set := range sets {
		ops = append(ops, opDelete(myRemindersKey(root.CalendarID, root.EntryID, set.UserID), noCondition(), nil))
	}
	if err := s.writeUnconditionally(ctx, ops); err != nil {
		return fmt.Errorf("delete reminders of %s: %w", root.EntryID, err)
	}
	return nil
}

// trashMyReminders keeps every user's setting on root, just deleted into
// its calendar's trash, until the trash item's purge time (expiresAt):
// one Update each, on condition that it exists (an Update would make it).
func (s *Store) trashMyReminders(ctx context.Context, root calendar.EntryKey) error {
	ref, found, err := s.getItem(ctx, trashRefKey(root.CalendarID, root.EntryID))
	if err != nil || !found {
		return errors.Join(err, s.dropMyReminders(ctx, root))
	}
	return s.expireMyReminders(ctx, root, expression.Set(expression.Name(attrExpiresAt), expression.Value(ref[attrExpiresAt])))
}

// restoreMyReminders keeps every user's setting on root, restored from the
// trash, for good again.
func (s *Store) restoreMyReminders(ctx context.Context, root calendar.EntryKey) error {
	return s.expireMyReminders(ctx, root, expression.Remove(expression.Name(attrExpiresAt)))
}

// expireMyReminders applies upd to every user's setting on root.
func (s *Store) expireMyReminders(ctx context.Context, root calendar.EntryKey, upd expression.UpdateBuilder) error {
	sets, err := s.RemindersOfEntry(ctx, root)
	if err != nil {
		return err
	}
	for _, set := range sets {
		w := newWrite()
		w.Update(myRemindersKey(root.CalendarID, root.EntryID, set.UserID), upd, exists(), func(item) error { return errSettingGone })
		if err := s.commitSmall(ctx, w); err != nil && !errors.Is(err, errSettingGone) {
			return fmt.Errorf("keep reminders of %s with the trash: %w", root.EntryID, err)
		}
	}
	return nil
}

// errSettingGone: a setting was deleted meanwhile (by another deletion's
// clean-up): nothing to keep.
var errSettingGone = errors.New("the setting is gone")

// moveMyReminders puts every user's setting on entry from under the entry's
// new key to, then deletes the old ones.
func (s *Store) moveMyReminders(ctx context.Context, from, to calendar.EntryKey) error {
	sets, err := s.RemindersOfEntry(ctx, from)
	if err != nil || len(sets) == 0 {
		return err
	}
	ops := make([]txOp, 0, len(sets))
	for _, set := range sets {
		moved := *set
		moved.Root = to
		ops = append(ops, opPut(myRemindersKey(to.CalendarID, to.EntryID, set.UserID), newMyRemindersRecord(&moved), noCondition(), nil))
	}
	if err := s.writeUnconditionally(ctx, ops); err != nil {
		return fmt.Errorf("move reminders of %s: %w", from.EntryID, err)
	}
	return s.dropMyReminders(ctx, from)
}

// splitMyReminders gives the series split off series from at the
// occurrence originally at at (THIS_AND_FOLLOWING) every user's setting as
// it stood from there on (calendar.ReminderSetting.SplitAt), right after
// the split commits, each with an arm item: so a user's reminders on the
// following occurrences stay theirs. (A crash between the two leaves the
// new series at its users' calendar defaults.)
func (s *Store) splitMyReminders(ctx context.Context, from, to calendar.EntryKey, at time.Time) error {
	sets, err := s.RemindersOfEntry(ctx, from)
	if err != nil || len(sets) == 0 {
		return err
	}
	now := s.timestamp()
	var ops []txOp
	for _, set := range sets {
		split := set.SplitAt(at, to)
		if split == nil {
			continue
		}
		split.Version, split.UpdatedAt = 1, now
		ops = append(ops, opPut(myRemindersKey(to.CalendarID, to.EntryID, set.UserID), newMyRemindersRecord(split), noCondition(), nil),
			rearmOp(to.CalendarID, to.EntryID, set.UserID, now))
	}
	if err := s.writeUnconditionally(ctx, ops); err != nil {
		return fmt.Errorf("carry reminders of %s to %s: %w", from.EntryID, to.EntryID, err)
	}
	return nil
}
