package dynamo

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"

	"github.com/calgraph/calgraph/internal/calendar"
)

// storedSeries is a series as read from its key range: the domain series
// (exceptions of the current generation only) and what rewriting it needs.
type storedSeries struct {
	*calendar.Series
	gen    string         // the current generation of its exceptions
	pieces map[string]int // items per exception, by occurrence ID
}

// seriesRecords reads the items of a series' key range (its master, its
// exceptions of every generation, and their pieces) with one strongly
// consistent Query.
func (s *Store) seriesRecords(ctx context.Context, calendarID, seriesID string) ([]entryRecord, error) {
	first, last := seriesKeyRange(seriesID)
	items, err := s.queryBetween(ctx, "", attrSK, calendarPartition(calendarID), first, last, math.MaxInt)
	if err != nil {
		return nil, fmt.Errorf("read series %s: %w", seriesID, err)
	}
	records := make([]entryRecord, len(items))
	for i, it := range items {
		if records[i], err = unmarshal[entryRecord](it); err != nil {
			return nil, err
		}
	}
	return records, nil
}

// readSeries reads a series' master and current exceptions in one Query;
// nil when the series does not exist.
func (s *Store) readSeries(ctx context.Context, calendarID, seriesID string) (*storedSeries, error) {
	records, err := s.seriesRecords(ctx, calendarID, seriesID)
	if err != nil {
		return nil, err
	}
	if len(records) == 0 || records[0].EntityType != entitySeries {
		return nil, nil // the master sorts first
	}
	master, err := records[0].entry()
	if err != nil {
		return nil, err
	}
	st := &storedSeries{Series: &calendar.Series{Master: master}, gen: records[0].Gen, pieces: map[string]int{}}
	for _, r := range records[1:] { // in key order, so by original start
		if r.Piece > 0 || r.Gen != st.gen {
			continue // pieces, and exceptions left from an earlier generation (see applySeriesEdit)
		}
		x, err := r.entry()
		if err != nil {
			return nil, err
		}
		st.Exceptions = append(st.Exceptions, x)
		st.pieces[x.ID] = r.Pieces
	}
	return st, nil
}

// Series implements calendar.SeriesReader.
func (s *Store) Series(ctx context.Context, key calendar.EntryKey) (*calendar.Series, error) {
	if validEntryKey(key) != nil {
		return nil, nil
	}
	st, err := s.readSeries(ctx, key.CalendarID, key.EntryID)
	if err != nil || st == nil {
		return nil, err
	}
	return st.Series, nil
}

// seriesPlacement is where a series' master goes: its generation and where
// its last occurrence ends.
func (s *Store) seriesPlacement(e *calendar.Entry, gen string) placement {
	end, _ := e.SeriesReachEnd(s.recur)
	return placement{gen: gen, seriesEnd: end}
}

// UpdateOccurrence implements calendar.SeriesService.
func (s *Store) UpdateOccurrence(ctx context.Context, key calendar.OccurrenceKey, scope calendar.Scope, u calendar.EntryUpdate) (*calendar.Entry, error) {
	edit, err := s.editSeries(ctx, key, calendar.SeriesEditInput{Scope: scope, Update: u})
	if err != nil {
		return nil, err
	}
	return edit.Result, nil
}

// DeleteOccurrence implements calendar.SeriesService.
func (s *Store) DeleteOccurrence(ctx context.Context, key calendar.OccurrenceKey, scope calendar.Scope, expectedVersion int) error {
	_, err := s.editSeries(ctx, key, calendar.SeriesEditInput{
		Scope: scope, Delete: true, Update: calendar.EntryUpdate{ExpectedVersion: expectedVersion},
	})
	return err
}

