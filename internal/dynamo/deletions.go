package dynamo

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/calgraph/calgraph/internal/calendar"
)

// Deleting a calendar or a user removes many items. The first transaction
// makes the thing invisible at once (it deletes the calendar item, or the
// user's items) and writes a pending-deletion item; the rest is removed in
// batches after it, and the pending item goes last. Should the process stop
// halfway, ResumeDeletions (run at start-up and from time to time, maybe by
// several processes at once) finds the pending items and finishes the work:
// every step can be repeated, and each is conditioned so that two runs of
// it cannot both take effect.
//
// A user's deletion is left to the request that made it for
// userDeletionGrace: ResumeDeletions takes up only older ones. So the
// request's answer names every calendar deleted with the user (unless it took
// longer), and the later run lists the user's memberships again: they are
// listed on GSI1, which is eventually consistent, so the request's run may
// have missed one made a moment before (no membership can be made after:
// each write of one checks that its user exists).

// userDeletionGrace is how long a user's deletion is left to the request
// that made it.
const userDeletionGrace = time.Minute

// pendingRecord marks a deletion under way.
type pendingRecord struct {
	PK         string    `dynamodbav:"PK"`
	SK         string    `dynamodbav:"SK"`
	EntityType string    `dynamodbav:"entityType"`
	Kind       string    `dynamodbav:"kind"` // "calendar" or "user"
	ID         string    `dynamodbav:"id"`
	CreatedAt  time.Time `dynamodbav:"createdAt"`
	// Abandoned marks a split given up (series_split.go settleSplit): its
	// switch can no longer be made.
	Abandoned bool `dynamodbav:"abandoned,omitempty"`
	// Trash is the SK of the trash item a deletion or restore made in
	// steps puts or takes (trash_steps.go).
	Trash string `dynamodbav:"trash,omitempty"`
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
	w := newWrite()
	w.Idempotent(ctx)
	w.Delete(pendingKey(pendingCalendar, id), noCondition(), nil)
	return s.commitSmall(ctx, w)
}

// finishLater removes a deleted calendar's items once the mutation's result
// is known (calendar.AfterResult), in a context the client's hanging up does
// not cancel; what it cannot finish, ResumeDeletions does.
func (s *Store) finishLater(ctx context.Context, ids ...string) {
	calendar.AfterResult(ctx, func(ctx context.Context) {
		cleanup, cancel := cleanupContext(ctx)
		defer cancel()
		for _, id := range ids {
			if err := s.finishCalendarDeletion(cleanup, id); err != nil {
				s.log.ErrorContext(ctx, "removing a deleted calendar's items (it resumes later)", "calendar", id, "err", err)
				return
			}
		}
	})
}

// ResumeDeletions finishes the deletions that were cut off halfway (for a
// user's, begun at least userDeletionGrace ago), and settles the series
// splits, and the deletions into and restores from the trash, made in
// steps that were cut off (begun at least splitGrace ago: series_split.go,
// trash_steps.go), and returns how many it finished.
func (s *Store) ResumeDeletions(ctx context.Context) (int, error) {
	lo, hi := pendingRange()
	items, err := s.queryBetween(ctx, "", attrSK, pendingPartition, lo, hi, filter{}, math.MaxInt)
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
			if s.now().Sub(r.CreatedAt) < userDeletionGrace {
				continue
			}
			err = s.finishUserDeletion(ctx, r.ID)
		case pendingSplit:
			if s.now().Sub(r.CreatedAt) < splitGrace {
				continue
			}
			err = s.settleSplit(ctx, r.ID)
		case pendingTrash, pendingRestore:
			if s.now().Sub(r.CreatedAt) < splitGrace {
				continue
			}
			err = s.settleTrashStep(ctx, r)
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
// of is deleted, its items after the result (finishLater).
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
	w := newWrite()
	w.Idempotent(ctx)
	w.Delete(userKey(u.ID), versionIs(u.Version), versionMismatch("user", u.Version))
	w.Delete(emailKey(u.Email), noCondition(), nil)
	w.Delete(identityKey(u.Identity.Provider, u.Identity.Subject), noCondition(), nil)
	w.Delete(statsKey(u.ID), noCondition(), nil)
	w.Delete(statsTotalsKey(u.ID), noCondition(), nil)
	w.Delete(workingHoursKey(u.ID), noCondition(), nil)
	w.Delete(reminderWebhookKey(u.ID), noCondition(), nil)
	w.Add(s.pendingPut(pendingUser, u.ID))
	if err := s.commit(ctx, w); err != nil {
		return nil, nil, fmt.Errorf("delete user %s: %w", u.ID, err)
	}
	cleanup, cancel := cleanupContext(ctx)
	defer cancel()
	deleted, err := s.dropMemberships(cleanup, u.ID)
	if err != nil {
		s.log.ErrorContext(ctx, "removing a deleted user's memberships (it resumes later)", "user", u.ID, "err", err)
	}
	if err := s.leaveInvitations(cleanup, u.ID); err != nil {
		s.log.ErrorContext(ctx, "taking a deleted user off the entries they were invited to (it resumes later)", "user", u.ID, "err", err)
	}
	s.finishLater(ctx, deleted...)
	return u, deleted, nil
}

