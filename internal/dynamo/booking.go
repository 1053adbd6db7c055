package dynamo

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"golang.org/x/sync/errgroup"

	"github.com/calgraph/calgraph/internal/calendar"
)

// Booking without a race (calendar/booking.go; docs/design.md, "Booking
// without a race"). An entry that names calendars in mustNotOverlap
// (calendar.Entry.Holds) is written by a transaction that, for each named
// calendar C:
//
//   - was built after a strong read of C's item at revision R and a read of
//     C's busy time over the entry's span (busyTime) that found it free,
//   - updates C's item on condition that its revision is still R, raising it.
//
// Every write that changes what C's busy time reads raises C's revision in
// its own transaction: the writes of C's entries and series (write.LogEntry)
// and of holds on C (below). So a booking commits only if nothing changed
// C's busy time between its read and its commit, and two bookings that read
// C at R cannot both commit: the first raises R, the second's condition
// fails, and it reads again and finds the first (errBusyMoved, bounded by
// maxBookingAttempts).
//
// For C other than the entry's own calendar, the transaction also puts a
// hold: an item in C's partition with the entry's time (holdRecord), which
// busyTime counts as busy, so a booking from yet another calendar sees it.
// The hold moves with the entry (rewriteEntry), goes with it (deleteEntry),
// with its calendar (removePartition) or with C (C's partition).
//
// DynamoDB's Query is read-committed against a transaction still applying:
// a read of C's item may show the raise of a transaction whose entry item
// the Query that follows misses. So the busy read waits until this instance
// has seen C at R for the view cache's settle window (settledFor), as the
// view cache does before keeping a read; a calendar read here a second or
// more ago (by findTimes or freeBusy before the booking, say) costs no wait.

// maxBookingAttempts bounds how often a write that names calendars in
// mustNotOverlap reads them again because one changed before it committed.
const maxBookingAttempts = 5

// errBusyMoved is a booking whose named calendar changed between its read
// and its commit: the write is read and checked again.
var errBusyMoved = errors.New("a calendar named in mustNotOverlap changed since it was read")

// retryBooking runs write again while its named calendars change under it.
func retryBooking[T any](write func() (T, *calendar.Calendar, error)) (T, *calendar.Calendar, error) {
	for attempt := 1; ; attempt++ {
		v, cal, err := write()
		if !errors.Is(err, errBusyMoved) {
			return v, cal, err
		}
		if attempt == maxBookingAttempts {
			return v, cal, calendar.Errorf(calendar.CodeUnavailable, "the calendars named in mustNotOverlap kept changing: try again")
		}
	}
}

// heldCalendar is a calendar named in mustNotOverlap as the booking read it.
type heldCalendar struct {
	cal  *calendar.Calendar
	busy calendar.Interval // the entry's span in the calendar's zone
}

// guardBooking checks that e, replacing old (nil for a new entry), overlaps
// no busy time of the calendars it holds, and adds to w the guards on their
// revisions and the holds' writes. Nothing is read when the entry holds no
// calendar and held none, or when a change leaves its time and holds alone.
// A calendar old held that is gone is let go when the write does not change
// the list; one viewer cannot see (a writer other than the booker) is
// CodeNotFound, as is a missing one named anew: nobody releases a held
// calendar without saying so.
func (s *Store) guardBooking(ctx context.Context, w *write, viewer string, old, e *calendar.Entry) error {
	if old != nil && !bookingMoved(old, e) {
		return nil
	}
	if len(e.Holds) > 0 {
		lenient := old != nil && slices.Equal(old.Holds, e.Holds)
		held, err := s.readHeld(ctx, viewer, e, lenient)
		if err != nil {
			return err
		}
		e.Holds = e.Holds[:0:0]
		for _, h := range held {
			e.Holds = append(e.Holds, h.cal.ID)
		}
		if err := s.checkFree(ctx, held, e); err != nil {
			return err
		}
		for _, h := range held {
			w.keepFree(h.cal, h.cal.ID != e.CalendarID)
		}
	}
	holdWrites(w, old, e)
	return nil
}

// bookingMoved reports whether a change of an entry changes what it holds:
// its time, how busy it makes, or the calendars it holds.
func bookingMoved(old, e *calendar.Entry) bool {
	return !old.Start.Equal(e.Start) || !old.End.Equal(e.End) || old.StartDate != e.StartDate || old.EndDate != e.EndDate ||
		old.Kind != e.Kind || old.Transparency() != e.Transparency() || !slices.Equal(old.Holds, e.Holds)
}

