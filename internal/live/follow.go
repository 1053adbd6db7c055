package live

import (
	"context"
	"errors"
	"maps"
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
)

// Delivery is what a subscription sends: one calendar's changes.
type Delivery struct {
	Kind       DeliveryKind
	CalendarID string
	Changes    []calendar.ObjectChange
	// Token continues a sync of the calendar after this delivery (Changes
	// only): what calendar.SyncService.Changes would return next.
	Token string
}

// Follow says what a subscription follows.
type Follow struct {
	// CalendarIDs are the calendars followed; none means every calendar the
	// viewer can read, and those they come to read while subscribed.
	CalendarIDs []string
	// Resume maps calendars to the sync tokens to continue from: their
	// changes since are delivered first. Others start from now.
	Resume map[string]string
	// Buffer is how many deliveries may wait for the client (16 if zero).
	Buffer int
}

// MaxFollowed bounds the calendars one subscription follows.
const MaxFollowed = 500

// ErrTooSlow ends a subscription whose client does not read its deliveries
// fast enough: the Hub could not hand it a read.
var ErrTooSlow = errors.New("the client reads its deliveries too slowly")

// Subscribe starts a subscription for the viewer in ctx and returns its
// deliveries; the channel closes when ctx ends or the subscription fails,
// and then Err tells why (nil when ctx ended). Each calendar is checked
// first: the viewer must read it (calendar.ActionRead), else CodeNotFound or
// CodeForbidden, before anything is delivered.
func (h *Hub) Subscribe(ctx context.Context, f Follow) (*Subscription, error) {
	viewer, err := calendar.ViewerID(ctx)
	if err != nil {
		return nil, err
	}
	roles, err := h.initialRoles(ctx, viewer, f)
	if err != nil {
		return nil, err
	}
	buf := f.Buffer
	if buf <= 0 {
		buf = 16
	}
	s := &Subscription{ctx: ctx, hub: h, viewer: viewer, followAll: len(f.CalendarIDs) == 0, roles: roles,
		out: make(chan Delivery, buf), sub: &subscriber{ch: make(chan batch, feedBuffer), dropped: make(chan struct{})}}
	// Join the feeds first, then catch up: whatever commits meanwhile comes
	// in both, never in neither.
	s.joined = s.keys()
	h.join(ctx, s.sub, s.joined...)
	go s.run(ctx, f.Resume)
	return s, nil
}

// initialRoles reads the viewer's roles of the calendars to follow from
// the memberships themselves, read consistently (GSI1, eventually
// consistent, only lists them when following all).
func (h *Hub) initialRoles(ctx context.Context, viewer string, f Follow) (map[string]calendar.Role, error) {
	ids := f.CalendarIDs
	if len(ids) == 0 {
		ms, err := h.src.AllMembershipsOfUser(ctx, viewer, MaxFollowed)
		if err != nil {
			return nil, err
		}
		for _, m := range ms {
			ids = append(ids, m.CalendarID)
		}
	} else if len(ids) > MaxFollowed {
		return nil, calendar.Invalidf("calendarIds", "a subscription follows at most %d calendars", MaxFollowed)
	}
	keys := calendar.Keys{Calendars: ids}
	for _, id := range ids {
		if err := calendar.ValidateID("calendarIds", id); err != nil {
			return nil, calendar.Errorf(calendar.CodeNotFound, "calendar not found")
		}
		keys.Memberships = append(keys.Memberships, calendar.MembershipKey{CalendarID: id, UserID: viewer})
	}
	found, err := h.src.Read(ctx, keys)
	if err != nil {
		return nil, err
	}
	roles := map[string]calendar.Role{}
	for _, id := range ids {
		m := found.Memberships[calendar.MembershipKey{CalendarID: id, UserID: viewer}]
		switch {
		case m == nil || found.Calendars[id] == nil:
			if len(f.CalendarIDs) > 0 {
				return nil, calendar.Errorf(calendar.CodeNotFound, "calendar not found")
			}
		case m.Role.Can(calendar.ActionRead):
			roles[id] = m.Role
		case len(f.CalendarIDs) > 0:
			return nil, calendar.Errorf(calendar.CodeForbidden, "a %s member cannot follow a calendar's changes", m.Role)
		}
	}
	for id := range f.Resume {
		if _, ok := roles[id]; !ok {
			return nil, calendar.Invalidf("resume", "resume names a calendar this subscription does not follow")
		}
	}
	return roles, nil
}

// Subscription is one subscriber's deliveries.
type Subscription struct {
	ctx       context.Context
	hub       *Hub
	viewer    string
	followAll bool
	roles     map[string]calendar.Role // the calendars followed
	out       chan Delivery
	sub       *subscriber
	joined    []FeedKey
	errMu     sync.Mutex
	err       error
}

// Deliveries returns the channel of deliveries.
func (s *Subscription) Deliveries() <-chan Delivery { return s.out }

