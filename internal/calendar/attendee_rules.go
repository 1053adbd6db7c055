package calendar

import (
	"context"
	"slices"
)

// AttendeeView is how much of an entry's people a viewer sees.
type AttendeeView int

// The views, from least to most.
const (
	SeeNoAttendees  AttendeeView = iota // nothing of the attendees (FREE_BUSY, or not invited)
	SeeOwnAttendee                      // the viewer's own answer only (the list is hidden)
	SeeAllAttendees                     // the list, the summary and every answer
)

// AttendeesVisible says what a viewer sees of an entry's attendees: members
// with READER or more and the organizer see everything; an invited user sees
// everything unless the organizer hides the list, and then their own answer;
// anyone else (a FREE_BUSY member, or role "" for no membership) nothing.
func AttendeesVisible(role Role, isOrganizer, isAttendee bool, att Attendance) AttendeeView {
	switch {
	case role.Can(ActionRead) || isOrganizer:
		return SeeAllAttendees
	case isAttendee && !att.HideAttendees:
		return SeeAllAttendees
	case isAttendee:
		return SeeOwnAttendee
	}
	return SeeNoAttendees
}

// CanChangeAttendees reports whether a member with role may add and remove
// attendees: writers, as for the entry itself.
func CanChangeAttendees(role Role) bool { return role.Can(ActionWriteEntries) }

// CanRespond reports whether viewer may answer as attendee a: only the
// invited user themselves, whatever their role on the calendar (none is
// needed); an external attendee has no account to answer with.
func CanRespond(viewer string, a *Attendee) bool {
	return a != nil && a.UserID != "" && a.UserID == viewer
}

// AttendeeFilter narrows a list of attendees or invitations to some responses
// (none: all); a waitlisted acceptance is ACCEPTED.
type AttendeeFilter struct {
	Responses []Response
}

// Keeps reports whether the filter keeps a.
func (f AttendeeFilter) Keeps(a *Attendee) bool {
	return len(f.Responses) == 0 || slices.Contains(f.Responses, a.Response)
}

// Validate checks the filter's responses.
func (f AttendeeFilter) Validate() error {
	for _, r := range f.Responses {
		if !r.Valid() {
			return Invalidf("response", "%q is not a response", r)
		}
	}
	return nil
}

// AttendeePage is one page of an attendee connection.
type AttendeePage struct {
	Attendees   []*Attendee
	Cursors     []string
	EndCursor   string
	HasNextPage bool
}

// AttendeeService keeps the people on entries, for the signed-in viewer.
type AttendeeService interface {
	// ChangeAttendees adds and removes attendees of a single entry and
	// returns the entry with its new summary. Errors: CodeUnauthenticated,
	// CodeNotFound (entry, or a removed email not invited), CodeForbidden
	// (not a writer), CodeInvalid (duplicates, more than MaxAttendees or
	// MaxAttendeeDelta, a recurring entry), CodeAlreadyExists (already
	// invited).
	ChangeAttendees(ctx context.Context, d AttendeeDelta) (*Entry, error)

	// Respond answers as the viewer, who must be invited (no role needed).
	// Errors: CodeUnauthenticated, CodeNotFound (no such entry, or not
	// invited to it: the same answer), CodeInvalid, CodeVersionConflict
	// (the answer changed since ExpectedVersion), CodeCapacityReached.
	Respond(ctx context.Context, r RSVP) (*Attendee, error)

	// Attendees returns a page of an entry's attendees, narrowed by f, as
	// far as the viewer may see them (AttendeesVisible). Errors:
	// CodeUnauthenticated, CodeNotFound, CodeInvalid.
	Attendees(ctx context.Context, key EntryKey, f AttendeeFilter, p Page) (*AttendeePage, error)

	// Attendance returns the viewer's own answer to an entry, nil when
	// they are not invited.
	Attendance(ctx context.Context, key EntryKey) (*Attendee, error)

	// EntryInvitations returns a page of the viewer's invitations to
	// entries, newest first, narrowed by f.
	EntryInvitations(ctx context.Context, f AttendeeFilter, p Page) (*AttendeePage, error)
}
