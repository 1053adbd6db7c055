package dynamo

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"

	"github.com/calgraph/calgraph/internal/calendar"
)

// AddMember implements calendar.MembershipService.
func (s *Store) AddMember(ctx context.Context, calendarID, email string, role calendar.Role) (*calendar.Membership, *calendar.Calendar, error) {
	if err := calendar.ValidateRole("role", role); err != nil {
		return nil, nil, err
	}
	email, err := calendar.NormalizeEmail(email)
	if err != nil {
		return nil, nil, err
	}
	ek := emailKey(email)
	acc, err := s.access(ctx, calendarID, calendar.ActionManage, ek)
	if err != nil {
		return nil, nil, err
	}
	if acc.items[ek] == nil {
		return nil, acc.calendar, calendar.Errorf(calendar.CodeNotFound, "no user has the email %s: they must sign in once before they can be added", email)
	}
	userID := stringAttr(acc.items[ek], "userId")
	if userID == acc.viewer {
		return nil, acc.calendar, calendar.Errorf(calendar.CodeAlreadyExists, "you are already a member of this calendar")
	}
	now := s.timestamp()
	m := &calendar.Membership{CalendarID: calendarID, UserID: userID, Role: role, Version: 1, CreatedAt: now, UpdatedAt: now, Settings: defaultSettings()}
	w := newWrite()
	w.Idempotent(ctx)
	w.Guard(roleCheck(calendarID, acc.viewer, calendar.ActionManage))
	w.Guard(opCheck(userKey(userID), exists(), mustBeNew(calendar.CodeNotFound, "no user has the email %s", email)))
	w.Put(membershipKey(calendarID, userID), newMembershipRecord(m), notExists(),
		mustBeNew(calendar.CodeAlreadyExists, "%s is already a member of this calendar", email))
	delta := 0
	if role == calendar.RoleOwner {
		delta = +1
	}
	w.Add(calendarStillThere(calendarID, delta))
	w.LogMember(calendarID, userID)
	if err := s.commit(ctx, w); err != nil {
		return nil, acc.calendar, fmt.Errorf("add member to calendar %s: %w", calendarID, err)
	}
	return m, acc.calendar, nil
}

// ChangeRole implements calendar.MembershipService.
func (s *Store) ChangeRole(ctx context.Context, key calendar.MembershipKey, role calendar.Role, expectedVersion int) (*calendar.Membership, *calendar.Calendar, error) {
	if err := calendar.ValidateRole("role", role); err != nil {
		return nil, nil, err
	}
	acc, target, err := s.memberAccess(ctx, key, expectedVersion)
	if err != nil {
		return nil, nil, err
	}
	if target.Role == role {
		return target, acc.calendar, nil
	}
	updated := *target
	updated.Role, updated.Version, updated.UpdatedAt = role, target.Version+1, s.timestamp()
	w := newWrite()
	w.Idempotent(ctx)
	if key.UserID != acc.viewer {
		w.Guard(roleCheck(key.CalendarID, acc.viewer, calendar.ActionManage))
	}
	// An update of the role's own attributes: the member's settings, which
	// they change with a version of their own, stay as they are (settings.go).
	w.Update(membershipKey(key.CalendarID, key.UserID), roleUpdate(&updated),
		membershipAsRead(target), membershipChangedSince(expectedVersion))
	delta := 0
	switch {
	case target.Role == calendar.RoleOwner:
		delta = -1
	case role == calendar.RoleOwner:
		delta = +1
	}
	w.Add(calendarStillThere(key.CalendarID, delta))
	w.LogMember(key.CalendarID, key.UserID)
	if err := s.commit(ctx, w); err != nil {
		return nil, acc.calendar, fmt.Errorf("change role in calendar %s: %w", key.CalendarID, err)
	}
	return &updated, acc.calendar, nil
}

// RemoveMember implements calendar.MembershipService.
func (s *Store) RemoveMember(ctx context.Context, key calendar.MembershipKey, expectedVersion int) error {
	acc, target, err := s.memberAccess(ctx, key, expectedVersion)
	if err != nil {
		return err
	}
	w := newWrite()
	w.Idempotent(ctx)
	if key.UserID != acc.viewer {
		w.Guard(roleCheck(key.CalendarID, acc.viewer, calendar.ActionManage))
	}
	w.Delete(membershipKey(key.CalendarID, key.UserID), membershipAsRead(target), membershipChangedSince(expectedVersion))
	w.Add(dropReminderDefaults(key.CalendarID, key.UserID))
	if target.Role == calendar.RoleOwner {
		w.Add(ownerTally(key.CalendarID, -1))
	}
	w.LogMember(key.CalendarID, key.UserID)
	if err := s.commit(ctx, w); err != nil {
		return fmt.Errorf("remove member from calendar %s: %w", key.CalendarID, err)
	}
	return nil
}

