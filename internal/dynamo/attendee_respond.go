package dynamo

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"

	"github.com/calgraph/calgraph/internal/calendar"
)

// Respond implements calendar.AttendeeService: the invited user answers,
// with no role on the calendar needed. The answer's seat is decided on the
// entry as read, and the transaction holds only if the entry still allows
// it: the capacity as read, the head count at most what leaves room for
// the answer, no more waiting than read (so an acceptance that fits does
// not overtake the waitlist), the ticket counter as read when the answer
// takes a ticket, the answer epoch as read (an answer racing a move of the
// entry's time lands before the move, and is reset by it, or is built again
// after it, at the new epoch: never counted at the old one), and the whole
// summary as read when it promotes someone. A condition that fails reads again and decides again.
func (s *Store) Respond(ctx context.Context, r calendar.RSVP) (*calendar.Attendee, error) {
	viewer, err := calendar.ViewerID(ctx)
	if err != nil {
		return nil, err
	}
	if err := validEntryKey(r.Key); err != nil {
		return nil, err
	}
	if err := r.Validate(); err != nil {
		return nil, err
	}
	return retryAttendance(ctx, func() (*calendar.Attendee, error) { return s.respond(ctx, viewer, r) })
}

func (s *Store) respond(ctx context.Context, viewer string, r calendar.RSVP) (*calendar.Attendee, error) {
	ek, ak := entryKey(r.Key.CalendarID, r.Key.EntryID), attendeeKey(r.Key.CalendarID, r.Key.EntryID, attendeeWho(viewer, ""))
	items, err := s.batchGet(ctx, []itemKey{ek, ak})
	if err != nil {
		return nil, err
	}
	if items[ak] == nil { // not invited: indistinguishable from no entry
		return nil, errEntryNotFound()
	}
	e, pieces, err := entryOfItem(items[ek])
	if err != nil {
		return nil, err
	}
	// The answer as it stands at the entry's epoch: one given before the
	// entry's time moved counts as NEEDS_ACTION, and the new one is given
	// at the epoch read, which the write requires unchanged.
	was, err := decodeAttendeeAt(items[ak], e.Attendance.Epoch)
	if err != nil {
		return nil, err
	}
	if !calendar.CanRespond(viewer, was) {
		return nil, errEntryNotFound()
	}
	if r, err = r.ScopeOn(e.IsSeries()); err != nil {
		return nil, err
	}
	if was.Version != r.ExpectedVersion {
		return nil, attendeeChanged(r.ExpectedVersion)(items[ak])
	}
	if e.IsSeries() {
		return s.respondSeries(ctx, items[ek], e, was, r)
	}
	now := s.timestamp()
	att := e.Attendance
	answer, err := calendar.Seat(att, *was, r.Apply(*was, now))
	if err != nil {
		return nil, err
	}
	d := calendar.SummaryChange(was, &answer)
	after := att
	after.Summary.Count(was, -1)
	after.Summary.Count(&answer, 1)
	promoted, after, err := s.promotions(ctx, e, after, calendar.MaxAttendeeDelta, was)
	if err != nil {
		return nil, err
	}
	seated(&d, promoted)
	w := newWrite()
	w.Idempotent(ctx)
	w.Add(attendeePut(&answer, was.Version, now))
	w.LogInvitation(&answer)
	cond := numberIs("capacity", att.Capacity).And(numberIs(attrAttEpoch, att.Epoch))
	if att.Capacity > 0 && answer.Heads() > was.Heads() {
		cond = cond.And(numberAtMost(attrHeads, att.Capacity-answer.Heads()+was.Heads()))
		cond = cond.And(numberAtMost("attWaitlisted", att.Summary.Waitlisted))
	}
	var ticket []func(expression.UpdateBuilder) expression.UpdateBuilder
	if answer.Waitlisted && !was.Waitlisted {
		cond = cond.And(numberIs("attTickets", att.Tickets))
		ticket = append(ticket, func(u expression.UpdateBuilder) expression.UpdateBuilder {
			return u.Set(expression.Name("attTickets"), expression.Value(answer.Ticket))
		})
	}
	if len(promoted) > 0 {
		cond = cond.And(attendanceAsRead(att.Rev))
	}
	w.Add(summaryWrites(e, pieces, d, cond, ticket...)...)
	promote(w, promoted, now)
	w.LogEntry(e.CalendarID, e.ID)
	if err := s.commit(ctx, w); err != nil {
		return nil, fmt.Errorf("respond to entry %s: %w", e.ID, err)
	}
	return &answer, nil
}
