package dynamo

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/calgraph/calgraph/internal/calendar"
)

// A restore puts back what the deletion kept: the entry item, a series'
// exceptions (with their pieces, made again from them) and the attendee
// items as they were. When it fits one transaction it is one; else it is
// made in steps, as a split copies its attendees (series_split.go):
//
//  0. a pending item (kind "restore", naming the trash item) is written,
//     on condition that none is;
//  1. the exceptions, which nothing reads while their series' item does
//     not exist, and the attendees, unindexed (no GSI1 keys) and marked
//     splitPending, so that no inbox shows them and Check vouches for them
//     by the pending item, are written;
//  2. the switch: one transaction puts the entry item on condition that it
//     does not exist, deletes the trash item and ref on condition that
//     they exist (of two restores one wins), checks that no deletion of the
//     entry is under way and the pending item is not abandoned, and writes
//     the change record, history (RESTORED), stats, holds and, on a
//     resource calendar, its bookings: a slot booked meanwhile fails it
//     (SLOT_CONFLICT) and the restore is abandoned at once;
//  3. each attendee is indexed with its user's log record in one
//     transaction (finishCopies), the parts are deleted, then the pending
//     item.
//
// The entry shows only from the switch. Cut off before it, ResumeDeletions
// abandons the restore (on condition that the entry item does not exist)
// and removes what step 1 wrote: the entry stays in the trash. Cut off
// after it, ResumeDeletions finishes step 3; until then the attendees not
// yet indexed are missing from their users' inboxes and logs.

func errNotInTrash(id string) error {
	return calendar.Errorf(calendar.CodeNotFound, "entry %s is not in this calendar's trash: it was never deleted, "+
		"was restored already, or was purged %d days after its deletion", id, int(calendar.TrashRetention/(24*time.Hour)))
}

// trashed is a trash item read whole (its parts too) for a restore.
type trashed struct {
	key        itemKey
	r          trashRecord
	entry      *calendar.Entry
	record     entryRecord // the entry item's, for a series' gen and xrev
	exceptions []*calendar.Entry
}

// readTrashed reads what the trash keeps of key (NOT_FOUND when nothing,
// or past its purge time) as acc read its ref.
func (s *Store) readTrashed(ctx context.Context, acc *access, key calendar.EntryKey) (*trashed, error) {
	rk := trashRefKey(key.CalendarID, key.EntryID)
	if acc.items[rk] == nil || s.purged(acc.items[rk]) {
		return nil, errNotInTrash(key.EntryID)
	}
	if acc.items[pendingKey(pendingTrash, trashPendingID(key.CalendarID, key.EntryID))] != nil {
		return nil, errBeingMoved(key.EntryID)
	}
	t := &trashed{key: itemKey{PK: calendarPartition(key.CalendarID), SK: stringAttr(acc.items[rk], "trashSK")}}
	it, ok, err := s.getItem(ctx, t.key)
	if err != nil {
		return nil, err
	}
	if !ok || s.purged(it) {
		return nil, errNotInTrash(key.EntryID)
	}
	if t.r, err = decodeTrash(it); err != nil {
		return nil, err
	}
	if err := s.trashParts(ctx, key.CalendarID, &t.r); err != nil {
		return nil, err
	}
	if t.record, err = decodeEntryRecord(t.r.Entry); err != nil {
		return nil, err
	}
	if t.entry, err = t.record.entry(); err != nil {
		return nil, err
	}
	for _, it := range t.r.Exceptions {
		r, err := decodeEntryRecord(it)
		if err != nil {
			return nil, err
		}
		x, err := r.entry()
		if err != nil {
			return nil, err
		}
		t.exceptions = append(t.exceptions, x)
	}
	return t, nil
}

