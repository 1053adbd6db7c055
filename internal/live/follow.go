package live

import (
	"context"
	"errors"
	"maps"
	"slices"
	"sync"

	"github.com/calgraph/calgraph/internal/calendar"
)

// Follow says what a subscription follows.
type Follow struct {
	// CalendarIDs are the calendars followed; none means every calendar the
	// viewer can read, and those they come to read while subscribed.
	CalendarIDs []string
	// Resume maps calendars to the sync tokens to continue from: their
	// changes since are delivered first. Others start from now. A calendar
	// of Resume the viewer no longer reads gets an Ended delivery first.
	Resume map[string]string
	// ResumeInvitations is the token of the last Invited delivery (or of
	// the viewer's invitation sync) to continue Invited deliveries from:
	// what was missed of them comes first (invited.go). Without CalendarIDs
	// only.
	ResumeInvitations string
	// Buffer is how many deliveries may wait for the client (16 if zero).
	Buffer int
}

// MaxFollowed bounds the calendars one subscription follows, and those it
// resumes.
const MaxFollowed = 500

// ErrTooSlow ends a subscription whose client does not read its deliveries
// fast enough: the Hub could not hand it a read.
var ErrTooSlow = errors.New("the client reads its deliveries too slowly")

// Subscribe starts a subscription for the viewer in ctx and returns its
// deliveries; the channel closes when ctx ends or the subscription fails,
// and then Err tells why (nil when ctx ended). Each calendar named is
// checked first: the viewer must read it (calendar.ActionRead), else
// CodeNotFound or CodeForbidden, before anything is delivered; one the
// viewer has a token of (Follow.Resume) but no longer reads is not an error:
// it gets Ended, and the others go on.
func (h *Hub) Subscribe(ctx context.Context, f Follow) (*Subscription, error) {
	viewer, err := calendar.ViewerID(ctx)
	if err != nil {
		return nil, err
	}
	members, lost, err := h.initialMembers(ctx, viewer, f)
	if err != nil {
		return nil, err
	}
	var invitedFrom func(string) string
	if f.ResumeInvitations != "" {
		if len(f.CalendarIDs) > 0 {
			return nil, calendar.Invalidf("resumeInvitations", "only a subscription without calendarIds delivers INVITATION, and resumes it")
		}
		invitedFrom, err = h.src.InvitedResume(viewer, f.ResumeInvitations)
		if calendar.ErrorCode(err) == calendar.CodeInvalid {
			return nil, calendar.Invalidf("resumeInvitations", "resumeInvitations is not the syncToken of one of your INVITATION deliveries, nor of a finished read (hasMore false) of your invitationChanges")
		}
		if err != nil {
			return nil, err
		}
	}
	invited := map[string]map[string]bool{}
	if len(f.CalendarIDs) == 0 {
		if invited, err = h.initialInvited(ctx, viewer, members); err != nil {
			return nil, err
		}
	}
	buf := f.Buffer
	if buf <= 0 {
		buf = 16
	}
	s := &Subscription{ctx: ctx, hub: h, viewer: viewer, followAll: len(f.CalendarIDs) == 0, members: members,
		invited: invited, at: map[FeedKey]string{}, lost: lost, out: make(chan Delivery, buf),
		sub: &subscriber{ch: make(chan batch, feedBuffer), dropped: make(chan struct{}),
			catchingUp: len(f.Resume) > 0 || invitedFrom != nil, behind: map[FeedKey]bool{}, missed: map[FeedKey]bool{}}}
	// Join the feeds first, then catch up: whatever commits meanwhile comes
	// in both, never in neither.
	s.joined = s.keys()
	for i, token := range h.join(ctx, s.sub, s.joined...) {
		s.at[s.joined[i]] = token
	}
	go s.run(ctx, f.Resume, resumeInvited{token: f.ResumeInvitations, from: invitedFrom})
	return s, nil
}