// editSeries reads the viewer's access and the series, plans the change
// (package calendar decides what it writes) and applies it. A zero
// key.OriginalStart addresses the series as a whole.
func (s *Store) editSeries(ctx context.Context, key calendar.OccurrenceKey, in calendar.SeriesEditInput) (*calendar.SeriesEdit, error) {
	if err := validEntryKey(calendar.EntryKey{CalendarID: key.CalendarID, EntryID: key.SeriesID}); err != nil {
		return nil, err
	}
	acc, defaults, err := s.entryAccess(ctx, key.CalendarID)
	if err != nil {
		return nil, err
	}
	st, err := s.readSeries(ctx, key.CalendarID, key.SeriesID)
	if err != nil {
		return nil, err
	}
	if st == nil {
		return nil, calendar.Errorf(calendar.CodeNotFound, "entry not found")
	}
	in.Series, in.Occurrence, in.Defaults, in.Now = st.Series, key.OriginalStart, defaults, s.timestamp()
	in.NewSeriesID = s.newID()
	in.NewICalUID = in.NewSeriesID + "@" + s.icalDomain
	edit, err := calendar.PlanSeriesEdit(s.recur, in)
	if err != nil {
		return nil, err
	}
	if err := s.applySeriesEdit(ctx, acc, st, edit); err != nil {
		return nil, fmt.Errorf("change series %s: %w", key.SeriesID, err)
	}
	return edit, nil
}

// seriesChanged explains a failed condition on a series' master or one of its
// exceptions: someone changed the series since it was read.
func seriesChanged(what string) explainFunc {
	return func(old item) error {
		if old == nil && what == "series" {
			return calendar.Errorf(calendar.CodeNotFound, "entry not found")
		}
		return calendar.Errorf(calendar.CodeVersionConflict, "the %s changed while this change was being made: reload it and try again", what)
	}
}

// maxTxActions is how many actions one transaction may hold (DynamoDB's limit).
const maxTxActions = 100

// applySeriesEdit writes a planned change. When it fits in one transaction it
// is one: the master's new version (or a check of its version), the new
// series of a split, and every exception written or deleted, each under a
// condition on what was read, so a concurrent change to any of them fails the
// whole with VERSION_CONFLICT.
//
// A larger change (a split or retiming of a series with many exceptions) is
// made so that at no moment both or neither of the old and new states show:
//  1. the new exceptions are written first where nothing reads them yet: under
//     the series split off, which does not exist yet, or under a new
//     generation of the series' exceptions, which is not current yet;
//  2. one transaction then switches: it writes the master (with the new
//     generation) and the new series, conditioned on the master's version;
//  3. the exceptions left behind, now unread, are deleted, after carrying over
//     any that a concurrent change wrote between steps 1 and 2 (exception
//     writes check the master's version, so none can land after step 2).
//
// Should the process stop between the steps, what is left behind is never
// read: exceptions of a generation or series that never became current.
func (s *Store) applySeriesEdit(ctx context.Context, acc *access, st *storedSeries, edit *calendar.SeriesEdit) error {
	master := edit.Old.Master
	cal := master.CalendarID
	gen := st.gen
	if edit.Regenerate {
		gen = s.newID()
	}
	mk := entryKey(cal, master.ID)
	ops := []txOp{roleCheck(cal, acc.viewer, calendar.ActionWriteEntries)}
	switch {
	case edit.Master == nil:
		ops = append(ops, opDelete(mk, versionIs(master.Version), seriesChanged("series")))
	case edit.MasterChanged():
		ops = append(ops, opPut(mk, entryRecords(edit.Master, s.seriesPlacement(edit.Master, gen))[0], versionIs(master.Version), seriesChanged("series")))
	default:
		ops = append(ops, opCheck(mk, versionIs(master.Version), seriesChanged("series")))
	}
	if sp := edit.Split; sp != nil {
		ops = append(ops, opPut(entryKey(cal, sp.ID), entryRecords(sp, s.seriesPlacement(sp, ""))[0], notExists(),
			mustBeNew(calendar.CodeInternal, "series ID collision")))
	}
	var inPlace, fresh []txOp
	for _, x := range edit.Put {
		if edit.Split != nil && x.SeriesID == edit.Split.ID {
			fresh = append(fresh, exceptionWrites(x, "", notExists(), 0)...)
			continue
		}
		if edit.Regenerate {
			fresh = append(fresh, exceptionWrites(x, gen, notExists(), 0)...)
			continue
		}
		cond, pieces := notExists(), 0
		if prev := edit.Old.Exception(x.OriginalStart); prev != nil {
			cond, pieces = versionIs(prev.Version), st.pieces[prev.ID]
		}
		inPlace = append(inPlace, exceptionWrites(x, gen, cond, pieces)...)
	}
	var drops []txOp
	for _, x := range edit.Drop {
		drops = append(drops, exceptionDeletes(x, st.gen, st.pieces[x.ID], versionIs(x.Version))...)
	}
	if len(ops)+len(inPlace)+len(fresh)+len(drops) <= s.maxSeriesActions {
		return s.transact(ctx, append(append(append(ops, inPlace...), fresh...), drops...)...)
	}
	if len(inPlace) > 0 {
		return fmt.Errorf("a change of one occurrence needs %d actions", len(ops)+len(inPlace))
	}
	if err := s.writeUnconditionally(ctx, fresh); err != nil {
		return err
	}
	if err := s.transact(ctx, ops...); err != nil {
		return err
	}
	// The change is made; finishing it must not stop when the client hangs up.
	finish, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Minute)
	defer cancel()
	if err := s.finishSeriesEdit(finish, st, edit, gen); err != nil {
		s.log.ErrorContext(ctx, "finishing a large series change", "series", master.ID, "err", err)
	}
	return nil
}