func (s *Store) restoreEntry(ctx context.Context, key calendar.EntryKey) (*calendar.Entry, *calendar.Calendar, error) {
	ek, rk := entryKey(key.CalendarID, key.EntryID), trashRefKey(key.CalendarID, key.EntryID)
	deleting := pendingKey(pendingTrash, trashPendingID(key.CalendarID, key.EntryID))
	acc, err := s.access(ctx, key.CalendarID, calendar.ActionWriteEntries, ek, rk, deleting)
	if err != nil {
		return nil, nil, err
	}
	if acc.items[ek] != nil {
		return nil, acc.calendar, calendar.Invalidf("id", "entry %s is not deleted: there is nothing to restore", key.EntryID)
	}
	t, err := s.readTrashed(ctx, acc, key)
	if err != nil {
		return nil, acc.calendar, err
	}
	// A restore is a change of the entry: its version goes on from the
	// deletion's history record (seq version+xrev+1), so a client holding
	// it as it was before the deletion gets VERSION_CONFLICT, and updatedBy
	// and updatedAt say who restored it when. Its fields are otherwise as
	// deleted.
	e := t.entry
	e.Version += 2
	e.UpdatedBy, e.UpdatedAt = acc.viewer, s.timestamp()
	changed, err := marshal(struct {
		Version   int       `dynamodbav:"version"`
		UpdatedAt time.Time `dynamodbav:"updatedAt"`
		UpdatedBy string    `dynamodbav:"updatedBy"`
	}{e.Version, e.UpdatedAt, e.UpdatedBy})
	if err != nil {
		return nil, nil, err
	}
	restored := maps.Clone(t.r.Entry)
	maps.Copy(restored, changed)
	gone := func(item) error { return errNotInTrash(key.EntryID) }
	taken := func(item) error {
		return calendar.Errorf(calendar.CodeAlreadyExists, "entry %s exists again: there is nothing to restore", key.EntryID)
	}
	// The switch: the entry's item and what a write of it writes.
	switchOver := func() (*write, error) {
		w := newWrite()
		w.Idempotent(ctx)
		w.Guard(roleCheck(key.CalendarID, acc.viewer, calendar.ActionWriteEntries))
		w.Guard(opCheck(deleting, notExists(), func(item) error { return errBeingMoved(key.EntryID) }))
		w.Delete(t.key, expression.AttributeExists(expression.Name(attrPK)), gone)
		w.Delete(rk, expression.Name("trashSK").Equal(expression.Value(t.key.SK)), gone)
		head := opPut(ek, struct{}{}, notExists(), taken)
		head.action.Put.Item = restored
		w.Add(head)
		w.Add(entryWrites(e, s.placement(e), notExists(), taken, 0)[1:]...) // its pieces
		w.LogEntry(e.CalendarID, e.ID)
		w.Restore(acc.viewer, e)
		if e.IsSeries() {
			w.Revision(e.ID, t.record.Xrev)
		}
		// Its holds are checked as a create checks them (booking.go): a
		// calendar named in mustNotOverlap busy meanwhile is BUSY_CONFLICT.
		if err := s.guardBooking(ctx, w, acc.viewer, nil, e); err != nil {
			return w, err
		}
		return w, s.addBookings(w, acc.calendar, nil, e, t.exceptions)
	}
	whole, err := switchOver()
	if err != nil {
		return nil, acc.calendar, err
	}
	rest, invited, err := restoredItems(t, taken)
	if err != nil {
		return nil, nil, err
	}
	whole.Add(rest...)
	for _, a := range invited {
		whole.LogInvitation(a)
	}
	for n := 1; n <= t.r.Parts; n++ {
		whole.Delete(trashPartKey(key.CalendarID, t.key.SK, n), noCondition(), nil)
	}
	if whole.Size() <= s.maxSeriesActions {
		err = s.commitBooking(ctx, whole)
	} else if w, berr := switchOver(); berr != nil {
		err = berr
	} else {
		err = s.restoreInSteps(ctx, acc.calendar, key, t, w)
	}
	if err != nil {
		return nil, acc.calendar, fmt.Errorf("restore entry %s: %w", key.EntryID, err)
	}
	return e, acc.calendar, nil
}

