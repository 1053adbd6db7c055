package calendar

import "context"

// Keys names items to read in one batch: a request level's loaders gather
// whatever their resolvers ask for into one of these.
type Keys struct {
	Users       []string
	Calendars   []string
	Memberships []MembershipKey
	Entries     []EntryKey
	Attendees   []AttendeeKey
	MyReminders []MyRemindersKey
}

// AttendeeKey names a calgraph user's invitation to an entry.
type AttendeeKey struct {
	Entry  EntryKey
	UserID string
}

// Empty reports whether k names nothing.
func (k Keys) Empty() bool {
	return len(k.Users)+len(k.Calendars)+len(k.Memberships)+len(k.Entries)+len(k.Attendees)+len(k.MyReminders) == 0
}

// Items is what a batch read found. Missing items are absent from the maps.
type Items struct {
	Users       map[string]*User
	Calendars   map[string]*Calendar
	Memberships map[MembershipKey]*Membership
	Entries     map[EntryKey]*Entry
	Attendees   map[AttendeeKey]*Attendee
	MyReminders map[MyRemindersKey]*ReminderSetting
}

// Reader is the read side of the store that the per-request loaders are built
// on. It does not authorize: whoever hands its results to a client checks the
// viewer's role first (the loaders do, with Role.Can).
type Reader interface {
	// Read reads any mix of users, calendars, memberships and entries in one
	// round trip, with strongly consistent reads. Errors: internal only.
	Read(ctx context.Context, k Keys) (*Items, error)

	// MembershipsOfUser pages through a user's memberships, ordered by calendar ID.
	// Errors: CodeInvalid (bad page or cursor).
	MembershipsOfUser(ctx context.Context, userID string, p Page) (*MembershipPage, error)

	// AllMembershipsOfUser returns up to max of a user's memberships, ordered by
	// calendar ID, in one Query (more only past DynamoDB's 1 MB pages).
	AllMembershipsOfUser(ctx context.Context, userID string, max int) ([]*Membership, error)

	// MembershipsOfCalendar pages through a calendar's memberships, ordered by user
	// ID; the calendar as read (its Revision lets a store answer from a cache,
	// when scope.Cached). Errors: CodeInvalid (bad page or cursor).
	MembershipsOfCalendar(ctx context.Context, scope ReadScope, cal *Calendar, p Page) (*MembershipPage, error)

	// InvitedEntries returns the entries a user is invited to and did not
	// decline, newest invitation first, from the first max invitations
	// (declined ones included in the count): eventually consistent, for
	// the agenda, which checks each invitation again strongly.
	InvitedEntries(ctx context.Context, userID string, max int) ([]EntryKey, error)

	EntryReader
	SeriesReader
	InvitationReader
}

// Service is everything calgraph's API needs from a store.
type Service interface {
	Reader
	UserService
	PreferencesService
	OpeningHoursService
	CalendarService
	MembershipService
	SettingsService
	EntryService
	SeriesService
	FeedService
	IdempotencyService
	InvitationService
	SyncService
	StatsService
	AttendeeService
	InvitationSyncService
	AlertService
	ReminderWebhookService
	CalendarWebhookService
	MyRemindersService
	TrashService
	SearchService
	HistoryService
}
