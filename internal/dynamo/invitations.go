package dynamo

import (
	"context"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"

	"github.com/calgraph/calgraph/internal/calendar"
)

// invitationRecord is an invitation, in its calendar's partition and on GSI2
// by its token's hash. ExpiresAt lets DynamoDB's TTL remove it a while after
// it stops being valid.
type invitationRecord struct {
	PK         string    `dynamodbav:"PK"`
	SK         string    `dynamodbav:"SK"`
	GSI2PK     string    `dynamodbav:"GSI2PK"`
	GSI2SK     string    `dynamodbav:"GSI2SK"`
	EntityType string    `dynamodbav:"entityType"`
	ID         string    `dynamodbav:"id"`
	CalendarID string    `dynamodbav:"calendarId"`
	Role       string    `dynamodbav:"role"`
	ValidUntil int64     `dynamodbav:"validUntil"` // Unix milliseconds, for conditions
	MaxUses    int       `dynamodbav:"maxUses"`
	Uses       int       `dynamodbav:"uses"`
	CreatedBy  string    `dynamodbav:"createdBy"`
	CreatedAt  time.Time `dynamodbav:"createdAt"`
	ExpiresAt  int64     `dynamodbav:"expiresAt"`
}

// invitationKeep is how long an invitation stays listed after it expires.
const invitationKeep = 30 * 24 * time.Hour

func newInvitationRecord(inv *calendar.Invitation, tokenHash string) invitationRecord {
	k, ik := invitationKey(inv.CalendarID, inv.ID), invitationIndexKey(tokenHash)
	return invitationRecord{PK: k.PK, SK: k.SK, GSI2PK: ik.PK, GSI2SK: ik.SK, EntityType: entityInvitation,
		ID: inv.ID, CalendarID: inv.CalendarID, Role: string(inv.Role), ValidUntil: inv.ValidUntil.UnixMilli(),
		MaxUses: inv.MaxUses, Uses: inv.Uses, CreatedBy: inv.CreatedBy, CreatedAt: inv.CreatedAt,
		ExpiresAt: inv.ValidUntil.Add(invitationKeep).Unix()}
}

func (r invitationRecord) invitation() *calendar.Invitation {
	return &calendar.Invitation{ID: r.ID, CalendarID: r.CalendarID, Role: calendar.Role(r.Role), ValidUntil: time.UnixMilli(r.ValidUntil).UTC(),
		MaxUses: r.MaxUses, Uses: r.Uses, CreatedBy: r.CreatedBy, CreatedAt: r.CreatedAt}
}

// CreateInvitation implements calendar.InvitationService.
func (s *Store) CreateInvitation(ctx context.Context, n calendar.NewInvitation) (*calendar.Invitation, string, *calendar.Calendar, error) {
	acc, err := s.access(ctx, n.CalendarID, calendar.ActionManage)
	if err != nil {
		return nil, "", nil, err
	}
	now := s.timestamp()
	inv, err := n.Build(now)
	if err != nil {
		return nil, "", acc.calendar, err
	}
	inv.ID, inv.CreatedBy, inv.CreatedAt = s.newID(), acc.viewer, now
	token := calendar.NewFeedToken()
	w := newWrite()
	w.Idempotent(ctx)
	w.Guard(roleCheck(n.CalendarID, acc.viewer, calendar.ActionManage))
	w.Guard(calendarStillThere(n.CalendarID, 0))
	w.Put(invitationKey(inv.CalendarID, inv.ID), newInvitationRecord(&inv, calendar.FeedTokenHash(token)), notExists(),
		mustBeNew(calendar.CodeInternal, "invitation ID collision"))
	if err := s.commit(ctx, w); err != nil {
		return nil, "", acc.calendar, fmt.Errorf("create invitation to calendar %s: %w", n.CalendarID, err)
	}
	return &inv, token, acc.calendar, nil
}

// RevokeInvitation implements calendar.InvitationService.
func (s *Store) RevokeInvitation(ctx context.Context, key calendar.InvitationKey) error {
	if err := calendar.ValidateID("id", key.ID); err != nil {
		return err
	}
	acc, err := s.access(ctx, key.CalendarID, calendar.ActionManage)
	if err != nil {
		return err
	}
	w := newWrite()
	w.Idempotent(ctx)
	w.Guard(roleCheck(key.CalendarID, acc.viewer, calendar.ActionManage))
	w.Delete(invitationKey(key.CalendarID, key.ID), exists(), func(item) error { return calendar.ErrInvitationNotFound() })
	if err := s.commit(ctx, w); err != nil {
		return fmt.Errorf("revoke invitation %s: %w", key.ID, err)
	}
	return nil
}

