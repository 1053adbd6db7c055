package dynamo

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"

	"github.com/calgraph/calgraph/internal/calendar"
)

// A deletion too large for one transaction (a series with many exceptions,
// an entry with many attendees, or one whose trash needs parts) is made in
// steps, as series splits are (series_split.go):
//
//  0. a pending item (kind "trash", ID <calendarId>/<entryId>, naming the
//     trash item) is written, on condition that none is: ResumeDeletions
//     finds it should the process stop;
//  1. the trash parts are written: nothing reads them before the trash
//     item that counts them exists;
//  2. the switch: one transaction deletes the entry's item as read (its
//     version and attendance revision: any answer or change since the read
//     fails it, and the deletion is built again), puts the trash item and
//     ref, and writes its change record, stats, history, holds and
//     bookings, on condition that the pending item is not abandoned;
//  3. what is left of the entry, which nothing reads once its item is gone
//     (a series' exceptions and their pieces; its attendees, each with its
//     user's log record), is deleted, and then the pending item.
//
// Cut off before the switch, the deletion is abandoned by ResumeDeletions
// (past splitGrace): it marks the pending item abandoned on condition that
// the trash item does not exist (so a switch in flight fails), removes the
// parts, then the pending item: the entry stays as it was. Cut off after,
// ResumeDeletions finishes step 3. The window: between the switch and step
// 3 the invited users' logs do not yet say their invitation went.

const (
	pendingTrash   = "trash"   // a deletion into the trash made in steps
	pendingRestore = "restore" // a restore made in steps (trash_restore.go)
)

// trashPendingID names a deletion's or restore's pending item by its entry.
func trashPendingID(calendarID, entryID string) string { return calendarID + "/" + entryID }

// errTrashMade and errTrashSettled explain a refused abandonment: the
// switch was made, or the pending item is gone.
var (
	errTrashMade    = errors.New("the switch was made")
	errTrashSettled = errors.New("settled already")
)

// errBeingMoved refuses a deletion or restore of an entry another one is
// being made of, in steps.
func errBeingMoved(id string) error {
	return calendar.Errorf(calendar.CodeVersionConflict, "entry %s is being deleted or restored: reload it and try again", id)
}

// trashPendingPut writes the pending item of kind for the entry whose trash
// item is at trashSK, on condition that no such step is under way (else
// failed explains).
func (s *Store) trashPendingPut(kind, calendarID, entryID, trashSK string, failed explainFunc) txOp {
	id := trashPendingID(calendarID, entryID)
	k := pendingKey(kind, id)
	return opPut(k, pendingRecord{PK: k.PK, SK: k.SK, EntityType: entityPending, Kind: kind, ID: id,
		CreatedAt: s.timestamp(), Trash: trashSK}, notExists(), failed)
}

// notAbandoned guards a switch: its pending item is there and not
// abandoned (else the switch is built again from a new read).
func notAbandoned(kind, id string) txOp {
	return opCheck(pendingKey(kind, id), exists().And(expression.AttributeNotExists(expression.Name(attrAbandoned))),
		func(item) error { return errAttendanceMoved })
}

// trashInSteps makes deletion switchOver of e of calendar cal (step 2; its
// trash is t) in the steps above.
func (s *Store) trashInSteps(ctx context.Context, cal *calendar.Calendar, e *calendar.Entry, t trashing, switchOver *write) error {
	id := trashPendingID(e.CalendarID, e.ID)
	switchOver.Guard(notAbandoned(pendingTrash, id))
	if switchOver.Size() > s.maxSeriesActions {
		return tooBig(switchOver, cal)
	}
	finish, cancel := cleanupContext(ctx)
	defer cancel()
	w := newWrite()
	w.Add(s.trashPendingPut(pendingTrash, e.CalendarID, e.ID, t.key.SK, func(item) error { return errBeingMoved(e.ID) }))
	if err := s.commit(finish, w); err != nil {
		return err
	}
	if err := s.writeUnconditionally(finish, t.parts); err != nil {
		return errors.Join(err, s.settleTrash(finish, id, t.key.SK))
	}
	if err := s.splitStep("parts"); err != nil {
		return err
	}
	if err := s.commit(finish, switchOver); err != nil {
		if serr := s.settleTrash(finish, id, t.key.SK); serr != nil {
			return errors.Join(err, serr)
		}
		if calendar.ErrorCode(err) == calendar.CodeInternal && s.exists(finish, t.key) {
			markerCommitted(finish) // the switch was made after all, and carried it
			return nil
		}
		return err
	}
	if err := s.splitStep("switched"); err != nil {
		return err
	}
	return s.finishTrash(finish, e.CalendarID, e.ID)
}

// tooBig refuses a switch that does not fit one transaction: only a
// resource calendar's bookings can make it so (anything else it holds is
// bounded), which the client can make fewer.
func tooBig(w *write, cal *calendar.Calendar) error {
	if cal.IsResource {
		return errTooManyBookings()
	}
	return fmt.Errorf("a switch of %d actions", w.Size())
}

// exists reports whether the item at k exists (false when it cannot tell).
func (s *Store) exists(ctx context.Context, k itemKey) bool {
	_, found, err := s.getItem(ctx, k)
	return err == nil && found
}

