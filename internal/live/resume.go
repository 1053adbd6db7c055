package live

import (
	"context"
	"maps"
	"slices"

	"github.com/calgraph/calgraph/internal/calendar"
)

// Resuming. A subscription that resumes calendars from tokens reads their
// backlog itself (catchUp), page by page, while the Hub goes on reading the
// logs it follows. Two things keep that exact:
//   - Order. The Hub's reads and the subscription's of one log never
//     overlap (Hub.beside, feed.reading). While the subscription catches
//     up, the Hub does not hand it its reads, it notes them
//     (subscriber.missed); then the subscription reads each log it missed
//     once more, from the token of the last read it handled, the Hub's
//     reads of that log waiting meanwhile, and takes the Hub's reads of it
//     from then on. So every read handed to it came after its own reads of
//     that log, and no delivery takes an object back to an older state
//     (before, a read of the Hub's made while the backlog was read, older
//     than the backlog's end, was delivered after it).
//   - Room. Nothing waits in the subscriber's buffer while it catches up,
//     however long the backlog: it is not dropped as too slow for reading
//     its backlog (feedBuffer counts the Hub's reads once it is live).

// catchUp delivers each resumed calendar's changes since its token, and
// the Invited deliveries missed since invited's token, then those of every
// log the Hub read meanwhile; the subscriber is then live.
func (s *Subscription) catchUp(ctx context.Context, resume map[string]string, invited resumeInvited) error {
	if len(resume) == 0 && invited.from == nil {
		return nil
	}
	for _, id := range slices.Sorted(maps.Keys(resume)) {
		if _, ok := s.members[id]; ok {
			if err := s.readBack(ctx, FeedKey{ID: id}, resume[id], true); err != nil {
				return err
			}
		}
	}
	if err := s.catchUpInvited(ctx, invited); err != nil {
		return err
	}
	for _, k := range s.hub.endCatchUp(s.sub) {
		if err := s.readLast(ctx, k); err != nil {
			return err
		}
	}
	return nil
}

// readBack reads a calendar's log from a client's token to its end, a page
// at a time, and delivers what it finds as the Hub's reads are delivered.
// With authorize, the read checks first that the viewer still reads the
// calendar: if not, the calendar ends.
func (s *Subscription) readBack(ctx context.Context, k FeedKey, token string, authorize bool) error {
	for {
		var b batch
		var more bool
		var err error
		s.hub.beside(k, nil, func() { b, more, err = s.readLog(ctx, k, token, authorize) })
		switch code := calendar.ErrorCode(err); {
		case err == nil:
		case code == calendar.CodeNotFound || code == calendar.CodeForbidden:
			s.end(k.ID)
			if !s.send(ctx, Delivery{Kind: Ended, CalendarID: k.ID}) {
				return ctx.Err()
			}
			return nil
		default:
			return err
		}
		token = b.token
		if err := s.deliver(ctx, b); err != nil {
			return err
		}
		if _, followed := s.at[k]; !more || !followed {
			return nil
		}
	}
}

// readLast reads k's log from the last read the subscription handled to its
// end, the Hub's reads of it waiting meanwhile, delivers what it finds and
// takes the Hub's reads of k from then on. The membership changes it finds
// tell whether the viewer still reads the calendar, as in the Hub's reads.
func (s *Subscription) readLast(ctx context.Context, k FeedKey) error {
	token, followed := s.at[k]
	if !followed { // ended meanwhile
		return nil
	}
	var pages []batch
	var err error
	s.hub.beside(k, s.sub, func() {
		for {
			b, more, e := s.readLog(ctx, k, token, false)
			if err = e; e != nil {
				return
			}
			pages, token = append(pages, b), b.token
			if !more {
				return
			}
		}
	})
	if err != nil {
		return err
	}
	for _, b := range pages {
		if err := s.deliver(ctx, b); err != nil {
			return err
		}
	}
	return nil
}

// deliver hands the client what one read of a log makes.
func (s *Subscription) deliver(ctx context.Context, b batch) error {
	for _, d := range s.handle(b) {
		if !s.send(ctx, d) {
			return ctx.Err()
		}
	}
	return nil
}

// readLog reads one page of k's log from token, as the Hub would, or with
// authorize as the viewer (calendar.SyncService.Changes).
func (s *Subscription) readLog(ctx context.Context, k FeedKey, token string, authorize bool) (batch, bool, error) {
	b := batch{feed: k, shared: &Shared{}}
	if k.User {
		p, err := s.hub.src.UserLogChanges(ctx, k.ID, token, calendar.MaxChangePage)
		if err != nil {
			return b, false, err
		}
		b.list, b.invitations, b.alerts, b.token = p.Changes, p.Invitations, p.Alerts, p.Token
		return b, p.More, nil
	}
	read := s.hub.src.LogChanges
	if authorize {
		read = s.hub.src.Changes
	}
	p, err := read(ctx, k.ID, token, calendar.MaxChangePage)
	if err != nil {
		return b, false, err
	}
	b.calendar, b.cal, b.token = p.Changes, p.Calendar, p.Token
	return b, p.More, nil
}
