package live

import (
	"slices"
	"sync"

	"github.com/calgraph/calgraph/internal/calendar"
)

// DeliveryKind says what a Delivery is.
type DeliveryKind int

// Kinds of deliveries.
const (
	// Changes of a followed calendar, with the token after them.
	Changes DeliveryKind = iota + 1
	// Joined: a calendar the viewer can now read (shared with them, or
	// promoted from FREE_BUSY), followed from now on. Changes holds the
	// viewer's membership; the client reads the calendar whole.
	Joined
	// Ended: a calendar the viewer can no longer read (removed, left,
	// demoted to FREE_BUSY, the calendar deleted): nothing more comes of it.
	Ended
	// Invited: entries the viewer is invited to in a calendar they do not
	// read (invited.go): their invitation changed, or the entries did.
	// Token resumes Invited deliveries after this one (Follow.ResumeInvitations)
	// and continues the viewer's invitation sync.
	Invited
	// Settings: the viewer changed their own settings of a followed
	// calendar (on this device or another): Changes holds their membership
	// with the settings as they are now, Membership the same. Nothing of the
	// calendar changed; only subscriptions that follow the viewer's list
	// (Follow without CalendarIDs) get it.
	Settings
)

// Delivery is what a subscription sends: one calendar's changes.
type Delivery struct {
	Kind       DeliveryKind
	CalendarID string
	Changes    []calendar.ObjectChange
	// Token continues a sync of the calendar after this delivery (Changes):
	// what calendar.SyncService.Changes would return next; for Invited, see
	// Invited.
	Token string
	// Calendar is the calendar as the read of Changes found it (nil when
	// unknown; a change of it among Changes may be newer), and Membership
	// the viewer's membership of it as the subscription knows it then, which
	// authorizes the delivery: whoever shows the changes needs to read
	// neither.
	Calendar   *calendar.Calendar
	Membership *calendar.Membership
	// Shared is the same for the deliveries of one read of the log to every
	// subscriber of this instance: a place to keep what showing them reads
	// besides (a member's user, say), so that it is read once.
	Shared *Shared
}

// Shared is what the deliveries of one read have in common (Delivery.Shared).
type Shared struct {
	once  sync.Once
	value any
}

// Value returns the value kept, made by newValue on the first call.
func (s *Shared) Value(newValue func() any) any {
	s.once.Do(func() { s.value = newValue() })
	return s.value
}

// handle turns one read of a log into deliveries, checking first whether
// the viewer may still read the calendar: a change of their membership, or
// the calendar's deletion, in the same read ends the calendar's deliveries
// before anything else of it is sent.
func (s *Subscription) handle(b batch) []Delivery {
	if b.feed.User {
		s.at[b.feed] = b.token
		return append(s.listChanged(b.list), s.invitationsChanged(b.invitations)...)
	}
	id := b.feed.ID
	if _, ok := s.members[id]; !ok {
		return s.invitedEntriesChanged(b) // none when ended already
	}
	s.at[b.feed] = b.token
	for _, c := range b.calendar {
		if c.Type == calendar.ObjectMembership && c.ID == s.viewer && !c.Deleted && c.Membership.Role.Can(calendar.ActionRead) {
			s.members[id] = c.Membership
		}
		gone := (c.Type == calendar.ObjectCalendar && c.Deleted) ||
			(c.Type == calendar.ObjectMembership && c.ID == s.viewer && (c.Deleted || !c.Membership.Role.Can(calendar.ActionRead)))
		if gone {
			s.end(id)
			return []Delivery{{Kind: Ended, CalendarID: id}}
		}
	}
	if len(b.calendar) == 0 {
		return nil
	}
	return []Delivery{{Kind: Changes, CalendarID: id, Changes: b.calendar, Token: b.token,
		Calendar: b.cal, Membership: s.members[id], Shared: b.shared}}
}

// listChanged follows the viewer's list: calendars they can now read join,
// those they can no longer read end.
func (s *Subscription) listChanged(list []calendar.CalendarListChange) []Delivery {
	var out []Delivery
	for _, c := range list {
		_, followed := s.members[c.CalendarID]
		reads := !c.Removed && c.Membership.Role.Can(calendar.ActionRead)
		switch {
		case followed && !reads:
			s.end(c.CalendarID)
			out = append(out, Delivery{Kind: Ended, CalendarID: c.CalendarID})
		case !followed && reads && s.followAll && len(s.members) < MaxFollowed:
			s.members[c.CalendarID] = c.Membership
			s.follow(FeedKey{ID: c.CalendarID})
			out = append(out, Delivery{Kind: Joined, CalendarID: c.CalendarID, Membership: c.Membership, Changes: []calendar.ObjectChange{{
				Type: calendar.ObjectMembership, CalendarID: c.CalendarID, ID: s.viewer, Membership: c.Membership}}})
		case followed && reads && settingsVersion(c.Membership) > settingsVersion(s.members[c.CalendarID]):
			s.members[c.CalendarID] = c.Membership
			out = append(out, Delivery{Kind: Settings, CalendarID: c.CalendarID, Membership: c.Membership, Changes: []calendar.ObjectChange{{
				Type: calendar.ObjectMembership, CalendarID: c.CalendarID, ID: s.viewer, Membership: c.Membership}}})
		}
	}
	return out
}

// settingsVersion is the version of m's settings, 0 when unknown: a
// Settings delivery goes out once per version the subscription learns of
// (a role change in the list, whose settings did not move, sends none).
func settingsVersion(m *calendar.Membership) int {
	if m == nil || m.Settings == nil {
		return 0
	}
	return m.Settings.Version
}

// end stops following a calendar, unless the viewer is invited to entries
// of it (then only those are delivered from now on).
func (s *Subscription) end(id string) {
	delete(s.members, id)
	if len(s.invited[id]) > 0 {
		return
	}
	k := FeedKey{ID: id}
	delete(s.at, k)
	s.hub.leave(s.sub, k)
	s.joined = slices.DeleteFunc(s.joined, func(j FeedKey) bool { return j == k })
}
