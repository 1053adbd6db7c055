package dynamo

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"

	"github.com/calgraph/calgraph/internal/calendar"
)

// Attendee writes. Each is one transaction of the attendee items it
// changes, an ADD of what they change to the summary on the entry item and
// each of its pieces (the entry's version stays: an organizer's edit never
// conflicts with an answer), the change record of the entry (which raises
// the calendar's revision, so no cached view keeps an old summary) and the
// idempotency marker. Nothing in the stats counts attendees, so they tally
// nothing. A write whose read of the entry went stale (a condition on the
// entry failed) reads again and is built anew, up to attendeeAttempts times.

// attendeeAttempts bounds how often an attendee write is built again after
// a concurrent one changed the entry's summary under it.
const attendeeAttempts = 30

// errAttendanceMoved says the entry's attendance changed since it was read:
// the write is to be built again from a new read, never shown to a client.
var errAttendanceMoved = errors.New("the entry's attendees changed since it was read")

// retryAttendance runs write until it returns anything but
// errAttendanceMoved, waiting a little more each time.
func retryAttendance[T any](ctx context.Context, write func() (T, error)) (T, error) {
	for attempt := 1; ; attempt++ {
		out, err := write()
		if !errors.Is(err, errAttendanceMoved) {
			return out, err
		}
		if attempt == attendeeAttempts {
			return out, calendar.Errorf(calendar.CodeUnavailable, "too many people are answering this entry at once: try again")
		}
		if err := sleep(ctx, backoff(min(attempt, 4))); err != nil {
			return out, fmt.Errorf("attendee write retry: %w", err)
		}
	}
}

// retryAttendanceOn is retryAttendance for the entry writes that also
// return the calendar they authorized against.
func retryAttendanceOn(ctx context.Context, write func() (*calendar.Entry, *calendar.Calendar, error)) (*calendar.Entry, *calendar.Calendar, error) {
	var cal *calendar.Calendar
	e, err := retryAttendance(ctx, func() (*calendar.Entry, error) {
		e, c, err := write()
		cal = cmp.Or(c, cal)
		return e, err
	})
	return e, cal, err
}

// attendanceMoved explains a failed condition on an entry's summary.
func attendanceMoved(old item) error {
	if old == nil {
		return errEntryNotFound()
	}
	return errAttendanceMoved
}

func errEntryNotFound() error { return calendar.Errorf(calendar.CodeNotFound, "entry not found") }

// entryAsRead holds while an entry is at the expected version and its
// attendees' summary as read: a write that puts the entry item whole
// writes the summary it read, and must not undo an answer given since.
func entryAsRead(old *calendar.Entry, expectedVersion int) expression.ConditionBuilder {
	return versionIs(expectedVersion).And(attendanceAsRead(old.Attendance.Rev))
}

// entryChanged explains a failed entryAsRead: the version's explanation,
// or, when only the summary moved, a read and build again
// (retryAttendance) that the client never sees.
func entryChanged(expectedVersion int) explainFunc {
	return func(old item) error {
		if old == nil {
			return versionMismatch("entry", expectedVersion)(old)
		}
		if v, _ := unmarshal[versioned](old); v.Version != expectedVersion {
			return versionMismatch("entry", expectedVersion)(old)
		}
		return errAttendanceMoved
	}
}

// summaryWrites returns the ADD of d to entry e's item under cond, and to
// each of its pieces (every piece is a full copy of the entry, so a view
// that finds it through a piece shows the same summary). Each of also adds
// to the entry item's update (a waitlist ticket).
func summaryWrites(e *calendar.Entry, pieces int, d calendar.AttendeeSummary, cond expression.ConditionBuilder, also ...func(expression.UpdateBuilder) expression.UpdateBuilder) []txOp {
	upd := summaryUpdate(d)
	for _, f := range also {
		upd = f(upd)
	}
	cond = exists().And(numberIs("pieces", pieces)).And(cond)
	ops := []txOp{opUpdate(entryKey(e.CalendarID, e.ID), upd, cond, attendanceMoved)}
	for n := 1; n < pieces; n++ {
		ops = append(ops, opUpdate(entryPieceKey(e.CalendarID, e.ID, n), summaryUpdate(d), exists(), attendanceMoved))
	}
	return ops
}

// entryOfItem decodes an entry item as read, with the number of its
// pieces: NOT_FOUND when there is none.
func entryOfItem(it item) (*calendar.Entry, int, error) {
	r, e, err := entryRecordOfItem(it)
	return e, r.Pieces, err
}

// entryRecordOfItem decodes an entry item as read, as stored and as the
// domain has it.
func entryRecordOfItem(it item) (entryRecord, *calendar.Entry, error) {
	if it == nil {
		return entryRecord{}, nil, errEntryNotFound()
	}
	r, err := decodeEntryRecord(it)
	if err != nil {
		return r, nil, err
	}
	e, err := r.entry()
	return r, e, err
}

