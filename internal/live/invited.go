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
// delivery per calendar, with the token after them (invitedToken), and
// follows the entries of open invitations from now on.
func (s *Subscription) invitationsChanged(changes []calendar.InvitationChange) []Delivery {
	if !s.followAll || len(changes) == 0 {
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
		out = append(out, Delivery{Kind: Invited, CalendarID: id, Changes: []calendar.ObjectChange{change}})
	}
	token := s.invitedToken()
	for i := range out {
		out[i].Token = token
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
	return []Delivery{{Kind: Invited, CalendarID: id, Changes: keep, Calendar: b.cal, Shared: b.shared, Token: s.invitedToken()}}
}

// Resuming Invited deliveries. Their token (Source.InvitedToken) is the
// viewer's log's, carrying one position for the logs of the calendars of
// their invitations: no later than any of those the subscription has
// delivered to. A resumed subscription reads each calendar of the viewer's
// open invitations as they are now from there, keeping those entries alone
// (an entry they were removed from while away is not among them: its
// removal comes from their log, and no edit of it after), then their log
// from its token, as catchUp reads a calendar's backlog. So an Invited
// delivery missed is delivered again, each object as it is now, and one
// already delivered comes again only if it changed in the moments before
// the token (seen-records bound, dynamo.maxSinceSeen).

// resumeInvited is where Invited deliveries resume: the client's token,
// and from it, where to read each calendar's log from.
type resumeInvited struct {
	token string
	from  func(calendarID string) string
}

// catchUpInvited delivers the Invited deliveries missed since r's token.
func (s *Subscription) catchUpInvited(ctx context.Context, r resumeInvited) error {
	if r.from == nil {
		return nil
	}
	user := FeedKey{ID: s.viewer, User: true}
	ids := slices.Sorted(maps.Keys(s.invited))
	// Deliveries carry tokens made of these until each log is read.
	s.at[user] = r.token
	for _, id := range ids {
		s.at[FeedKey{ID: id}] = r.from(id)
	}
	for _, id := range ids {
		k := FeedKey{ID: id}
		if token, followed := s.at[k]; followed && s.invited[id] != nil {
			if err := s.readBack(ctx, k, token, false); err != nil {
				return err
			}
		}
	}
	return s.readBack(ctx, user, r.token, false)
}

// invitedToken is the token after the Invited deliveries handed so far.
func (s *Subscription) invitedToken() string {
	cals := map[string]string{}
	for id := range s.invited {
		if t, ok := s.at[FeedKey{ID: id}]; ok {
			cals[id] = t
		}
	}
	t, err := s.hub.src.InvitedToken(s.viewer, s.at[FeedKey{ID: s.viewer, User: true}], cals)
	if err != nil { // the store's own tokens: not expected
		s.hub.log.WarnContext(s.ctx, "making the token of an INVITATION delivery", "err", err)
		return ""
	}
	return t
}
