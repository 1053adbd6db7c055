package calendar

import (
	"context"
	"time"
)

// Incremental sync. Every write that changes what a member of a calendar can
// see (the calendar, its memberships, its entries and series) leaves a change
// record in the calendar's change log, in the same transaction; every write of
// a membership also leaves one in its user's log (the viewer's calendar list).
// A sync token is a position in one log: reading from it returns each object
// changed since, once, as it is now (or a tombstone when it is gone), and a new
// token. A read without a token returns everything and the token to continue
// from. How positions are made exact across server instances is told in
// package dynamo (changes.go).

// LogRef names a change log: a calendar's, or with User a user's calendar
// list.
type LogRef struct {
	ID   string
	User bool
}

// ObjectType is the kind of object a change is about.
type ObjectType int

// Object types of a calendar's changes.
const (
	ObjectCalendar   ObjectType = iota + 1 // the calendar itself
	ObjectMembership                       // a member's membership (ID: the user's ID)
	ObjectEntry                            // an entry or a series (with its exceptions)
)

// ObjectChange is one object of a calendar as it is now, or its tombstone.
type ObjectChange struct {
	Type       ObjectType
	CalendarID string
	// ID is the object's ID within the calendar: the calendar's ID, the member's
	// user ID, or the entry's (or series') ID.
	ID      string
	Deleted bool

	Calendar   *Calendar   // for ObjectCalendar
	Membership *Membership // for ObjectMembership
	Entry      *Entry      // for ObjectEntry: a single entry, or a series' master
	// Series is the whole series when Entry is a series' master: its
	// exceptions replace those a client held, and the occurrences the client
	// expanded are those of Series.
	Series *Series
}

// ChangePage is one read of a change log.
type ChangePage struct {
	Changes []ObjectChange
	// More is true when changes remain: read again at once with Token.
	More bool
	// Token continues from the end of this page.
	Token string
	// Calendar is the calendar as this read found it, so that whoever shows
	// the changed entries needs no read of it: nil when it is gone, or when
	// the read found no changes. (A change of the calendar itself among
	// Changes may be newer.)
	Calendar *Calendar
}

// CalendarListChange is a change of the viewer's calendar list: a calendar
// the viewer joined or whose role changed (Membership set), or one the viewer
// no longer has (left, removed, or the calendar deleted).
type CalendarListChange struct {
	CalendarID string
	Removed    bool
	Membership *Membership
}

// CalendarListPage is one read of the viewer's calendar-list log.
type CalendarListPage struct {
	Changes []CalendarListChange
	// Invitations are the user's invitation changes among the same records
	// of their log (InvitationSyncService), for live delivery; a read of
	// the calendar list leaves them out.
	Invitations []InvitationChange
	// Alerts are the user's alerts among the same records (fired, snoozed
	// or dismissed), for the `reminders` subscription; a read of the
	// calendar list or of the invitations leaves them out.
	Alerts []*Alert
	More   bool
	Token  string
}

// Sync limits.
const (
	DefaultChangePage = 100
	MaxChangePage     = 100
	// DefaultChangeRetention is how long change records are kept: a token
	// older than that fails with CodeSyncTokenExpired.
	DefaultChangeRetention = 7 * 24 * time.Hour
)

// ValidateChangePage checks the size of a change page.
func ValidateChangePage(first int) error {
	if first < 1 || first > MaxChangePage {
		return Invalidf("first", "first must be between 1 and %d, got %d", MaxChangePage, first)
	}
	return nil
}

// SyncService reads change logs. Authorization: a calendar's log needs
// ActionRead (FREE_BUSY members cannot sync); the calendar-list log is the
// viewer's own.
type SyncService interface {
	// Changes reads a calendar's changes after token ("" for everything).
	// Errors: CodeUnauthenticated, CodeNotFound, CodeForbidden, CodeInvalid
	// (a malformed token, or one of another calendar), CodeSyncTokenExpired.
	Changes(ctx context.Context, calendarID, token string, first int) (*ChangePage, error)

	// CalendarListChanges reads the viewer's calendar-list changes after token
	// ("" for the whole list). Errors: as Changes.
	CalendarListChanges(ctx context.Context, token string, first int) (*CalendarListPage, error)

	// LogChanges reads a calendar's changes after token as Changes does, but
	// without authorization and without a full read (token must be set): for
	// live delivery, which authorizes each subscriber itself from the
	// membership changes of the same log. Errors: CodeInvalid,
	// CodeSyncTokenExpired.
	LogChanges(ctx context.Context, calendarID, token string, first int) (*ChangePage, error)

	// UserLogChanges reads a user's calendar-list changes after token, without
	// authorization, as LogChanges does.
	UserLogChanges(ctx context.Context, userID, token string, first int) (*CalendarListPage, error)

	// HeadToken returns a token of a calendar's log (or, with user, of a
	// user's) a little before the present moment (a delivery from it may
	// repeat the last seconds' changes).
	HeadToken(id string, user bool) string

	// StartToken returns a token of a calendar's log (or, with user, of a
	// user's) at the present moment, for a delivery that starts now: what
	// is written after it comes, what was written before does not.
	StartToken(ctx context.Context, id string, user bool) (string, error)
}

// WriteWatch tells live delivery which change logs were written lately,
// through any server instance, so that it reads those logs rather than every
// log it follows. What it tells is a hint: a log may be named twice or,
// rarely, late or never (its reader reads every log it follows now and then
// for that), and the changes themselves are read from the log as always.
// A WriteWatch is used by one goroutine at a time.
type WriteWatch interface {
	// Written returns the logs written since the last call (on the first,
	// in the last seconds). everything is true when it cannot tell (it was
	// not called for too long, or more was written than it reads at once):
	// then every log may have been written. An error says that it could
	// not read at all; read every log then too.
	Written(ctx context.Context) (logs []LogRef, everything bool, err error)
}