// finishUserDeletion finishes a pending user deletion: it removes the
// memberships left, and the calendars they were the last owner of, takes
// the user off the entries they are still invited to, and then removes the
// pending item.
func (s *Store) finishUserDeletion(ctx context.Context, userID string) error {
	deleted, err := s.dropMemberships(ctx, userID)
	for _, id := range deleted {
		if ferr := s.finishCalendarDeletion(ctx, id); ferr != nil && err == nil {
			err = ferr
		}
	}
	if err != nil {
		return err
	}
	if err := s.leaveInvitations(ctx, userID); err != nil {
		return err
	}
	// The stats totals went with the account, but deleting the user's
	// calendars since may have written them again (their entries' counts),
	// and the stats trees' nodes are many: they go now, then the pending item.
	if err := s.removeStats(ctx, userID); err != nil {
		return err
	}
	if err := s.dropWaiting(ctx, reminderWebhookKey(userID)); err != nil {
		return err
	}
	if err := s.dropHooksOf(ctx, userID); err != nil {
		return err
	}
	w := newWrite()
	w.Idempotent(ctx)
	w.Delete(pendingKey(pendingUser, userID), noCondition(), nil)
	return s.commitSmall(ctx, w)
}

// removeStats deletes every stats item of a user.
func (s *Store) removeStats(ctx context.Context, userID string) error {
	lo, hi := statsRange()
	items, err := s.queryBetween(ctx, "", attrSK, userPartition(userID), lo, hi, filter{}, math.MaxInt)
	if err != nil {
		return fmt.Errorf("list the stats items of %s: %w", userID, err)
	}
	writes := make([]types.WriteRequest, len(items))
	for i, it := range items {
		writes[i] = types.WriteRequest{DeleteRequest: &types.DeleteRequest{Key: keyOf(it).av()}}
	}
	return s.batchWrite(ctx, writes)
}

// dropMemberships removes a deleted user's memberships, deleting the
// calendars they were the last owner of (whose items are left for
// finishCalendarDeletion), and returns those calendars.
func (s *Store) dropMemberships(ctx context.Context, userID string) ([]string, error) {
	ms, err := s.AllMembershipsOfUser(ctx, userID, math.MaxInt32)
	if err != nil {
		return nil, err
	}
	var deleted []string
	for _, m := range ms {
		gone, err := s.leaveCalendar(ctx, m)
		if err != nil {
			return deleted, err
		}
		if gone {
			deleted = append(deleted, m.CalendarID)
		}
	}
	return deleted, nil
}

// maxLeaveAttempts bounds how often leaveCalendar looks again after the
// calendar changed under it.
const maxLeaveAttempts = 5

// leaveCalendar removes a deleted user's membership, or when it is the
// calendar's last owner, the calendar; gone reports the latter. A run that
// finds the work done (by another run) does nothing.
func (s *Store) leaveCalendar(ctx context.Context, m *calendar.Membership) (gone bool, err error) {
	for range maxLeaveAttempts {
		var lastOwner bool
		m, lastOwner, err = s.dropMembership(ctx, m)
		if err != nil || m == nil || !lastOwner {
			return false, err
		}
		if err = s.deleteCalendarOf(ctx, m); !errors.Is(err, errCalendarChanged) {
			return err == nil, err
		}
	}
	return false, fmt.Errorf("calendar %s: its owners or feed kept changing", m.CalendarID)
}