// LeaveCalendar implements calendar.MembershipService. A membership whose
// calendar was deleted (and not yet cleaned up) can be left too.
func (s *Store) LeaveCalendar(ctx context.Context, calendarID string, expectedVersion int) (calendar.MembershipKey, error) {
	viewer, err := calendar.ViewerID(ctx)
	if err != nil {
		return calendar.MembershipKey{}, err
	}
	if err := calendar.ValidateID("calendarId", calendarID); err != nil {
		return calendar.MembershipKey{}, err
	}
	key := calendar.MembershipKey{CalendarID: calendarID, UserID: viewer}
	mk := membershipKey(calendarID, viewer)
	items, err := s.batchGet(ctx, []itemKey{mk, ownerTallyKey(calendarID), calendarKey(calendarID)})
	if err != nil {
		return key, err
	}
	if items[mk] == nil {
		return key, errCalendarNotFound()
	}
	m, err := decodeMembershipRecord(items[mk])
	if err != nil {
		return key, err
	}
	if m.Version != expectedVersion {
		return key, versionMismatch("membership", expectedVersion)(items[mk])
	}
	w := newWrite()
	w.Idempotent(ctx)
	if items[calendarKey(calendarID)] == nil { // deleted, not yet cleaned up: no revision to raise
		w.CalendarGone()
	}
	w.Delete(mk, membershipAsRead(m.membership()), membershipChangedSince(expectedVersion))
	w.Add(dropReminderDefaults(calendarID, viewer))
	if m.Role == string(calendar.RoleOwner) && items[ownerTallyKey(calendarID)] != nil {
		w.Add(ownerTally(calendarID, -1))
	}
	w.LogMember(calendarID, viewer)
	if err := s.commit(ctx, w); err != nil {
		return key, fmt.Errorf("leave calendar %s: %w", calendarID, err)
	}
	return key, nil
}

// roleUpdate sets a membership's role, version and updatedAt to m's.
func roleUpdate(m *calendar.Membership) expression.UpdateBuilder {
	return expression.Set(expression.Name("role"), expression.Value(string(m.Role))).
		Set(expression.Name("version"), expression.Value(m.Version)).
		Set(expression.Name("updatedAt"), expression.Value(m.UpdatedAt))
}

// membershipAsRead holds while membership m is as it was read: its version,
// and its role and creation, so that one removed and made again (its version
// starting over) does not pass for it, and an owner count worked out from the
// role read stays right.
func membershipAsRead(m *calendar.Membership) expression.ConditionBuilder {
	return versionIs(m.Version).
		And(expression.Name("role").Equal(expression.Value(string(m.Role)))).
		And(expression.Name("createdAt").Equal(expression.Value(m.CreatedAt)))
}

// membershipChangedSince explains a failed membershipAsRead: NOT_FOUND when
// the membership is gone, VERSION_CONFLICT when it changed or was made again.
func membershipChangedSince(expected int) explainFunc {
	return func(old item) error {
		if old == nil {
			return calendar.Errorf(calendar.CodeNotFound, "membership not found")
		}
		return calendar.Errorf(calendar.CodeVersionConflict,
			"the membership changed since version %d was read (or was removed and made again): reload it and try again", expected)
	}
}

// memberAccess checks that the viewer manages key's calendar and reads the target
// membership, which must exist with the expected version.
func (s *Store) memberAccess(ctx context.Context, key calendar.MembershipKey, expectedVersion int) (*access, *calendar.Membership, error) {
	if err := calendar.ValidateID("userId", key.UserID); err != nil {
		return nil, nil, err
	}
	mk := membershipKey(key.CalendarID, key.UserID)
	acc, err := s.access(ctx, key.CalendarID, calendar.ActionManage, mk)
	if err != nil {
		return nil, nil, err
	}
	if acc.items[mk] == nil {
		return nil, nil, calendar.Errorf(calendar.CodeNotFound, "membership not found")
	}
	rec, err := decodeMembershipRecord(acc.items[mk])
	if err != nil {
		return nil, nil, err
	}
	if rec.Version != expectedVersion {
		return nil, nil, versionMismatch("membership", expectedVersion)(acc.items[mk])
	}
	return acc, rec.membership(), nil
}

// ownerTally changes a calendar's owner count by delta inside the transaction. A
// decrease is conditional on another owner remaining: this is what guarantees,
// even under concurrent demotions, that a calendar never loses its last owner.
func ownerTally(calendarID string, delta int) txOp {
	owners := expression.Name("owners")
	cond := exists()
	if delta < 0 {
		cond = cond.And(owners.GreaterThan(expression.Value(-delta)))
	}
	upd := expression.Set(owners, owners.Plus(expression.Value(delta)))
	return opUpdate(ownerTallyKey(calendarID), upd, cond, func(old item) error {
		if old == nil {
			return errCalendarNotFound()
		}
		return calendar.Errorf(calendar.CodeLastOwner, "a calendar must keep at least one owner: make someone else an owner first")
	})
}