// restoredItems returns the puts of a trashed entry's exceptions (and their
// pieces) and attendee items as they were, each on condition that it does
// not exist, and the attendees.
func restoredItems(t *trashed, taken explainFunc) ([]txOp, []*calendar.Attendee, error) {
	var ops []txOp
	for i, it := range t.r.Exceptions {
		r, err := decodeEntryRecord(it)
		if err != nil {
			return nil, nil, err
		}
		put := opPut(keyOf(it), struct{}{}, notExists(), taken)
		put.action.Put.Item = it
		ops = append(ops, put)
		ops = append(ops, exceptionWrites(t.exceptions[i], r.Gen, notExists(), 0)[1:]...)
	}
	var invited []*calendar.Attendee
	for _, it := range t.r.Attendees {
		a, err := decodeAttendee(it)
		if err != nil {
			return nil, nil, err
		}
		put := opPut(keyOf(it), struct{}{}, notExists(), taken)
		if put.action.Put.Item, err = indexedAttendee(it); err != nil {
			return nil, nil, err
		}
		ops = append(ops, put)
		invited = append(invited, a)
	}
	return ops, invited, nil
}

// indexedAttendee is a trashed attendee item as it goes back: as stored,
// but for one a restore or split under way had not indexed yet when the
// entry was deleted again (marked splitPending, off GSI1), which gets its
// GSI1 keys and loses the mark, as finishing that step would have done.
func indexedAttendee(it item) (item, error) {
	if it[attrSplitPending] == nil {
		return it, nil
	}
	r, err := unmarshal[attendeeRecord](it)
	if err != nil {
		return nil, err
	}
	out := maps.Clone(it)
	delete(out, attrSplitPending)
	if r.UserID != "" {
		ik := attendeeIndexKey(r.UserID, r.InvitedAt, r.CalendarID, r.EntryID)
		out[attrGSI1PK] = &types.AttributeValueMemberS{Value: ik.PK}
		out[attrGSI1SK] = &types.AttributeValueMemberS{Value: ik.SK}
	}
	return out, nil
}

// restoreInSteps makes restore switchOver (step 2) of t onto calendar cal in
// the steps above.
func (s *Store) restoreInSteps(ctx context.Context, cal *calendar.Calendar, key calendar.EntryKey, t *trashed, switchOver *write) error {
	id := trashPendingID(key.CalendarID, key.EntryID)
	switchOver.Guard(notAbandoned(pendingRestore, id))
	if switchOver.Size() > s.maxSeriesActions {
		return tooBig(switchOver, cal)
	}
	var copies []txOp
	for i, it := range t.r.Exceptions {
		r, err := decodeEntryRecord(it)
		if err != nil {
			return err
		}
		put := opPut(keyOf(it), struct{}{}, noCondition(), nil)
		put.action.Put.Item = it
		copies = append(copies, put)
		copies = append(copies, exceptionWrites(t.exceptions[i], r.Gen, noCondition(), 0)[1:]...)
	}
	for _, it := range t.r.Attendees {
		c := maps.Clone(it)
		delete(c, attrGSI1PK)
		delete(c, attrGSI1SK)
		c[attrSplitPending] = &types.AttributeValueMemberBOOL{Value: true}
		put := opPut(keyOf(it), struct{}{}, noCondition(), nil)
		put.action.Put.Item = c
		copies = append(copies, put)
	}
	finish, cancel := cleanupContext(ctx)
	defer cancel()
	w := newWrite()
	w.Add(s.trashPendingPut(pendingRestore, key.CalendarID, key.EntryID, t.key.SK,
		func(item) error { return errNotInTrash(key.EntryID) })) // another restore of it is under way: it wins
	if err := s.commit(finish, w); err != nil {
		return err
	}
	if err := s.writeUnconditionally(finish, copies); err != nil {
		return errors.Join(err, s.settleRestore(finish, id, t.key.SK))
	}
	if err := s.splitStep("copied"); err != nil {
		return err
	}
	if err := s.commitBooking(finish, switchOver); err != nil {
		if serr := s.settleRestore(finish, id, t.key.SK); serr != nil {
			return errors.Join(err, serr)
		}
		if calendar.ErrorCode(err) == calendar.CodeInternal && s.exists(finish, entryKey(key.CalendarID, key.EntryID)) {
			markerCommitted(finish) // the switch was made after all, and carried it
			return nil
		}
		return err
	}
	if err := s.splitStep("switched"); err != nil {
		return err
	}
	return s.finishRestore(finish, key.CalendarID, key.EntryID, t.key.SK)
}
