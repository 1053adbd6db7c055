package dynamo

import (
	"context"
	"fmt"
	"math"

	"github.com/calgraph/calgraph/internal/calendar"
)

// A series deleted (deleteEntry of it, or deleteOccurrence with scope ALL)
// goes to the trash like an entry: its master item, its current exceptions
// and its attendee items (their answers to the series and to single
// occurrences with them) exactly as stored. A deletion of one occurrence
// (THIS) or of the following ones (THIS_AND_FOLLOWING) is an edit of the
// series, undone by editing it again: not trashed.

// trashSeries writes the deletion of series st (edit deletes it): in one
// transaction when it fits, else in steps (trash_steps.go).
func (s *Store) trashSeries(ctx context.Context, acc *access, st *storedSeries, edit *calendar.SeriesEdit, people seriesPeopleWrites) error {
	master, exceptions, err := s.rawSeries(ctx, st)
	if err != nil {
		return err
	}
	t := s.trashPuts(acc.viewer, st.Master, master, exceptions, people.raw)
	ops, err := s.masterWrites(st, edit, st.gen) // the master's delete, as read
	if err != nil {
		return err
	}
	ops = append([]txOp{roleCheck(st.Master.CalendarID, acc.viewer, calendar.ActionWriteEntries)}, ops...)
	ops = append(ops, t.head...)
	if acc.calendar.IsResource { // its bookings go with the switch
		slots, err := s.seriesSlotWrites(acc.calendar, st, edit)
		if err != nil {
			return err
		}
		ops = append(ops, slots...)
	}
	var drops []txOp
	for _, x := range edit.Drop {
		drops = append(drops, exceptionDeletes(x, st.gen, st.pieces[x.ID], versionIs(x.Version))...)
	}
	if whole := people.logged(seriesWrite(ctx, acc.viewer, st, edit, ops, drops, people.ops)); len(t.parts) == 0 && whole.Size() <= s.maxSeriesActions {
		return s.bookingFailed(ctx, s.commit(ctx, whole))
	}
	return s.bookingFailed(ctx, s.trashInSteps(ctx, acc.calendar, st.Master, t, seriesWrite(ctx, acc.viewer, st, edit, ops)))
}

// rawSeries reads the items of series st as stored: its master and current
// exceptions (not their pieces, nor exceptions of older generations). The
// deletion is conditioned on the master as st read it (masterAsRead: its
// version, exception and attendance revisions), which every write of an
// exception or attendee raises, so a read that differs from st fails it.
func (s *Store) rawSeries(ctx context.Context, st *storedSeries) (item, []item, error) {
	first, last := seriesKeyRange(st.Master.ID)
	items, err := s.queryBetween(ctx, "", attrSK, calendarPartition(st.Master.CalendarID), first, last, filter{}, math.MaxInt)
	if err != nil {
		return nil, nil, fmt.Errorf("read series %s: %w", st.Master.ID, err)
	}
	var master item
	var exceptions []item
	for _, it := range items {
		r, err := decodeEntryRecord(it)
		if err != nil {
			return nil, nil, err
		}
		switch {
		case r.EntityType == entitySeries && r.Piece == 0:
			master = it
		case r.EntityType == entityException && r.Piece == 0 && r.Gen == st.gen:
			exceptions = append(exceptions, it)
		}
	}
	if master == nil {
		return nil, nil, calendar.Errorf(calendar.CodeNotFound, "entry not found")
	}
	return master, exceptions, nil
}