// calendarStillThere guards a membership write against a concurrent deletion of
// the calendar: it changes the owner tally by delta (which only exists while the
// calendar does), or with no change in owners, checks that the calendar exists.
func calendarStillThere(calendarID string, delta int) txOp {
	if delta != 0 {
		return ownerTally(calendarID, delta)
	}
	return opCheck(calendarKey(calendarID), exists(), func(item) error { return errCalendarNotFound() })
}

// MembershipsOfUser implements calendar.Reader with a GSI1 Query.
func (s *Store) MembershipsOfUser(ctx context.Context, userID string, p calendar.Page) (*calendar.MembershipPage, error) {
	return s.membershipPage(ctx, userMembershipsQuery(userID, p))
}

// userMembershipsQuery lists a user's memberships on GSI1. A cursor's table
// key must be the membership its index key names, so that a forged one
// cannot start the read at another item.
func userMembershipsQuery(userID string, p calendar.Page) pageQuery {
	return pageQuery{
		index: indexGSI1, pkAttr: attrGSI1PK, skAttr: attrGSI1SK,
		partition: userPartition(userID), prefix: prefixCalendar, page: p,
		valid: func(key map[string]string) bool {
			k := membershipKey(strings.TrimPrefix(key[attrGSI1SK], prefixCalendar), userID)
			return key[attrPK] == k.PK && key[attrSK] == k.SK
		},
	}
}

// AllMembershipsOfUser implements calendar.Reader with a GSI1 Query.
func (s *Store) AllMembershipsOfUser(ctx context.Context, userID string, max int) ([]*calendar.Membership, error) {
	in := keyQuery{index: indexGSI1, pkAttr: attrGSI1PK, partition: userPartition(userID),
		sk: skPrefix(attrGSI1SK, prefixCalendar)}.input(s.table)
	var out []*calendar.Membership
	for len(out) < max {
		in.Limit = aws.Int32(int32(max - len(out)))
		page, err := s.reads.Query(ctx, in)
		if err != nil {
			return nil, fmt.Errorf("query memberships of %s: %w", userID, err)
		}
		for _, it := range page.Items {
			r, err := decodeMembershipRecord(it)
			if err != nil {
				return nil, err
			}
			out = append(out, r.membership())
		}
		if len(page.LastEvaluatedKey) == 0 {
			break
		}
		in.ExclusiveStartKey = page.LastEvaluatedKey
	}
	return out, nil
}

// MembershipsOfCalendar implements calendar.Reader with a table Query, or
// from the view cache (viewcache.go) for a scope it may serve when it holds
// the page at the calendar's revision.
func (s *Store) MembershipsOfCalendar(ctx context.Context, scope calendar.ReadScope, cal *calendar.Calendar, p calendar.Page) (*calendar.MembershipPage, error) {
	return cachedRead(ctx, s.views, scope, cal, membersKey(cal, p), clonePage,
		func(p *calendar.MembershipPage) (int, int) { return len(p.Memberships), membersBytes(p) },
		func() (*calendar.MembershipPage, error) {
			page, err := s.membershipPage(ctx, membersQuery(cal.ID, p))
			if page != nil {
				for _, m := range page.Memberships {
					m.Settings = nil // each member's own; and the cache would keep them past a change
				}
			}
			return page, err
		})
}

// clonePage copies a page's slices; the memberships are shared.
func clonePage(p *calendar.MembershipPage) *calendar.MembershipPage {
	c := *p
	c.Memberships, c.Cursors = slices.Clone(p.Memberships), slices.Clone(p.Cursors)
	return &c
}

// membersQuery lists a calendar's memberships on the table.
func membersQuery(calendarID string, p calendar.Page) pageQuery {
	return pageQuery{pkAttr: attrPK, skAttr: attrSK, partition: calendarPartition(calendarID), prefix: prefixMember, consistent: true, page: p}
}

func (s *Store) membershipPage(ctx context.Context, q pageQuery) (*calendar.MembershipPage, error) {
	res, err := s.queryPage(ctx, q)
	if err != nil {
		return nil, err
	}
	page := &calendar.MembershipPage{Cursors: res.cursors, HasNextPage: res.hasNext}
	if n := len(res.cursors); n > 0 {
		page.EndCursor = res.cursors[n-1]
	}
	for _, it := range res.items {
		r, err := decodeMembershipRecord(it)
		if err != nil {
			return nil, err
		}
		page.Memberships = append(page.Memberships, r.membership())
	}
	return page, nil
}
