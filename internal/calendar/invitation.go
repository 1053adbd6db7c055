package calendar

import (
	"context"
	"time"
)

// Invitation limits.
const (
	MaxInvitationUses     = 1000
	MaxInvitationLifetime = 90 * 24 * time.Hour
	DefaultInvitationLife = 7 * 24 * time.Hour
)

// InvitationKey identifies an invitation: its calendar and its ID.
type InvitationKey struct {
	CalendarID string
	ID         string
}

// Invitation lets whoever holds its secret link join a calendar with a role,
// until it expires or has been used MaxUses times. Only a hash of the link's
// token is stored.
type Invitation struct {
	ID         string
	CalendarID string
	Role       Role
	ValidUntil time.Time
	MaxUses    int
	Uses       int
	CreatedBy  string // user ID
	CreatedAt  time.Time
}

// Key returns the invitation's key.
func (i *Invitation) Key() InvitationKey { return InvitationKey{CalendarID: i.CalendarID, ID: i.ID} }

// Usable reports whether the invitation can still be accepted at now.
func (i *Invitation) Usable(now time.Time) bool {
	return now.Before(i.ValidUntil) && i.Uses < i.MaxUses
}

// NewInvitation is the input for creating an invitation; a zero ValidUntil
// means DefaultInvitationLife from now, a zero MaxUses one use.
type NewInvitation struct {
	CalendarID string
	Role       Role
	ValidUntil time.Time
	MaxUses    int
}

// Build validates n at now and returns the invitation it describes, without
// ID, creator and creation time (the store sets those).
func (n NewInvitation) Build(now time.Time) (Invitation, error) {
	inv := Invitation{CalendarID: n.CalendarID, Role: n.Role, ValidUntil: n.ValidUntil, MaxUses: n.MaxUses}
	if err := ValidateRole("role", n.Role); err != nil {
		return inv, err
	}
	if inv.ValidUntil.IsZero() {
		inv.ValidUntil = now.Add(DefaultInvitationLife)
	}
	if !inv.ValidUntil.After(now) || inv.ValidUntil.Sub(now) > MaxInvitationLifetime {
		return inv, Invalidf("validUntil", "validUntil must be in the future and at most %d days away", int(MaxInvitationLifetime.Hours()/24))
	}
	if inv.MaxUses == 0 {
		inv.MaxUses = 1
	}
	if inv.MaxUses < 1 || inv.MaxUses > MaxInvitationUses {
		return inv, Invalidf("maxUses", "maxUses must be between 1 and %d", MaxInvitationUses)
	}
	return inv, nil
}

// InvitationPage is one page of a calendar's invitations, oldest first.
type InvitationPage struct {
	Invitations []*Invitation
	Cursors     []string
	EndCursor   string
	HasNextPage bool
}

// ErrInvitationNotFound is the one answer for a token that is unknown,
// expired, used up or revoked, so that a token's fate is not revealed.
func ErrInvitationNotFound() error {
	return Errorf(CodeNotFound, "invitation not found: it may have expired, been used up or been revoked")
}

// InvitationService manages invitation links, for the signed-in viewer.
type InvitationService interface {
	// CreateInvitation creates an invitation and returns it with its secret
	// token, shown only now, and the calendar as EntryService.CreateEntry
	// does. Owners only. Errors: CodeUnauthenticated, CodeNotFound,
	// CodeForbidden, CodeInvalid.
	CreateInvitation(ctx context.Context, n NewInvitation) (*Invitation, string, *Calendar, error)

	// RevokeInvitation deletes an invitation. Owners only. Errors: as
	// CreateInvitation.
	RevokeInvitation(ctx context.Context, key InvitationKey) error

	// AcceptInvitation makes the viewer a member with the invitation's role
	// and counts the use, in one write. Errors: CodeUnauthenticated,
	// CodeNotFound (ErrInvitationNotFound), CodeAlreadyExists (a member
	// already).
	AcceptInvitation(ctx context.Context, token string) (*Membership, error)
}

// InvitationReader lists invitations; like Reader it does not authorize.
type InvitationReader interface {
	// InvitationsOfCalendar pages through a calendar's invitations, oldest
	// first. Errors: CodeInvalid (bad page or cursor).
	InvitationsOfCalendar(ctx context.Context, calendarID string, p Page) (*InvitationPage, error)
}
