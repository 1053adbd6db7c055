package calendar

import (
	"context"
	"slices"
	"time"
)

// Role is what a member may do on a calendar.
type Role string

// The roles, from most to least powerful.
const (
	RoleOwner    Role = "OWNER"     // also edits and deletes the calendar and manages members
	RoleWriter   Role = "WRITER"    // also writes entries
	RoleReader   Role = "READER"    // reads the calendar's entries and members
	RoleFreeBusy Role = "FREE_BUSY" // sees when the calendar is busy, and nothing else of it
	// RoleInvited is no membership: the viewer reached the calendar through
	// an entry they are invited to. It sees the calendar's name, color and
	// zone as FREE_BUSY does, not even when it is busy, and may do nothing
	// with it; no one can be given it (Valid refuses it).
	RoleInvited Role = "INVITED"
)

// Action is something a member may or may not do on a calendar.
type Action int

// The actions roles are checked against.
const (
	ActionRead         Action = iota // see the calendar's entries, tasks and members
	ActionWriteEntries               // create, change and delete entries
	ActionManage                     // edit or delete the calendar, manage members
	ActionFreeBusy                   // see when the calendar is busy
)

// String describes the action for error messages: "your role cannot <action>".
func (a Action) String() string {
	switch a {
	case ActionRead:
		return "read this calendar"
	case ActionWriteEntries:
		return "write entries on this calendar"
	case ActionManage:
		return "edit this calendar or manage its members"
	case ActionFreeBusy:
		return "see when this calendar is busy"
	}
	return "do that"
}

var allowed = map[Action][]Role{
	ActionRead:         {RoleOwner, RoleWriter, RoleReader},
	ActionWriteEntries: {RoleOwner, RoleWriter},
	ActionManage:       {RoleOwner},
	ActionFreeBusy:     {RoleOwner, RoleWriter, RoleReader, RoleFreeBusy},
}

// Valid reports whether r is one of the defined roles.
func (r Role) Valid() bool {
	return r == RoleOwner || r == RoleWriter || r == RoleReader || r == RoleFreeBusy
}

// Can reports whether a member with role r may perform a.
func (r Role) Can(a Action) bool { return slices.Contains(allowed[a], r) }

// RolesAllowed lists the roles that may perform a; stores turn it into a condition
// on the member's role inside the write.
func RolesAllowed(a Action) []Role { return slices.Clone(allowed[a]) }

// ValidateRole checks a role given as input.
func ValidateRole(field string, r Role) error {
	if !r.Valid() {
		return Invalidf(field, "%s must be OWNER, WRITER, READER or FREE_BUSY, got %q", field, r)
	}
	return nil
}

// MembershipKey identifies a membership: one user on one calendar.
type MembershipKey struct {
	CalendarID string
	UserID     string
}

// Membership gives a user a role on a calendar.
type Membership struct {
	CalendarID string
	UserID     string
	Role       Role
	Version    int
	CreatedAt  time.Time
	UpdatedAt  time.Time
	// Settings are the member's own (settings.go), nil where they were not
	// read: memberships listed by a calendar's member pages leave them out,
	// as those pages are cached by the calendar's revision, which settings
	// never raise. Only the member may be shown them.
	Settings *Settings
}

// Key returns the membership's key.
func (m *Membership) Key() MembershipKey {
	return MembershipKey{CalendarID: m.CalendarID, UserID: m.UserID}
}

// MembershipPage is one page of a membership connection. Cursors[i] is the opaque
// cursor of Memberships[i]. EndCursor is where the next page starts: the cursor of
// the last item read, which a reader may have left out of Memberships (a
// membership of a deleted calendar), so paging never gets stuck.
type MembershipPage struct {
	Memberships []*Membership
	Cursors     []string
	EndCursor   string
	HasNextPage bool
}

// MembershipService manages who is on a calendar, for the signed-in viewer. The
// viewer's role is checked inside the write. A calendar always keeps an owner.
type MembershipService interface {
	// AddMember gives the user with email a role on the calendar, returning
	// the membership and the calendar as EntryService.CreateEntry does.
	// Errors: CodeUnauthenticated, CodeNotFound (calendar, or no user with
	// that email), CodeForbidden (viewer not an owner), CodeInvalid,
	// CodeAlreadyExists.
	AddMember(ctx context.Context, calendarID, email string, role Role) (*Membership, *Calendar, error)

	// ChangeRole changes a member's role, returning the membership and the
	// calendar as AddMember does. Errors: CodeUnauthenticated, CodeNotFound,
	// CodeForbidden, CodeInvalid, CodeVersionConflict, CodeLastOwner.
	ChangeRole(ctx context.Context, key MembershipKey, role Role, expectedVersion int) (*Membership, *Calendar, error)

	// RemoveMember removes a member. Errors: as ChangeRole.
	RemoveMember(ctx context.Context, key MembershipKey, expectedVersion int) error

	// LeaveCalendar removes the viewer's own membership, which must still have the
	// expected version, and returns its key. Errors: CodeUnauthenticated,
	// CodeNotFound, CodeVersionConflict, CodeLastOwner.
	LeaveCalendar(ctx context.Context, calendarID string, expectedVersion int) (MembershipKey, error)
}