// AcceptInvitation implements calendar.InvitationService: the token's hash is
// looked up on GSI2, then one transaction counts the use (under a condition
// that it is still valid and not used up) and creates the membership. An
// invitation works only while its creator may still manage the calendar, so
// that a removed or demoted owner cannot come back through one (their own
// included); a calendar being deleted answers as any dead token does, to
// members too.
func (s *Store) AcceptInvitation(ctx context.Context, token string) (*calendar.Membership, error) {
	viewer, err := calendar.ViewerID(ctx)
	if err != nil {
		return nil, err
	}
	inv, err := s.invitationByToken(ctx, token)
	if err != nil {
		return nil, err
	}
	now := s.timestamp()
	if !inv.Usable(now) {
		return nil, calendar.ErrInvitationNotFound()
	}
	if inv.CreatedBy == viewer {
		return nil, s.ownInvitation(ctx, inv)
	}
	m := &calendar.Membership{CalendarID: inv.CalendarID, UserID: viewer, Role: inv.Role, Version: 1, CreatedAt: now, UpdatedAt: now, Settings: defaultSettings()}
	uses := expression.Name("uses")
	stillValid := exists().And(uses.LessThan(expression.Name("maxUses"))).
		And(expression.Name("validUntil").GreaterThan(expression.Value(now.UnixMilli())))
	dead := func(item) error { return calendar.ErrInvitationNotFound() }
	delta := 0
	if m.Role == calendar.RoleOwner {
		delta = 1
	}
	// The calendar and the creator come before the membership, whose
	// ALREADY_EXISTS would otherwise tell a member about a dead token.
	w := newWrite()
	w.Idempotent(ctx)
	w.Update(invitationKey(inv.CalendarID, inv.ID), expression.Set(uses, uses.Plus(expression.Value(1))), stillValid, dead)
	w.Guard(opCheck(userKey(viewer), exists(), mustBeNew(calendar.CodeUnauthenticated, "your account no longer exists")))
	w.Add(calendarStillThere(m.CalendarID, delta))
	w.Guard(opCheck(membershipKey(m.CalendarID, inv.CreatedBy), roleIn(calendar.RolesAllowed(calendar.ActionManage)), dead))
	w.Put(membershipKey(m.CalendarID, viewer), newMembershipRecord(m), notExists(),
		mustBeNew(calendar.CodeAlreadyExists, "you are a member of this calendar already"))
	w.LogMember(m.CalendarID, viewer)
	if err := s.commit(ctx, w); err != nil {
		if calendar.ErrorCode(err) == calendar.CodeNotFound {
			// The invitation, or its calendar, deleted a moment ago: the same
			// answer as for any token that does not work.
			return nil, calendar.ErrInvitationNotFound()
		}
		return nil, fmt.Errorf("accept invitation %s: %w", inv.ID, err)
	}
	return m, nil
}

// ownInvitation answers the creator of an invitation accepting it: they are
// a member of the calendar already, or no longer one (or it is gone), in
// which case the invitation no longer works. Nothing is written.
func (s *Store) ownInvitation(ctx context.Context, inv *calendar.Invitation) error {
	ck, mk := calendarKey(inv.CalendarID), membershipKey(inv.CalendarID, inv.CreatedBy)
	items, err := s.batchGet(ctx, []itemKey{ck, mk})
	switch {
	case err != nil:
		return err
	case items[ck] != nil && items[mk] != nil:
		return calendar.Errorf(calendar.CodeAlreadyExists, "you are a member of this calendar already")
	}
	return calendar.ErrInvitationNotFound()
}

// invitationByToken finds an invitation by its token's hash on GSI2, which
// is eventually consistent: an invitation created a moment ago may not be
// found yet.
func (s *Store) invitationByToken(ctx context.Context, token string) (*calendar.Invitation, error) {
	if !calendar.ValidFeedToken(token) {
		return nil, calendar.ErrInvitationNotFound()
	}
	ik := invitationIndexKey(calendar.FeedTokenHash(token))
	out, err := s.reads.Query(ctx, keyQuery{index: indexGSI2, pkAttr: attrGSI2PK, partition: ik.PK,
		sk: skEqual(attrGSI2SK, ik.SK), limit: 1}.input(s.table))
	if err != nil {
		return nil, fmt.Errorf("look up invitation: %w", err)
	}
	if len(out.Items) == 0 {
		return nil, calendar.ErrInvitationNotFound()
	}
	r, err := unmarshal[invitationRecord](out.Items[0])
	if err != nil {
		return nil, err
	}
	return r.invitation(), nil
}

// InvitationsOfCalendar implements calendar.InvitationReader.
func (s *Store) InvitationsOfCalendar(ctx context.Context, calendarID string, p calendar.Page) (*calendar.InvitationPage, error) {
	res, err := s.queryPage(ctx, invitationsQuery(calendarID, p))
	if err != nil {
		return nil, err
	}
	page := &calendar.InvitationPage{Cursors: res.cursors, HasNextPage: res.hasNext}
	if n := len(res.cursors); n > 0 {
		page.EndCursor = res.cursors[n-1]
	}
	for _, it := range res.items {
		r, err := unmarshal[invitationRecord](it)
		if err != nil {
			return nil, err
		}
		page.Invitations = append(page.Invitations, r.invitation())
	}
	return page, nil
}

// invitationsQuery lists a calendar's invitations on the table.
func invitationsQuery(calendarID string, p calendar.Page) pageQuery {
	return pageQuery{pkAttr: attrPK, skAttr: attrSK, partition: calendarPartition(calendarID),
		prefix: prefixInvite, consistent: true, page: p}
}
