package dynamo

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/calgraph/calgraph/internal/calendar"
)

// Deleting a calendar or a user removes many items. The first transaction
// makes the thing invisible at once (it deletes the calendar item, or the
// user's items) and writes a pending-deletion item; the rest is removed in
// batches after it, and the pending item goes last. Should the process stop
// halfway, ResumeDeletions (run at start-up and from time to time) finds the
// pending items and finishes the work: every step can be repeated.

// pendingRecord marks a deletion under way.
type pendingRecord struct {
	PK         string    `dynamodbav:"PK"`
	SK         string    `dynamodbav:"SK"`
	EntityType string    `dynamodbav:"entityType"`
	Kind       string    `dynamodbav:"kind"` // "calendar" or "user"
	ID         string    `dynamodbav:"id"`
	CreatedAt  time.Time `dynamodbav:"createdAt"`
}

const (
	pendingCalendar = "calendar"
	pendingUser     = "user"
)

func (s *Store) pendingPut(kind, id string) txOp {
	k := pendingKey(kind, id)
	return opPut(k, pendingRecord{PK: k.PK, SK: k.SK, EntityType: entityPending, Kind: kind, ID: id, CreatedAt: s.timestamp()},
		noCondition(), nil)
}

// cleanupContext is the context of work that finishes a deletion: it must
// not stop when the client that asked for it hangs up.
func cleanupContext(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(ctx), 5*time.Minute)
}

// finishCalendarDeletion removes what is left of a deleted calendar (its
// partition: memberships, entries, series, exceptions, slots, invitations,
// its feed item) and then its pending item.
func (s *Store) finishCalendarDeletion(ctx context.Context, id string) error {
	if err := s.removePartition(ctx, calendarPartition(id)); err != nil {
		return err
	}
	return s.write(ctx, opDelete(pendingKey(pendingCalendar, id), noCondition(), nil))
}

// ResumeDeletions finishes the deletions that were cut off halfway and
// returns how many it finished.
func (s *Store) ResumeDeletions(ctx context.Context) (int, error) {
	lo, hi := pendingRange()
	items, err := s.queryBetween(ctx, "", attrSK, pendingPartition, lo, hi, noCondition(), math.MaxInt)
	if err != nil {
		return 0, fmt.Errorf("list pending deletions: %w", err)
	}
	done := 0
	for _, it := range items {
		r, err := unmarshal[pendingRecord](it)
		if err != nil {
			return done, err
		}
		switch r.Kind {
		case pendingCalendar:
			err = s.finishCalendarDeletion(ctx, r.ID)
		case pendingUser:
			_, err = s.finishUserDeletion(ctx, r.ID)
		default:
			err = fmt.Errorf("unknown pending deletion %q", r.Kind)
		}
		if err != nil {
			return done, fmt.Errorf("resume deletion of %s %s: %w", r.Kind, r.ID, err)
		}
		done++
	}
	return done, nil
}

// DeleteAccount implements calendar.UserService: the user, their email and
// identity go in one transaction, with a pending-deletion item; then each of
// their memberships is removed, and each calendar they were the last owner
// of is deleted.
func (s *Store) DeleteAccount(ctx context.Context, confirmEmail string) (*calendar.User, []string, error) {
	viewer, err := calendar.ViewerID(ctx)
	if err != nil {
		return nil, nil, err
	}
	it, found, err := s.getItem(ctx, userKey(viewer))
	if err != nil {
		return nil, nil, err
	}
	if !found {
		return nil, nil, calendar.Errorf(calendar.CodeUnauthenticated, "your account no longer exists")
	}
	r, err := unmarshal[userRecord](it)
	if err != nil {
		return nil, nil, err
	}
	u := r.user()
	if email, _ := calendar.NormalizeEmail(confirmEmail); email != u.Email {
		return nil, nil, calendar.Invalidf("confirmEmail", "to delete your account, confirm it with your email")
	}
	err = s.transact(ctx,
		opDelete(userKey(u.ID), versionIs(u.Version), versionMismatch("user", u.Version)),
		opDelete(emailKey(u.Email), noCondition(), nil),
		opDelete(identityKey(u.Identity.Provider, u.Identity.Subject), noCondition(), nil),
		s.pendingPut(pendingUser, u.ID))
	if err != nil {
		return nil, nil, fmt.Errorf("delete user %s: %w", u.ID, err)
	}
	cleanup, cancel := cleanupContext(ctx)
	defer cancel()
	deleted, err := s.finishUserDeletion(cleanup, u.ID)
	if err != nil {
		s.log.ErrorContext(ctx, "removing a deleted user's memberships (it resumes later)", "user", u.ID, "err", err)
	}
	return u, deleted, nil
}

// finishUserDeletion removes a deleted user's memberships, deleting the
// calendars they were the last owner of, then the pending item; it returns
// the calendars it deleted.
func (s *Store) finishUserDeletion(ctx context.Context, userID string) ([]string, error) {
	ms, err := s.AllMembershipsOfUser(ctx, userID, math.MaxInt32)
	if err != nil {
		return nil, err
	}
	var deleted []string
	for _, m := range ms {
		lastOwner, err := s.dropMembership(ctx, m)
		if err != nil {
			return deleted, err
		}
		if lastOwner {
			if err := s.deleteCalendarOf(ctx, m); err != nil {
				return deleted, err
			}
			deleted = append(deleted, m.CalendarID)
		}
	}
	return deleted, s.write(ctx, opDelete(pendingKey(pendingUser, userID), noCondition(), nil))
}

// dropMembership removes a deleted user's membership; lastOwner reports that
// it is the calendar's last owner, whose calendar goes instead.
func (s *Store) dropMembership(ctx context.Context, m *calendar.Membership) (lastOwner bool, err error) {
	ops := []txOp{opDelete(membershipKey(m.CalendarID, m.UserID), noCondition(), nil)}
	if m.Role == calendar.RoleOwner {
		ops = append(ops, ownerTally(m.CalendarID, -1))
	}
	err = s.transact(ctx, ops...)
	switch code := calendar.ErrorCode(err); {
	case err == nil:
		return false, nil
	case code == calendar.CodeLastOwner:
		return true, nil
	case code == calendar.CodeNotFound: // the calendar is gone already: its partition follows
		return false, s.write(ctx, opDelete(membershipKey(m.CalendarID, m.UserID), noCondition(), nil))
	}
	return false, fmt.Errorf("remove membership of calendar %s: %w", m.CalendarID, err)
}

// deleteCalendarOf deletes the calendar of a deleted user's last ownership.
func (s *Store) deleteCalendarOf(ctx context.Context, m *calendar.Membership) error {
	items, err := s.batchGet(ctx, []itemKey{feedKey(m.CalendarID)})
	if err != nil {
		return err
	}
	ops := []txOp{
		opDelete(membershipKey(m.CalendarID, m.UserID), noCondition(), nil),
		opDelete(calendarKey(m.CalendarID), noCondition(), nil),
		opDelete(ownerTallyKey(m.CalendarID), noCondition(), nil),
		s.pendingPut(pendingCalendar, m.CalendarID),
	}
	if it := items[feedKey(m.CalendarID)]; it != nil {
		f, err := unmarshal[feedRecord](it)
		if err != nil {
			return err
		}
		ops = append(ops, opDelete(feedTokenKey(f.TokenHash), noCondition(), nil))
	}
	if err := s.transact(ctx, ops...); err != nil {
		return fmt.Errorf("delete calendar %s of a deleted user: %w", m.CalendarID, err)
	}
	return s.finishCalendarDeletion(ctx, m.CalendarID)
}
