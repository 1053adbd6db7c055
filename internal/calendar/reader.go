package calendar

import "context"

// Reader is the batched read side of the store that the per-request loaders are
// built on. It does not authorize: whoever hands its results to a client checks
// the viewer's role first (the loaders do, with Role.Can).
//
// The map-returning methods omit missing items rather than failing.
type Reader interface {
	// UsersByID reads users by ID, all in one round trip. Errors: internal only.
	UsersByID(ctx context.Context, ids []string) (map[string]*User, error)

	// CalendarsByID reads calendars by ID, all in one round trip. Errors:
	// internal only.
	CalendarsByID(ctx context.Context, ids []string) (map[string]*Calendar, error)

	// MembershipsByKey reads memberships by key, all in one round trip. Errors:
	// internal only.
	MembershipsByKey(ctx context.Context, keys []MembershipKey) (map[MembershipKey]*Membership, error)

	// MembershipsOfUser pages through a user's memberships, ordered by calendar ID.
	// Errors: CodeInvalid (bad page or cursor).
	MembershipsOfUser(ctx context.Context, userID string, p Page) (*MembershipPage, error)

	// MembershipsOfCalendar pages through a calendar's memberships, ordered by user
	// ID. Errors: CodeInvalid (bad page or cursor).
	MembershipsOfCalendar(ctx context.Context, calendarID string, p Page) (*MembershipPage, error)
}

// Service is everything calgraph's API needs from a store.
type Service interface {
	Reader
	UserService
	CalendarService
	MembershipService
}