// readHeld reads the calendars e holds and viewer's memberships of them, in
// one BatchGetItem, and returns those viewer may see the busy time of.
func (s *Store) readHeld(ctx context.Context, viewer string, e *calendar.Entry, lenient bool) ([]heldCalendar, error) {
	var keys []itemKey
	for _, id := range e.Holds {
		keys = append(keys, calendarKey(id), membershipKey(id, viewer))
	}
	items, err := s.batchGet(ctx, keys)
	if err != nil {
		return nil, err
	}
	var held []heldCalendar
	for _, id := range e.Holds {
		ci, mi := items[calendarKey(id)], items[membershipKey(id, viewer)]
		if ci != nil && mi != nil {
			m, err := decodeMembershipRecord(mi)
			if err != nil {
				return nil, err
			}
			if calendar.Role(m.Role).Can(calendar.ActionFreeBusy) {
				r, err := decodeCalendarRecord(ci)
				if err != nil {
					return nil, err
				}
				cal := r.calendar()
				loc, err := calendar.LoadLocation(cal.TimeZone)
				if err != nil {
					return nil, err
				}
				start, end := e.Interval(loc)
				held = append(held, heldCalendar{cal: cal, busy: calendar.Interval{Start: start, End: end}})
				continue
			}
		}
		if !lenient || ci != nil {
			return nil, calendar.Errorf(calendar.CodeNotFound, "a calendar named in mustNotOverlap was not found (a writer who cannot see it may set mustNotOverlap anew)")
		}
	}
	return held, nil
}

// checkFree reads the busy time of each held calendar over e's span, once
// this instance has seen each at its revision for the settle window, and
// refuses e when it overlaps any.
func (s *Store) checkFree(ctx context.Context, held []heldCalendar, e *calendar.Entry) error {
	var wait time.Duration
	for _, h := range held {
		wait = max(wait, s.views.unsettledFor(h.cal.ID, h.cal.Revision))
	}
	if wait > 0 {
		if err := sleep(ctx, wait); err != nil {
			return err
		}
	}
	g, gctx := errgroup.WithContext(ctx)
	for _, h := range held {
		g.Go(func() error {
			busy, err := s.busyTime(gctx, h.cal, h.busy.Start, h.busy.End, e.ID)
			if err != nil {
				return err
			}
			if iv, ok := calendar.FirstOverlap(busy, h.busy.Start, h.busy.End); ok {
				return calendar.NewBusyConflict(h.cal.ID, iv)
			}
			return nil
		})
	}
	return g.Wait()
}

// keepFree makes w hold only while calendar cal is at the revision it was
// read at, and raise it: the raise joins the action on cal's item the write
// has (the check that it is still there, for an entry written on cal),
// which this condition replaces, as it holds only while the item exists.
// held says that the write puts a hold on cal: the first marks it
// (calendar.Calendar.HasHolds), so that busy reads look for holds there.
func (w *write) keepFree(cal *calendar.Calendar, held bool) {
	rev, stored := expression.Name(attrRevision), cal.Revision-1 // Revision counts from 1 (calendarRecord)
	at := rev.Equal(expression.Value(stored))
	if stored == 0 {
		at = expression.AttributeNotExists(rev).Or(at)
	}
	op := opCheck(calendarKey(cal.ID), exists().And(at), func(old item) error {
		if old == nil {
			return errCalendarNotFound()
		}
		return errBusyMoved
	})
	if held && !cal.HasHolds {
		op = opUpdate(op.key, expression.Set(expression.Name(attrHasHolds), expression.Value(true)), exists().And(at), op.failed)
	}
	if i := opOn(w.ops, op.key); i >= 0 {
		if w.ops[i].action.ConditionCheck == nil || op.action.ConditionCheck == nil {
			op.err = errors.New("a booking's guard on a calendar the write updates")
		}
		w.ops[i] = op
	} else {
		w.Guard(op)
	}
	w.raise(cal.ID)
}

// holdWrites adds to w the puts of e's holds and the deletes of old's that
// e no longer has (either may be nil). A hold that stays where it was is put
// again over itself.
func holdWrites(w *write, old, e *calendar.Entry) {
	put := map[itemKey]bool{}
	if e != nil {
		_, reachEnd := e.Reach()
		for _, id := range e.Holds {
			if id == e.CalendarID {
				continue // the entry makes its own calendar busy
			}
			k := holdKey(id, reachEnd, e.ID)
			w.Put(k, newHoldRecord(k, id, e), noCondition(), nil)
			put[k] = true
		}
	}
	if old != nil {
		_, reachEnd := old.Reach()
		for _, id := range old.Holds {
			if k := holdKey(id, reachEnd, old.ID); id != old.CalendarID && !put[k] {
				w.Delete(k, noCondition(), nil)
			}
		}
	}
}
