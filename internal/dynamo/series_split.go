package dynamo

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"

	"github.com/calgraph/calgraph/internal/calendar"
)

// A THIS_AND_FOLLOWING split copies the series' attendees to the series
// split off. When the copies (an attendee item each, and a record in each
// calgraph user's own log) do not fit the split's switch transaction, the
// split is made in steps (splitInSteps):
//
//  0. a pending item (kind "split", ID <calendarId>/<new seriesId>) is
//     written: ResumeDeletions finds it should the process stop;
//  1. the copies are written under the new series' keys, unindexed (no GSI1
//     keys) and marked splitPending. The new series' master does not exist,
//     so nothing reads them: no entry, agenda or inbox (GSI1) shows them,
//     and no user's log names them;
//  2. the switch (applyInSteps: the split's exceptions, then one
//     transaction that truncates the old series and creates the new
//     master) also checks that the pending item is there and not
//     abandoned. It rewrites the old master on condition that its
//     attendance revision is as read (masterAsRead): every answer, to the
//     series or to one occurrence, and every change of the list raises it,
//     so an answer given since the copy fails the switch, the copies are
//     removed and the split is built again from a fresh read
//     (retrySeriesEdit: at most attendeeAttempts times, then UNAVAILABLE);
//  3. once switched, the copies are indexed: each an update that sets its
//     GSI1 keys and drops the mark, on condition only that the attendee is
//     still there (a write of the attendee since put the same keys, which
//     never change while an invitation lasts, and dropped the mark), with
//     its user's log record in the same transaction, as many to a
//     transaction as fit; the last one deletes the pending item.
//
// Should the process stop between the steps: before the switch, the
// copies are never read (Check tolerates marked attendees of a split under
// way) and ResumeDeletions abandons the split: it marks the pending item
// abandoned on condition the new master does not exist (so a switch still
// in flight fails), removes the copies, then the pending item. After the
// switch, the new series holds every attendee (its summary and attendee
// list are right), but the copies not yet indexed are missing from their
// users' inboxes and logs until ResumeDeletions, past splitGrace, finishes
// step 3: that is the window. Each copy is indexed and logged in one
// transaction, so a repeated step 3 logs none twice.

// pendingSplit is the kind of the pending item of a split made in steps.
const pendingSplit = "split"

// splitGrace is how long a split made in steps is left to the request
// that makes it (which gives up after cleanupContext's five minutes)
// before ResumeDeletions settles it.
const splitGrace = 10 * time.Minute

// attrAbandoned and attrSplitPending name the pending item's and the
// copies' marks.
const (
	attrAbandoned    = "abandoned"
	attrSplitPending = "splitPending"
)

// splitPendingID names a split's pending item by the series it splits off.
func splitPendingID(calendarID, seriesID string) string { return calendarID + "/" + seriesID }

// errSplitMade and errSplitSettled explain settleSplit's refused
// abandonment: the new series exists, or the pending item is gone.
var (
	errSplitMade    = errors.New("the split's switch was made")
	errSplitSettled = errors.New("the split was settled already")
)