// Err tells why the deliveries ended: nil when the context ended, ErrTooSlow,
// or the error of a resumed sync (CodeSyncTokenExpired, for one). It is
// final once the channel is closed; before, it is nil or already the reason
// (safe to ask at any time).
func (s *Subscription) Err() error {
	s.errMu.Lock()
	defer s.errMu.Unlock()
	return s.err
}

func (s *Subscription) setErr(err error) {
	s.errMu.Lock()
	defer s.errMu.Unlock()
	s.err = err
}

func (s *Subscription) keys() []FeedKey {
	keys := make([]FeedKey, 0, len(s.roles)+1)
	for _, id := range slices.Sorted(maps.Keys(s.roles)) {
		keys = append(keys, FeedKey{ID: id})
	}
	if s.followAll {
		keys = append(keys, FeedKey{ID: s.viewer, User: true})
	}
	return keys
}

func (s *Subscription) run(ctx context.Context, resume map[string]string) {
	s.hub.subscriptions.Add(1)
	defer s.hub.subscriptions.Add(-1)
	defer close(s.out)
	defer func() { s.hub.leave(s.sub, s.joined...) }()
	for _, id := range slices.Sorted(maps.Keys(resume)) {
		if err := s.catchUp(ctx, id, resume[id]); err != nil {
			s.setErr(err)
			return
		}
	}
	for {
		select {
		case <-ctx.Done():
			return
		case <-s.sub.dropped:
			s.setErr(ErrTooSlow)
			return
		case b := <-s.sub.ch:
			for _, d := range s.handle(b) {
				if !s.send(ctx, d) {
					return
				}
			}
		}
	}
}

// catchUp delivers a resumed calendar's changes since token.
func (s *Subscription) catchUp(ctx context.Context, id, token string) error {
	for {
		p, err := s.hub.src.Changes(ctx, id, token, calendar.MaxChangePage)
		switch code := calendar.ErrorCode(err); {
		case err == nil:
		case code == calendar.CodeNotFound || code == calendar.CodeForbidden:
			s.end(id)
			if !s.send(ctx, Delivery{Kind: Ended, CalendarID: id}) {
				return ctx.Err()
			}
			return nil
		default:
			return err
		}
		token = p.Token
		if len(p.Changes) > 0 && !s.send(ctx, Delivery{Kind: Changes, CalendarID: id, Changes: p.Changes, Token: p.Token}) {
			return ctx.Err()
		}
		if !p.More {
			return nil
		}
	}
}

// send hands d to the client, unless ctx ends or the Hub dropped the
// subscription while it waited.
func (s *Subscription) send(ctx context.Context, d Delivery) bool {
	select {
	case s.out <- d:
		return true
	case <-ctx.Done():
		return false
	case <-s.sub.dropped:
		s.setErr(ErrTooSlow)
		return false
	}
}

// handle turns one read of a log into deliveries, checking first whether
// the viewer may still read the calendar: a change of their membership, or
// the calendar's deletion, in the same read ends the calendar's deliveries
// before anything else of it is sent.
func (s *Subscription) handle(b batch) []Delivery {
	if b.feed.User {
		return s.listChanged(b.list)
	}
	id := b.feed.ID
	if _, ok := s.roles[id]; !ok {
		return nil // ended already
	}
	for _, c := range b.calendar {
		gone := (c.Type == calendar.ObjectCalendar && c.Deleted) ||
			(c.Type == calendar.ObjectMembership && c.ID == s.viewer && (c.Deleted || !c.Membership.Role.Can(calendar.ActionRead)))
		if gone {
			s.end(id)
			return []Delivery{{Kind: Ended, CalendarID: id}}
		}
	}
	return []Delivery{{Kind: Changes, CalendarID: id, Changes: b.calendar, Token: b.token}}
}

// listChanged follows the viewer's list: calendars they can now read join,
// those they can no longer read end.
func (s *Subscription) listChanged(list []calendar.CalendarListChange) []Delivery {
	var out []Delivery
	for _, c := range list {
		_, followed := s.roles[c.CalendarID]
		reads := !c.Removed && c.Membership.Role.Can(calendar.ActionRead)
		switch {
		case followed && !reads:
			s.end(c.CalendarID)
			out = append(out, Delivery{Kind: Ended, CalendarID: c.CalendarID})
		case !followed && reads && s.followAll && len(s.roles) < MaxFollowed:
			s.roles[c.CalendarID] = c.Membership.Role
			k := FeedKey{ID: c.CalendarID}
			s.joined = append(s.joined, k)
			s.hub.join(s.ctx, s.sub, k)
			out = append(out, Delivery{Kind: Joined, CalendarID: c.CalendarID, Changes: []calendar.ObjectChange{{
				Type: calendar.ObjectMembership, CalendarID: c.CalendarID, ID: s.viewer, Membership: c.Membership}}})
		}
	}
	return out
}

// end stops following a calendar.
func (s *Subscription) end(id string) {
	delete(s.roles, id)
	k := FeedKey{ID: id}
	s.hub.leave(s.sub, k)
	s.joined = slices.DeleteFunc(s.joined, func(j FeedKey) bool { return j == k })
}