// membershipChanged explains a membership that is not as read: gone (old
// nil), or with another role.
type membershipChanged struct{ old item }

func (membershipChanged) Error() string { return "the membership changed" }

// errCalendarChanged: a calendar's last owner is no longer its last, or its
// feed changed, between the reads and the transaction deleting it.
var errCalendarChanged = errors.New("the calendar's owners or feed changed")

// dropMembership removes membership m of a deleted user if it is still as
// read, counting an owner out. It returns the membership as it is now (nil
// when gone, whoever removed it), and lastOwner when it is the calendar's
// last owner, whose calendar goes instead.
func (s *Store) dropMembership(ctx context.Context, m *calendar.Membership) (now *calendar.Membership, lastOwner bool, err error) {
	key := membershipKey(m.CalendarID, m.UserID)
	asRead := exists().And(expression.Name("role").Equal(expression.Value(string(m.Role))))
	w := newWrite()
	w.Idempotent(ctx)
	w.Delete(key, asRead, func(old item) error { return membershipChanged{old} })
	w.Add(dropReminderDefaults(m.CalendarID, m.UserID))
	if m.Role == calendar.RoleOwner {
		w.Add(ownerTally(m.CalendarID, -1))
	}
	w.LogMember(m.CalendarID, m.UserID)
	err = s.commit(ctx, w)
	var changed membershipChanged
	switch code := calendar.ErrorCode(err); {
	case err == nil:
		return nil, false, nil
	case errors.As(err, &changed):
		if changed.old == nil {
			return nil, false, nil
		}
		r, err := decodeMembershipRecord(changed.old)
		if err != nil {
			return nil, false, err
		}
		return s.dropMembership(ctx, r.membership())
	case code == calendar.CodeLastOwner:
		return m, true, nil
	case code == calendar.CodeNotFound: // the calendar is gone already: its partition follows
		gone := newWrite()
		gone.Idempotent(ctx)
		gone.CalendarGone()
		gone.Delete(key, noCondition(), nil)
		gone.LogMember(m.CalendarID, m.UserID)
		return nil, false, s.commit(ctx, gone)
	}
	return m, false, fmt.Errorf("remove membership of calendar %s: %w", m.CalendarID, err)
}

// deleteCalendarOf deletes the calendar of a deleted user's last ownership m,
// if it still is: errCalendarChanged when another owner has come since (or
// its feed changed, or the membership went: another owner may have come
// and removed it). Only a calendar item gone means another run deleted the
// calendar (only its last owner could), which counts as deleted: this user's
// deletion is what deleted it. The calendar is checked first, so that is what
// a transaction refused on several counts says.
func (s *Store) deleteCalendarOf(ctx context.Context, m *calendar.Membership) error {
	items, err := s.batchGet(ctx, []itemKey{feedKey(m.CalendarID)})
	if err != nil {
		return err
	}
	errDone := errors.New("done by another run")
	done := func(item) error { return errDone }
	owners := expression.Name("owners")
	changed := func(item) error { return errCalendarChanged }
	w := newWrite()
	w.Idempotent(ctx)
	w.Delete(calendarKey(m.CalendarID), exists(), done)
	w.Delete(ownerTallyKey(m.CalendarID), exists().And(owners.Equal(expression.Value(1))), changed)
	w.Delete(membershipKey(m.CalendarID, m.UserID), roleIn([]calendar.Role{calendar.RoleOwner}), changed)
	w.Add(s.pendingPut(pendingCalendar, m.CalendarID))
	feed, err := feedEnding(items, m.CalendarID, changed)
	if err != nil {
		return err
	}
	w.Add(feed...)
	w.LogCalendar(m.CalendarID)
	w.LogMember(m.CalendarID, m.UserID)
	if err := s.commit(ctx, w); err != nil && !errors.Is(err, errDone) {
		return fmt.Errorf("delete calendar %s of a deleted user: %w", m.CalendarID, err)
	}
	return nil
}