// finishSeriesEdit is step 3 of a large change: every exception of the old
// generation that is no longer current is carried over if it changed after it
// was read (or was written since), then deleted.
func (s *Store) finishSeriesEdit(ctx context.Context, st *storedSeries, edit *calendar.SeriesEdit, gen string) error {
	old := edit.Old.Master
	records, err := s.seriesRecords(ctx, old.CalendarID, old.ID)
	if err != nil {
		return err
	}
	planned := map[string]*calendar.Entry{}
	for _, x := range edit.Put {
		planned[x.ID] = x
	}
	var deletes []txOp
	for _, r := range records {
		if r.Piece > 0 || r.SeriesID == "" || r.Gen != st.gen {
			continue
		}
		x, err := r.entry()
		if err != nil {
			return err
		}
		if edit.Master != nil && !edit.Regenerate && s.recur.Has(edit.Master, x.OriginalStart) {
			continue // still an exception of the series as it is now
		}
		if read := edit.Old.Exception(x.OriginalStart); read == nil || read.Version != x.Version {
			if err := s.carryLate(ctx, x, edit, planned, gen); err != nil {
				s.log.ErrorContext(ctx, "carrying over an exception changed during a series change", "occurrence", x.ID, "err", err)
			}
		}
		deletes = append(deletes, exceptionDeletes(x, st.gen, r.Pieces, noCondition())...)
	}
	return s.writeUnconditionally(ctx, deletes)
}

// carryLate carries over an exception that changed after it was read.
func (s *Store) carryLate(ctx context.Context, x *calendar.Entry, edit *calendar.SeriesEdit, planned map[string]*calendar.Entry, gen string) error {
	c := edit.Carry(x)
	if c == nil {
		return nil
	}
	if edit.Split != nil && c.SeriesID == edit.Split.ID {
		gen = ""
	}
	cond := notExists()
	if p := planned[c.ID]; p != nil {
		cond = versionIs(p.Version)
	}
	return s.transact(ctx, exceptionWrites(c, gen, cond, 0)...)
}

// exceptionWrites returns the actions that write an exception in generation
// gen: its item under cond, its pieces, and deletes of pieces beyond its new
// count.
func exceptionWrites(x *calendar.Entry, gen string, cond expression.ConditionBuilder, oldPieces int) []txOp {
	return entryWrites(x, placement{gen: gen}, cond, seriesChanged("occurrence"), oldPieces)
}

// exceptionDeletes returns the actions that delete an exception of
// generation gen (under cond) and its pieces.
func exceptionDeletes(x *calendar.Entry, gen string, pieces int, cond expression.ConditionBuilder) []txOp {
	id := exceptionID(x.SeriesID, gen, x.OriginalStart)
	ops := []txOp{opDelete(entryKey(x.CalendarID, id), cond, seriesChanged("occurrence"))}
	for n := 1; n < pieces; n++ {
		ops = append(ops, opDelete(entryPieceKey(x.CalendarID, id, n), noCondition(), nil))
	}
	return ops
}