// errSeriesAttendance refuses what a series does not take: a capacity and
// waitlist (seating per occurrence is not built) and a list hidden for one
// occurrence.
func errSeriesAttendance() error {
	return calendar.Invalidf("capacity", "a series takes no capacity or waitlist, and hideAttendees only for ALL: set capacity on single entries")
}

// attendeePut writes a, which was read at version wasVersion (0: new).
func attendeePut(a *calendar.Attendee, wasVersion int, now time.Time) txOp {
	k := attendeeKey(a.CalendarID, a.EntryID, attendeeWho(a.UserID, a.Email))
	if wasVersion == 0 {
		return opPut(k, newAttendeeRecord(a, now), notExists(), mustBeNew(calendar.CodeAlreadyExists, "%s is already invited", a.Email))
	}
	return opPut(k, newAttendeeRecord(a, now), versionIs(wasVersion), attendeeChanged(wasVersion))
}

// attendeeChanged explains a failed attendee version condition.
func attendeeChanged(expected int) explainFunc {
	return func(old item) error {
		if old == nil {
			return errEntryNotFound()
		}
		return versionMismatch("your answer", expected)(old)
	}
}

// promotions returns the first of an entry's waitlisted attendees that the
// places left by att seat, in ticket order, stopping at the first that does
// not fit (the waitlist is served in order), with att as they leave it.
// The attendees the write changes itself (by attendeeWho) are not promoted.
func (s *Store) promotions(ctx context.Context, e *calendar.Entry, att calendar.Attendance, max int, changed ...*calendar.Attendee) ([]*calendar.Attendee, calendar.Attendance, error) {
	if att.Capacity == 0 || att.Summary.Waitlisted == 0 || max == 0 {
		return nil, att, nil
	}
	waiting, err := s.waitlist(ctx, e)
	if err != nil {
		return nil, att, err
	}
	skip := map[string]bool{}
	for _, c := range changed {
		skip[attendeeWho(c.UserID, c.Email)] = true
	}
	var out []*calendar.Attendee
	for _, w := range waiting {
		if skip[attendeeWho(w.UserID, w.Email)] {
			continue
		}
		if len(out) == max || !calendar.Promotable(att, w) {
			break
		}
		p := *w
		p.Waitlisted, p.Ticket = false, 0
		p.Version++
		att.Summary.Count(w, -1)
		att.Summary.Count(&p, 1)
		out = append(out, &p)
	}
	return out, att, nil
}

// waitlist reads the waitlist of e, in ticket order. The index holds the
// items of those waitlisted at an older answer epoch too (a move of the
// entry's time emptied the waitlist without rewriting them), which read as
// NEEDS_ACTION and are left out; so the Query reads the whole of it, at
// most an entry's MaxAttendees items, in one call.
func (s *Store) waitlist(ctx context.Context, e *calendar.Entry) ([]*calendar.Attendee, error) {
	in := keyQuery{index: indexLSI2, pkAttr: attrPK, partition: calendarPartition(e.CalendarID),
		sk: skPrefix(attrLSI2SK, waitlistPrefix(e.ID)), consistent: true, limit: calendar.MaxAttendees}.input(s.table)
	out, err := s.reads.Query(ctx, in)
	if err != nil {
		return nil, fmt.Errorf("query the waitlist of %s: %w", e.ID, err)
	}
	var list []*calendar.Attendee
	for _, it := range out.Items {
		a, err := decodeAttendeeAt(it, e.Attendance.Epoch)
		if err != nil {
			return nil, err
		}
		if a.Waitlisted {
			list = append(list, a)
		}
	}
	return list, nil
}

// seated adds to d what seating the promoted attendees changes in a
// summary: each counted as their answer now, no longer as waiting.
func seated(d *calendar.AttendeeSummary, promoted []*calendar.Attendee) {
	for _, p := range promoted {
		d.Count(p, 1)
		d.Count(&calendar.Attendee{Response: p.Response, Waitlisted: true}, -1)
	}
}

// promote adds the puts of promoted attendees (read one version earlier),
// each with its record in the attendee's own log.
func promote(w *write, promoted []*calendar.Attendee, now time.Time) {
	for _, p := range promoted {
		w.Add(attendeePut(p, p.Version-1, now))
		w.LogInvitation(p)
	}
}

// attendeeDeleteSlack is the room a deletion of an entry keeps for its
// bookings on a resource calendar (slotWrites), beyond its attendees.
const attendeeDeleteSlack = 20

// allAttendees reads every attendee of e (at most calendar.MaxAttendees),
// as they read at its answer epoch.
func (s *Store) allAttendees(ctx context.Context, e *calendar.Entry) ([]*calendar.Attendee, error) {
	page, err := s.attendeePage(ctx, pageQuery{pkAttr: attrPK, skAttr: attrSK, partition: calendarPartition(e.CalendarID),
		prefix: attendeePrefix(e.ID), consistent: true, page: calendar.Page{First: calendar.MaxAttendees}}, epochOf(e.Attendance.Epoch))
	if err != nil {
		return nil, err
	}
	return page.Attendees, nil
}

var _ calendar.AttendeeService = (*Store)(nil)
