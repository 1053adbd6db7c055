package loader

import (
	"context"
	"strings"

	"github.com/calgraph/calgraph/internal/calendar"
)

// The objects the loaders read by key, each of its own type: one dataloader
// carries them all, so that whatever kinds the resolvers of one level ask
// for go out in one Reader.Read (one BatchGetItem wave), but what it carries
// is an item, whose fields say what each is, and each kind has its own load,
// prime and forget below. No value is taken out of an interface.

// ref names one item the loaders can read.
type ref struct {
	kind kind
	a, b string // the ID, or a membership's calendar and user, or an entry's calendar and entry
}

type kind uint8

const (
	kindUser kind = iota
	kindCalendar
	kindMembership
	kindEntry
	kindAttendee
	kindMyReminders
)

func userRef(id string) ref     { return ref{kind: kindUser, a: id} }
func calendarRef(id string) ref { return ref{kind: kindCalendar, a: id} }
func membershipRef(k calendar.MembershipKey) ref {
	return ref{kind: kindMembership, a: k.CalendarID, b: k.UserID}
}
func entryRef(k calendar.EntryKey) ref { return ref{kind: kindEntry, a: k.CalendarID, b: k.EntryID} }

// attendeeRef names a user's invitation to an entry: a is the entry's
// calendar, b its ID and the user's, joined by "/" (neither holds one).
func attendeeRef(k calendar.AttendeeKey) ref {
	return ref{kind: kindAttendee, a: k.Entry.CalendarID, b: k.Entry.EntryID + "/" + k.UserID}
}

// attendeeKey is the key attendeeRef names.
func (r ref) attendeeKey() calendar.AttendeeKey {
	entry, user, _ := strings.Cut(r.b, "/")
	return calendar.AttendeeKey{Entry: calendar.EntryKey{CalendarID: r.a, EntryID: entry}, UserID: user}
}

// myRemindersRef names a user's reminder setting on an entry or series, as
// attendeeRef names an invitation.
func myRemindersRef(k calendar.MyRemindersKey) ref {
	return ref{kind: kindMyReminders, a: k.Root.CalendarID, b: k.Root.EntryID + "/" + k.UserID}
}

// myRemindersKey is the key myRemindersRef names.
func (r ref) myRemindersKey() calendar.MyRemindersKey {
	entry, user, _ := strings.Cut(r.b, "/")
	return calendar.MyRemindersKey{Root: calendar.EntryKey{CalendarID: r.a, EntryID: entry}, UserID: user}
}

// item is one object read or primed by key: at most the field of its ref's
// kind is set, and none when the object does not exist (callers decide what
// absence means).
type item struct {
	user       *calendar.User
	calendar   *calendar.Calendar
	membership *calendar.Membership
	entry      *calendar.Entry
	attendee   *calendar.Attendee
	reminders  *calendar.ReminderSetting
}

// keysOf names the items of refs, for one Reader.Read.
func keysOf(refs []ref) calendar.Keys {
	var k calendar.Keys
	for _, r := range refs {
		switch r.kind {
		case kindUser:
			k.Users = append(k.Users, r.a)
		case kindCalendar:
			k.Calendars = append(k.Calendars, r.a)
		case kindMembership:
			k.Memberships = append(k.Memberships, calendar.MembershipKey{CalendarID: r.a, UserID: r.b})
		case kindEntry:
			k.Entries = append(k.Entries, calendar.EntryKey{CalendarID: r.a, EntryID: r.b})
		case kindAttendee:
			k.Attendees = append(k.Attendees, r.attendeeKey())
		case kindMyReminders:
			k.MyReminders = append(k.MyReminders, r.myRemindersKey())
		}
	}
	return k
}

// lookup returns the item r names in what a read found: an empty item when
// it is missing.
func lookup(found *calendar.Items, r ref) item {
	switch r.kind {
	case kindUser:
		return item{user: found.Users[r.a]}
	case kindCalendar:
		return item{calendar: found.Calendars[r.a]}
	case kindMembership:
		return item{membership: found.Memberships[calendar.MembershipKey{CalendarID: r.a, UserID: r.b}]}
	case kindEntry:
		return item{entry: found.Entries[calendar.EntryKey{CalendarID: r.a, EntryID: r.b}]}
	case kindAttendee:
		return item{attendee: found.Attendees[r.attendeeKey()]}
	case kindMyReminders:
		return item{reminders: found.MyReminders[r.myRemindersKey()]}
	}
	return item{}
}

