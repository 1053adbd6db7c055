package live

import (
	"context"
	"maps"
	"slices"

	"github.com/calgraph/calgraph/internal/calendar"
)

// Invitations. A subscription that follows all the viewer reads also
// follows what they are invited to in calendars they do not read: their
// own log (a user's log, beside their calendar list) tells of each
// invitation made, answered or removed, and for the entries of their open
// invitations (declined ones too: a move of the entry's time voids a
// decline, and the invitee hears of the move) the subscription follows those
// calendars' logs and delivers those entries' changes alone. Nothing else
// of such a calendar is delivered: not its other entries, members or
// settings.

// MaxInvitedFollowed bounds the invitations a subscription starts with (the
// newest, as the agenda reads them), and the calendars it follows for
// invitations while it runs: past it, a new invitation's changes still
// come, its entry's edits not.
const MaxInvitedFollowed = 200

// initialInvited reads the entries of the viewer's open invitations, by
// calendar, leaving out the calendars they read (whose every change comes).
func (h *Hub) initialInvited(ctx context.Context, viewer string, members map[string]*calendar.Membership) (map[string]map[string]bool, error) {
	keys, err := h.src.InvitedEntries(ctx, viewer, MaxInvitedFollowed)
	if err != nil {
		return nil, err
	}
	invited := map[string]map[string]bool{}
	for _, k := range keys {
		if members[k.CalendarID] != nil {
			continue
		}
		if invited[k.CalendarID] == nil {
			invited[k.CalendarID] = map[string]bool{}
		}
		invited[k.CalendarID][k.EntryID] = true
	}
	return invited, nil
}

// invitationsChanged delivers the viewer's invitation changes in calendars
// they do not read (those they read deliver the entry themselves), one
// delivery per calendar, with the token of their log after them, and
// follows the entries of open invitations from now on.
func (s *Subscription) invitationsChanged(changes []calendar.InvitationChange, token string) []Delivery {
	if !s.followAll {
		return nil
	}
	var out []Delivery
	at := map[string]int{}
	for _, c := range changes {
		id := c.Entry.CalendarID
		if s.members[id] != nil {
			continue
		}
		open := !c.Removed // a declined invitation too: a move of its entry's time voids the decline
		s.track(c.Entry, open)
		change := calendar.ObjectChange{Type: calendar.ObjectEntry, CalendarID: id, ID: c.Entry.EntryID, Deleted: c.Removed}
		if i, ok := at[id]; ok {
			out[i].Changes = append(out[i].Changes, change)
			continue
		}
		at[id] = len(out)
		out = append(out, Delivery{Kind: Invited, CalendarID: id, Changes: []calendar.ObjectChange{change}, Token: token})
	}
	return out
}

// track follows an entry of a calendar the viewer does not read, or stops
// following it, joining or leaving the calendar's log.
func (s *Subscription) track(k calendar.EntryKey, open bool) {
	id, entries := k.CalendarID, s.invited[k.CalendarID]
	switch {
	case open && entries == nil && len(s.invited) < MaxInvitedFollowed:
		s.invited[id] = map[string]bool{k.EntryID: true}
		s.follow(FeedKey{ID: id})
	case open && entries != nil:
		entries[k.EntryID] = true
	case !open && entries != nil:
		delete(entries, k.EntryID)
		if len(entries) == 0 {
			delete(s.invited, id)
			s.end(id)
		}
	}
}

// follow joins a calendar's log, unless the subscription follows it already.
func (s *Subscription) follow(k FeedKey) {
	if _, ok := s.at[k]; ok {
		return
	}
	s.joined = append(s.joined, k)
	s.at[k] = s.hub.join(s.ctx, s.sub, k)[0]
}

// invitedEntriesChanged delivers what a read of a calendar the viewer does
// not read holds of the entries they are invited to: each as the read found
// it (the GraphQL layer shows it only while the invitation holds). A
// deletion of the calendar is the tombstone of each.
func (s *Subscription) invitedEntriesChanged(b batch) []Delivery {
	id := b.feed.ID
	entries := s.invited[id]
	if entries == nil {
		return nil
	}
	s.at[b.feed] = b.token
	var keep []calendar.ObjectChange
	for _, c := range b.calendar {
		if c.Type == calendar.ObjectCalendar && c.Deleted {
			keep = keep[:0]
			for _, e := range slices.Sorted(maps.Keys(entries)) {
				keep = append(keep, calendar.ObjectChange{Type: calendar.ObjectEntry, CalendarID: id, ID: e, Deleted: true})
			}
			delete(s.invited, id)
			s.end(id)
			break
		}
		if c.Type == calendar.ObjectEntry && entries[c.ID] {
			keep = append(keep, c)
		}
	}
	if len(keep) == 0 {
		return nil
	}
	return []Delivery{{Kind: Invited, CalendarID: id, Changes: keep, Calendar: b.cal, Shared: b.shared}}
}