// splitInSteps makes a split whose attendee copies do not fit its switch:
// ops are the switch's actions but for the copies, fresh the exceptions of
// the series split off, people the copies.
func (s *Store) splitInSteps(ctx context.Context, viewer string, st *storedSeries, edit *calendar.SeriesEdit, gen string, ops, fresh []txOp, people seriesPeopleWrites) error {
	sp := edit.Split
	id := splitPendingID(sp.CalendarID, sp.ID)
	guard := opCheck(pendingKey(pendingSplit, id), exists().And(expression.AttributeNotExists(expression.Name(attrAbandoned))),
		func(item) error { return errAttendanceMoved }) // abandoned by ResumeDeletions: built again
	switchOver := seriesWrite(ctx, viewer, st, edit, ops, []txOp{guard})
	if switchOver.Size() > s.maxSeriesActions {
		return fmt.Errorf("a split's switch needs %d actions", switchOver.Size())
	}
	finish, cancel := cleanupContext(ctx)
	defer cancel()
	w := newWrite()
	w.Add(s.pendingPut(pendingSplit, id))
	if err := s.commitSmall(finish, w); err != nil {
		return err
	}
	now := s.timestamp()
	copies := make([]txOp, len(people.invited))
	for i, a := range people.invited {
		r := newAttendeeRecord(a, now)
		r.GSI1PK, r.GSI1SK, r.SplitPending = "", "", true
		copies[i] = opPut(attendeeKey(a.CalendarID, a.EntryID, attendeeWho(a.UserID, a.Email)), r, noCondition(), nil)
	}
	if err := s.writeUnconditionally(finish, copies); err != nil {
		return errors.Join(err, s.settleSplit(finish, id))
	}
	if err := s.splitStep("copied"); err != nil {
		return err
	}
	if err := s.applyInSteps(ctx, st, edit, gen, switchOver, fresh); err != nil {
		if serr := s.settleSplit(finish, id); serr != nil {
			return errors.Join(err, serr)
		}
		if s.splitMade(finish, sp) { // the switch was made after all, and settleSplit finished it
			markerCommitted(finish) // the switch carried it, if the request had one
			return nil
		}
		return err
	}
	if err := s.splitStep("switched"); err != nil {
		return err
	}
	return s.finishSplit(finish, sp.CalendarID, sp.ID)
}

// splitStep runs the test hook after a step of a split.
func (s *Store) splitStep(step string) error {
	if s.splitHook == nil {
		return nil
	}
	return s.splitHook(step)
}

// splitMade reports whether the series split off exists.
func (s *Store) splitMade(ctx context.Context, sp *calendar.Entry) bool {
	_, found, err := s.getItem(ctx, entryKey(sp.CalendarID, sp.ID))
	return err == nil && found
}

// settleSplit settles the split pending as id: finishes it when its switch
// was made, else abandons it (no switch can be made after) and removes its
// copies and any exceptions written for it. Each step can be repeated, by several processes at once.
func (s *Store) settleSplit(ctx context.Context, id string) error {
	calendarID, seriesID, ok := strings.Cut(id, "/")
	if !ok {
		return fmt.Errorf("a pending split named %q", id)
	}
	pk := pendingKey(pendingSplit, id)
	w := newWrite()
	w.Update(pk, expression.Set(expression.Name(attrAbandoned), expression.Value(true)), exists(),
		func(item) error { return errSplitSettled })
	w.Guard(opCheck(entryKey(calendarID, seriesID), notExists(), func(item) error { return errSplitMade }))
	switch err := s.commit(ctx, w); {
	case errors.Is(err, errSplitMade):
		return s.finishSplit(ctx, calendarID, seriesID)
	case errors.Is(err, errSplitSettled):
		return nil
	case err != nil:
		return err
	}
	items, err := s.splitCopies(ctx, calendarID, seriesID)
	if err != nil {
		return err
	}
	first, last := seriesKeyRange(seriesID) // exceptions written for it (applyInSteps' step 1)
	fresh, err := s.queryBetween(ctx, "", attrSK, calendarPartition(calendarID), first, last, filter{}, math.MaxInt)
	if err != nil {
		return fmt.Errorf("read the exceptions of split %s: %w", seriesID, err)
	}
	items = append(items, fresh...)
	var deletes []txOp
	for _, it := range items {
		deletes = append(deletes, opDelete(keyOf(it), noCondition(), nil))
	}
	if err := s.writeUnconditionally(ctx, deletes); err != nil {
		return fmt.Errorf("remove the copies of an abandoned split: %w", err)
	}
	gone := newWrite()
	gone.Delete(pk, noCondition(), nil)
	return s.commitSmall(ctx, gone)
}