// loadAs starts loading r into the request's batch and returns a function
// that waits for it and takes the field of its kind out of the item.
func loadAs[V any](ctx context.Context, l *Loaders, r ref, field func(item) *V) func() (*V, error) {
	thunk := l.items.Load(ctx, r)
	return func() (*V, error) {
		it, err := thunk()
		return field(it), err
	}
}

func (it item) getUser() *calendar.User             { return it.user }
func (it item) getCalendar() *calendar.Calendar     { return it.calendar }
func (it item) getMembership() *calendar.Membership { return it.membership }
func (it item) getEntry() *calendar.Entry           { return it.entry }
func (it item) getAttendee() *calendar.Attendee     { return it.attendee }
func (it item) getReminders() *calendar.ReminderSetting {
	return it.reminders
}

// loadUser starts loading a user; the function returned waits for it (nil
// when there is none). loadCalendar, loadMembership and loadEntry are the
// same for their kinds. None of them authorizes: the methods that hand
// objects out (reads.go, entries.go) do.
func (l *Loaders) loadUser(ctx context.Context, id string) func() (*calendar.User, error) {
	return loadAs(ctx, l, userRef(id), item.getUser)
}

func (l *Loaders) loadCalendar(ctx context.Context, id string) func() (*calendar.Calendar, error) {
	return loadAs(ctx, l, calendarRef(id), item.getCalendar)
}

func (l *Loaders) loadMembership(ctx context.Context, k calendar.MembershipKey) func() (*calendar.Membership, error) {
	return loadAs(ctx, l, membershipRef(k), item.getMembership)
}

func (l *Loaders) loadEntry(ctx context.Context, k calendar.EntryKey) func() (*calendar.Entry, error) {
	return loadAs(ctx, l, entryRef(k), item.getEntry)
}

func (l *Loaders) loadAttendee(ctx context.Context, k calendar.AttendeeKey) func() (*calendar.Attendee, error) {
	return loadAs(ctx, l, attendeeRef(k), item.getAttendee)
}

// prime replaces whatever the request had loaded under r with it.
func (l *Loaders) prime(ctx context.Context, r ref, it item) {
	l.items.Clear(ctx, r).Prime(ctx, r, it)
}

// PrimeUser records a user already read or just written, replacing whatever
// this request had loaded for it, so that nested fields see it without a
// read. The other Prime methods do the same for their kinds. What is primed
// is the request's own: it is never shared with other requests (Shared holds
// only what was read), and it is still authorized like anything read before
// a method here hands it out.
func (l *Loaders) PrimeUser(ctx context.Context, u *calendar.User) {
	l.prime(ctx, userRef(u.ID), item{user: u})
}

// PrimeCalendar records a calendar already read or just written (PrimeUser).
func (l *Loaders) PrimeCalendar(ctx context.Context, c *calendar.Calendar) {
	l.prime(ctx, calendarRef(c.ID), item{calendar: c})
}

// PrimeMembership records a membership already read or just written
// (PrimeUser). Memberships are keyed by calendar and user, so one primed for
// the viewer never answers for another user's role.
func (l *Loaders) PrimeMembership(ctx context.Context, m *calendar.Membership) {
	l.prime(ctx, membershipRef(m.Key()), item{membership: m})
}

// PrimeEntry records an entry or series already read or just written
// (PrimeUser). Occurrences are not read by key, so priming one does nothing.
func (l *Loaders) PrimeEntry(ctx context.Context, e *calendar.Entry) {
	if !e.IsOccurrence() {
		l.prime(ctx, entryRef(e.Key()), item{entry: e})
	}
}

// ForgetMembership drops a membership a mutation has just removed: the
// request's next load of it reads it again.
func (l *Loaders) ForgetMembership(ctx context.Context, key calendar.MembershipKey) {
	l.items.Clear(ctx, membershipRef(key))
}

// ForgetEntry drops an entry a mutation has just deleted or moved away.
func (l *Loaders) ForgetEntry(ctx context.Context, key calendar.EntryKey) {
	l.items.Clear(ctx, entryRef(key))
}
