package calendar

import "context"

// InvitationChange is a change of one of the viewer's invitations to an
// entry: made, answered (by them, or seated from the waitlist), or gone
// (Removed: they were removed, or the entry deleted). Attendee is the
// invitation as it is now, nil when Removed.
type InvitationChange struct {
	Entry    EntryKey
	Removed  bool
	Attendee *Attendee
}

// InvitationChangePage is one read of the viewer's invitation changes.
type InvitationChangePage struct {
	Changes []InvitationChange
	// More is true when changes remain: read again at once with Token.
	More bool
	// Token continues from the end of this page.
	Token string
}

// InvitationSyncService syncs the viewer's own invitations, which live in
// their own change log beside their calendar list: every write that
// invites, removes or answers for a calgraph user (a waitlist promotion
// included, and an entry's deletion) leaves a record there in its own
// transaction.
type InvitationSyncService interface {
	// InvitationChanges reads the viewer's invitation changes after token,
	// or, without one, every invitation they hold now, a page at a time.
	// Errors: CodeInvalid (bad token or page size), CodeSyncTokenExpired.
	InvitationChanges(ctx context.Context, token string, first int) (*InvitationChangePage, error)
}