// initialMembers reads the viewer's memberships of the calendars to follow
// (and of those to resume), read consistently (GSI1, eventually consistent,
// only lists them when following all). Lost are the calendars of resume the
// viewer no longer reads (not followed, ended at once).
func (h *Hub) initialMembers(ctx context.Context, viewer string, f Follow) (members map[string]*calendar.Membership, lost []string, err error) {
	named := len(f.CalendarIDs) > 0
	ids := slices.Clone(f.CalendarIDs)
	switch {
	case len(ids) > MaxFollowed:
		return nil, nil, calendar.Invalidf("calendarIds", "a subscription follows at most %d calendars", MaxFollowed)
	case len(f.Resume) > MaxFollowed:
		return nil, nil, calendar.Invalidf("resume", "a subscription resumes at most %d calendars", MaxFollowed)
	case !named:
		ms, err := h.src.AllMembershipsOfUser(ctx, viewer, MaxFollowed)
		if err != nil {
			return nil, nil, err
		}
		for _, m := range ms {
			ids = append(ids, m.CalendarID)
		}
	}
	for id := range f.Resume {
		switch {
		case !slices.Contains(ids, id) && named:
			return nil, nil, calendar.Invalidf("resume", "resume names a calendar this subscription does not follow")
		case !slices.Contains(ids, id): // not listed yet, or no longer
			ids = append(ids, id)
		}
	}
	found, err := h.readMemberships(ctx, viewer, ids)
	if err != nil {
		return nil, nil, err
	}
	members = map[string]*calendar.Membership{}
	for _, id := range ids {
		m := found.Memberships[calendar.MembershipKey{CalendarID: id, UserID: viewer}]
		_, resumed := f.Resume[id]
		switch {
		case m != nil && found.Calendars[id] != nil && m.Role.Can(calendar.ActionRead):
			if len(members) < MaxFollowed {
				members[id] = m
			}
		case resumed:
			lost = append(lost, id)
		case named && (m == nil || found.Calendars[id] == nil):
			return nil, nil, calendar.Errorf(calendar.CodeNotFound, "calendar not found")
		case named:
			return nil, nil, calendar.Errorf(calendar.CodeForbidden, "a %s member cannot follow a calendar's changes", m.Role)
		}
	}
	slices.Sort(lost)
	return members, slices.Compact(lost), nil
}

// readMemberships reads calendars and the viewer's memberships of them, in
// one batch; a malformed ID is a calendar that is not found.
func (h *Hub) readMemberships(ctx context.Context, viewer string, ids []string) (*calendar.Items, error) {
	keys := calendar.Keys{}
	for _, id := range ids {
		if calendar.ValidateID("calendarIds", id) != nil {
			continue
		}
		keys.Calendars = append(keys.Calendars, id)
		keys.Memberships = append(keys.Memberships, calendar.MembershipKey{CalendarID: id, UserID: viewer})
	}
	if keys.Empty() {
		return &calendar.Items{}, nil
	}
	return h.src.Read(ctx, keys)
}

// Subscription is one subscriber's deliveries.
type Subscription struct {
	ctx       context.Context
	hub       *Hub
	viewer    string
	followAll bool
	// members are the calendars followed, with the viewer's membership of
	// each as the deliveries so far stand.
	members map[string]*calendar.Membership
	// invited are, for calendars the viewer does not read, the entries of
	// them they are invited to and did not decline (invited.go).
	invited map[string]map[string]bool
	// at is, for each feed, the token after the last read of it the
	// subscription handled (or the feed's token when it joined it).
	at     map[FeedKey]string
	lost   []string // resumed calendars the viewer no longer reads
	out    chan Delivery
	sub    *subscriber
	joined []FeedKey
	ended  endReason
}

// Deliveries returns the channel of deliveries.
func (s *Subscription) Deliveries() <-chan Delivery { return s.out }

// Err tells why the deliveries ended: nil when the context ended, ErrTooSlow,
// or the error of a resumed sync (CodeSyncTokenExpired, for one). It is
// final once the channel is closed; before, it is nil or already the reason
// (safe to ask at any time).
func (s *Subscription) Err() error { return s.ended.get() }

// endReason holds why a subscription's deliveries ended, safe to read and
// set at any time.
type endReason struct {
	mu  sync.Mutex
	err error
}

func (r *endReason) get() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.err
}

func (r *endReason) set(err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.err = err
}

func (s *Subscription) keys() []FeedKey {
	keys := make([]FeedKey, 0, len(s.members)+len(s.invited)+1)
	for _, id := range slices.Sorted(maps.Keys(s.members)) {
		keys = append(keys, FeedKey{ID: id})
	}
	for _, id := range slices.Sorted(maps.Keys(s.invited)) {
		if s.members[id] == nil {
			keys = append(keys, FeedKey{ID: id})
		}
	}
	if s.followAll {
		keys = append(keys, FeedKey{ID: s.viewer, User: true})
	}
	return keys
}

func (s *Subscription) run(ctx context.Context, resume map[string]string, invited resumeInvited) {
	s.hub.subscriptions.Add(1)
	defer s.hub.subscriptions.Add(-1)
	defer close(s.out)
	defer func() { s.hub.leave(s.sub, s.joined...) }()
	for _, id := range s.lost {
		if !s.send(ctx, Delivery{Kind: Ended, CalendarID: id}) {
			return
		}
	}
	if err := s.catchUp(ctx, resume, invited); err != nil {
		if ctx.Err() == nil {
			s.ended.set(err)
		}
		return
	}
	for {
		select {
		case <-ctx.Done():
			return
		case <-s.sub.dropped:
			s.ended.set(ErrTooSlow)
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

// send hands d to the client, unless ctx ends or the Hub dropped the
// subscription while it waited.
func (s *Subscription) send(ctx context.Context, d Delivery) bool {
	select {
	case s.out <- d:
		return true
	case <-ctx.Done():
		return false
	case <-s.sub.dropped:
		s.ended.set(ErrTooSlow)
		return false
	}
}
