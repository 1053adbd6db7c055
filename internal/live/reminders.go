package live

import (
	"context"

	"github.com/calgraph/calgraph/internal/calendar"
)

// Reminders. The viewer's alerts (a reminder that fell due, snoozed or
// dismissed) are recorded in their own log, the one their calendar list
// and invitations are: a reminders subscription follows that log's feed,
// which the Hub reads once for every subscription of the viewer on this
// instance (a calendarChanges subscription without calendarIds follows it
// too), and delivers the alerts each read finds, with the log's token after
// them. A client that resumes from the token of its last delivery gets
// every alert changed since, once, as it is now, then the live ones: as
// calendarChanges resumes (resume.go), the backlog is read while the Hub
// holds back its reads of the log, so nothing is missed and nothing comes
// back older.

// ReminderDelivery is the viewer's alerts one read of their log found.
type ReminderDelivery struct {
	Alerts []*calendar.Alert
	// Token is the log's token after them: resume from it.
	Token string
}

// ReminderSubscription is one subscriber's alert deliveries.
type ReminderSubscription struct {
	hub    *Hub
	viewer string
	key    FeedKey
	sub    *subscriber
	out    chan ReminderDelivery
	ended  endReason
}

// SubscribeReminders starts delivering the viewer's alerts: those changed
// since resume first (a token of an earlier delivery, or of the viewer's
// calendarListChanges), then each as it happens. Errors (before anything is
// delivered): CodeInvalid for a token that is not the viewer's,
// CodeSyncTokenExpired for one past the change log's retention.
func (h *Hub) SubscribeReminders(ctx context.Context, resume string) (*ReminderSubscription, error) {
	viewer, err := calendar.ViewerID(ctx)
	if err != nil {
		return nil, err
	}
	key := FeedKey{ID: viewer, User: true}
	var first *calendar.CalendarListPage
	if resume != "" {
		first, err = h.src.UserLogChanges(ctx, viewer, resume, calendar.MaxChangePage)
		if calendar.ErrorCode(err) == calendar.CodeInvalid {
			return nil, calendar.Invalidf("resume", "resume is not the syncToken of one of your reminder deliveries")
		}
		if err != nil {
			return nil, err
		}
	}
	s := &ReminderSubscription{hub: h, viewer: viewer, key: key, out: make(chan ReminderDelivery, 16),
		sub: &subscriber{ch: make(chan batch, feedBuffer), dropped: make(chan struct{}),
			catchingUp: first != nil, behind: map[FeedKey]bool{}, missed: map[FeedKey]bool{}}}
	// Join first, then read the backlog: whatever commits meanwhile comes
	// in both (an alert as it is then, twice at worst), never in neither.
	h.join(ctx, s.sub, key)
	go s.run(ctx, first)
	return s, nil
}

// Deliveries returns the channel of deliveries; it closes when the context
// ends or the subscription fails (Err tells why).
func (s *ReminderSubscription) Deliveries() <-chan ReminderDelivery { return s.out }

// Err tells why the deliveries ended: nil when the context ended,
// ErrTooSlow, or the failure of a read of the backlog.
func (s *ReminderSubscription) Err() error { return s.ended.get() }

func (s *ReminderSubscription) run(ctx context.Context, first *calendar.CalendarListPage) {
	s.hub.subscriptions.Add(1)
	defer s.hub.subscriptions.Add(-1)
	defer close(s.out)
	defer s.hub.leave(s.sub, s.key)
	if first != nil {
		if err := s.catchUp(ctx, first); err != nil {
			if ctx.Err() == nil {
				s.ended.set(err)
			}
			return
		}
	}
	for {
		select {
		case <-ctx.Done():
			return
		case <-s.sub.dropped:
			s.ended.set(ErrTooSlow)
			return
		case b := <-s.sub.ch:
			if !s.send(ctx, b.alerts, b.token) {
				return
			}
		}
	}
}

// catchUp delivers the backlog from the first page on, then what the Hub
// read of the log meanwhile; the subscriber then takes the Hub's reads.
func (s *ReminderSubscription) catchUp(ctx context.Context, p *calendar.CalendarListPage) error {
	var err error
	for {
		if !s.send(ctx, p.Alerts, p.Token) {
			return ctx.Err()
		}
		if !p.More {
			break
		}
		token := p.Token
		s.hub.beside(s.key, nil, func() { p, err = s.hub.src.UserLogChanges(ctx, s.viewer, token, calendar.MaxChangePage) })
		if err != nil {
			return err
		}
	}
	for range s.hub.endCatchUp(s.sub) {
		var pages []*calendar.CalendarListPage
		token := p.Token
		s.hub.beside(s.key, s.sub, func() {
			for {
				q, e := s.hub.src.UserLogChanges(ctx, s.viewer, token, calendar.MaxChangePage)
				if err = e; e != nil {
					return
				}
				pages, token = append(pages, q), q.Token
				if !q.More {
					return
				}
			}
		})
		if err != nil {
			return err
		}
		for _, q := range pages {
			if !s.send(ctx, q.Alerts, q.Token) {
				return ctx.Err()
			}
		}
	}
	return nil
}

// send hands a read's alerts to the client; a read without alerts sends
// nothing. False when ctx ended or the Hub dropped the subscription.
func (s *ReminderSubscription) send(ctx context.Context, alerts []*calendar.Alert, token string) bool {
	if len(alerts) == 0 {
		return true
	}
	select {
	case s.out <- ReminderDelivery{Alerts: alerts, Token: token}:
		return true
	case <-ctx.Done():
		return false
	case <-s.sub.dropped:
		s.ended.set(ErrTooSlow)
		return false
	}
}