// splitCopies reads the attendee items of series seriesID.
func (s *Store) splitCopies(ctx context.Context, calendarID, seriesID string) ([]item, error) {
	lo, hi := prefixRange(attendeePrefix(seriesID))
	items, err := s.queryBetween(ctx, "", attrSK, calendarPartition(calendarID), lo, hi, filter{}, math.MaxInt)
	if err != nil {
		return nil, fmt.Errorf("read the attendees of split %s: %w", seriesID, err)
	}
	return items, nil
}

// finishSplit makes step 3 of a split whose switch was made: indexes its
// copies still marked, each with its user's log record of the invitation in
// the same transaction, as many to a transaction as fit, and deletes the
// pending item with the last of them.
func (s *Store) finishSplit(ctx context.Context, calendarID, seriesID string) error {
	return s.finishCopies(ctx, calendarID, seriesID, pendingKey(pendingSplit, splitPendingID(calendarID, seriesID)))
}

// finishCopies indexes the copies of entry seriesID still marked (a split's,
// or a restore's: trash_restore.go), as finishSplit says, and deletes the
// pending item done (none when zero) with the last of them.
func (s *Store) finishCopies(ctx context.Context, calendarID, seriesID string, done itemKey) error {
	items, err := s.splitCopies(ctx, calendarID, seriesID)
	if err != nil {
		return err
	}
	var marked []attendeeRecord
	for _, it := range items {
		r, err := unmarshal[attendeeRecord](it)
		if err != nil {
			return err
		}
		if r.SplitPending {
			marked = append(marked, r)
		}
	}
	per := max(1, (min(s.maxSeriesActions, maxTxActions)-1)/2) // an update and a log record each; one for the pending item
	for len(marked) > per {
		if err := s.indexCopies(ctx, marked[:per], itemKey{}); err != nil {
			return err
		}
		if err := s.splitStep("indexed"); err != nil {
			return err
		}
		marked = marked[per:]
	}
	return s.indexCopies(ctx, marked, done)
}

// indexCopy adds to w the update that puts a split's copy on GSI1 and drops
// its mark, and its user's log record. Its condition is only that the
// attendee is still there: a write of the attendee since put the same GSI1
// keys (they never change while the invitation lasts) and dropped the mark.
func indexCopy(w *write, r attendeeRecord) {
	upd := expression.Remove(expression.Name(attrSplitPending))
	if r.UserID != "" {
		ik := attendeeIndexKey(r.UserID, r.InvitedAt, r.CalendarID, r.EntryID)
		upd = upd.Set(expression.Name(attrGSI1PK), expression.Value(ik.PK)).Set(expression.Name(attrGSI1SK), expression.Value(ik.SK))
	}
	w.Update(itemKey{PK: r.PK, SK: r.SK}, upd, exists(), func(item) error { return errCopyRemoved })
	w.LogInvitation(&calendar.Attendee{CalendarID: r.CalendarID, EntryID: r.EntryID, UserID: r.UserID})
}

// errCopyRemoved explains a failed indexCopy: the attendee was removed
// since the split was made.
var errCopyRemoved = errors.New("a split's copy was removed")

// indexCopies indexes copies (indexCopy) in one transaction, with the
// deletion of the pending item done when not zero. When an attendee was
// removed meanwhile, each is indexed alone instead, the removed ones left
// out.
func (s *Store) indexCopies(ctx context.Context, copies []attendeeRecord, done itemKey) error {
	w := newWrite()
	for _, r := range copies {
		indexCopy(w, r)
	}
	if done != (itemKey{}) {
		w.Delete(done, noCondition(), nil)
	}
	err := s.commit(ctx, w)
	if !errors.Is(err, errCopyRemoved) {
		return err
	}
	for _, r := range copies {
		one := newWrite()
		indexCopy(one, r)
		if err := s.commit(ctx, one); err != nil && !errors.Is(err, errCopyRemoved) {
			return err
		}
	}
	if done == (itemKey{}) {
		return nil
	}
	return s.indexCopies(ctx, nil, done)
}