// settleTrash settles the deletion pending as id whose trash item is at
// trashSK: finishes it when its switch was made, else abandons it and
// removes its parts. Each step can be repeated, by several processes at once.
func (s *Store) settleTrash(ctx context.Context, id, trashSK string) error {
	calendarID, entryID, ok := strings.Cut(id, "/")
	if !ok {
		return fmt.Errorf("a pending deletion named %q", id)
	}
	w := newWrite()
	w.Update(pendingKey(pendingTrash, id), expression.Set(expression.Name(attrAbandoned), expression.Value(true)), exists(),
		func(item) error { return errTrashSettled })
	w.Guard(opCheck(itemKey{PK: calendarPartition(calendarID), SK: trashSK}, notExists(), func(item) error { return errTrashMade }))
	switch err := s.commit(ctx, w); {
	case errors.Is(err, errTrashMade):
		return s.finishTrash(ctx, calendarID, entryID)
	case errors.Is(err, errTrashSettled):
		return nil
	case err != nil:
		return err
	}
	if err := s.removePrefix(ctx, calendarID, trashPartPrefix(trashSK)); err != nil {
		return err
	}
	gone := newWrite()
	gone.Delete(pendingKey(pendingTrash, id), noCondition(), nil)
	return s.commitSmall(ctx, gone)
}

// removePrefix deletes the items of a calendar's partition whose sort keys
// begin with prefix.
func (s *Store) removePrefix(ctx context.Context, calendarID, prefix string) error {
	lo, hi := prefixRange(prefix)
	return s.removeBetween(ctx, calendarID, lo, hi)
}

// finishTrash makes step 3 of a deletion whose switch was made: deletes
// what is left of the entry (a series' exceptions and pieces; attendees,
// each with its user's log record, as many to a transaction as fit), then
// the pending item.
func (s *Store) finishTrash(ctx context.Context, calendarID, entryID string) error {
	first, last := seriesKeyRange(entryID) // the entry's item is gone: what is left are exceptions and pieces
	if err := s.removeBetween(ctx, calendarID, first, last); err != nil {
		return err
	}
	left, err := s.splitCopies(ctx, calendarID, entryID)
	if err != nil {
		return err
	}
	per := max(1, (min(s.maxSeriesActions, maxTxActions)-1)/2) // a delete and a log record each
	for len(left) > 0 {
		n := min(per, len(left))
		w := newWrite()
		for _, it := range left[:n] {
			a, err := decodeAttendee(it)
			if err != nil {
				return err
			}
			w.Delete(keyOf(it), noCondition(), nil)
			w.LogInvitation(a)
		}
		if err := s.commit(ctx, w); err != nil {
			return fmt.Errorf("remove the attendees of deleted entry %s: %w", entryID, err)
		}
		left = left[n:]
	}
	gone := newWrite()
	gone.Delete(pendingKey(pendingTrash, trashPendingID(calendarID, entryID)), noCondition(), nil)
	return s.commitSmall(ctx, gone)
}

// removeBetween deletes the items of a calendar's partition whose sort keys
// are between first and last.
func (s *Store) removeBetween(ctx context.Context, calendarID, first, last string) error {
	items, err := s.queryBetween(ctx, "", attrSK, calendarPartition(calendarID), first, last, filter{}, math.MaxInt)
	if err != nil {
		return fmt.Errorf("read %s…%s: %w", first, last, err)
	}
	deletes := make([]txOp, len(items))
	for i, it := range items {
		deletes[i] = opDelete(keyOf(it), noCondition(), nil)
	}
	return s.writeUnconditionally(ctx, deletes)
}

// settleTrashStep settles a deletion or restore made in steps, pending as r.
func (s *Store) settleTrashStep(ctx context.Context, r pendingRecord) error {
	if r.Kind == pendingRestore {
		return s.settleRestore(ctx, r.ID, r.Trash)
	}
	return s.settleTrash(ctx, r.ID, r.Trash)
}

// settleRestore settles the restore pending as id of the trash item at
// trashSK: finishes it when its switch was made, else abandons it and
// removes what its step 1 wrote (the entry does not exist, so every
// exception and attendee under its ID is a copy).
func (s *Store) settleRestore(ctx context.Context, id, trashSK string) error {
	calendarID, entryID, ok := strings.Cut(id, "/")
	if !ok {
		return fmt.Errorf("a pending restore named %q", id)
	}
	pk := pendingKey(pendingRestore, id)
	w := newWrite()
	w.Update(pk, expression.Set(expression.Name(attrAbandoned), expression.Value(true)), exists(),
		func(item) error { return errTrashSettled })
	w.Guard(opCheck(entryKey(calendarID, entryID), notExists(), func(item) error { return errTrashMade }))
	switch err := s.commit(ctx, w); {
	case errors.Is(err, errTrashMade):
		return s.finishRestore(ctx, calendarID, entryID, trashSK)
	case errors.Is(err, errTrashSettled):
		return nil
	case err != nil:
		return err
	}
	first, last := seriesKeyRange(entryID)
	if err := s.removeBetween(ctx, calendarID, first, last); err != nil {
		return err
	}
	if err := s.removePrefix(ctx, calendarID, attendeePrefix(entryID)); err != nil {
		return err
	}
	gone := newWrite()
	gone.Delete(pk, noCondition(), nil)
	return s.commitSmall(ctx, gone)
}

// finishRestore makes step 3 of a restore whose switch was made.
func (s *Store) finishRestore(ctx context.Context, calendarID, entryID, trashSK string) error {
	if err := s.finishCopies(ctx, calendarID, entryID, itemKey{}); err != nil {
		return err
	}
	if err := s.removePrefix(ctx, calendarID, trashPartPrefix(trashSK)); err != nil {
		return err
	}
	gone := newWrite()
	gone.Delete(pendingKey(pendingRestore, trashPendingID(calendarID, entryID)), noCondition(), nil)
	return s.commitSmall(ctx, gone)
}
