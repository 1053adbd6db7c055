package dynamo

import (
	"context"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"

	"github.com/calgraph/calgraph/internal/calendar"
)

// storedSeries is a series as read from its key range: the domain series
// (exceptions of the current generation only) and what rewriting it needs.
type storedSeries struct {
	*calendar.Series
	gen    string         // the current generation of its exceptions
	xrev   int            // the master's exception revision (see masterUnchanged)
	pieces map[string]int // items per exception, by occurrence ID
}

// seriesRecords reads the items of a series' key range (its master, its
// exceptions of every generation, and their pieces) with one Query.
func (s *Store) seriesRecords(ctx context.Context, calendarID, seriesID string) ([]entryRecord, error) {
	first, last := seriesKeyRange(seriesID)
	records, err := s.entryRecordsBetween(ctx, calendarID, first, last, math.MaxInt)
	if err != nil {
		return nil, fmt.Errorf("read series %s: %w", seriesID, err)
	}
	return records, nil
}

// readSeries reads a series' master and current exceptions in one Query.
// Errors: CodeNotFound.
func (s *Store) readSeries(ctx context.Context, calendarID, seriesID string) (*storedSeries, error) {
	records, err := s.seriesRecords(ctx, calendarID, seriesID)
	if err != nil {
		return nil, err
	}
	if len(records) == 0 || records[0].EntityType != entitySeries { // the master sorts first
		return nil, calendar.Errorf(calendar.CodeNotFound, "entry not found")
	}
	master, err := records[0].entry()
	if err != nil {
		return nil, err
	}
	st := &storedSeries{Series: &calendar.Series{Master: master}, gen: records[0].Gen, xrev: records[0].Xrev, pieces: map[string]int{}}
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
		return nil, calendar.Errorf(calendar.CodeNotFound, "entry not found")
	}
	st, err := s.readSeries(ctx, key.CalendarID, key.EntryID)
	if err != nil {
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
func (s *Store) UpdateOccurrence(ctx context.Context, key calendar.OccurrenceKey, scope calendar.Scope, u calendar.EntryUpdate) (*calendar.Entry, *calendar.Calendar, error) {
	edit, cal, err := retrySeriesEdit(ctx, func() (*calendar.SeriesEdit, *calendar.Calendar, error) {
		return s.editSeries(ctx, key, calendar.SeriesEditInput{Scope: scope, Update: u})
	})
	if err != nil {
		return nil, nil, err
	}
	if edit.Split != nil { // users' own reminders on the following occurrences go with them
		from := calendar.EntryKey{CalendarID: key.CalendarID, EntryID: key.SeriesID}
		if err := s.splitMyReminders(ctx, from, edit.Split.Key(), key.OriginalStart); err != nil {
			// The split is done and answered as done; the settings stay
			// on the old series alone (the new one's users get their defaults).
			s.log.ErrorContext(ctx, "carrying users' own reminders to a split-off series", "series", key.SeriesID, "err", err)
		}
	}
	return edit.Result, cal, nil
}

// DeleteOccurrence implements calendar.SeriesService.
func (s *Store) DeleteOccurrence(ctx context.Context, key calendar.OccurrenceKey, scope calendar.Scope, expectedVersion int) error {
	_, _, err := retrySeriesEdit(ctx, func() (*calendar.SeriesEdit, *calendar.Calendar, error) {
		return s.editSeries(ctx, key, calendar.SeriesEditInput{
			Scope: scope, Delete: true, Update: calendar.EntryUpdate{ExpectedVersion: expectedVersion},
		})
	})
	if err != nil || scope != calendar.ScopeAll {
		return err
	}
	return s.trashMyReminders(ctx, calendar.EntryKey{CalendarID: key.CalendarID, EntryID: key.SeriesID})
}

// editSeries reads the viewer's access and the series, plans the change
// (package calendar decides what it writes) and applies it. A zero
// key.OriginalStart addresses the series as a whole. It returns the change
// made and the calendar as the viewer's access check read it.
func (s *Store) editSeries(ctx context.Context, key calendar.OccurrenceKey, in calendar.SeriesEditInput) (*calendar.SeriesEdit, *calendar.Calendar, error) {
	if err := validEntryKey(calendar.EntryKey{CalendarID: key.CalendarID, EntryID: key.SeriesID}); err != nil {
		return nil, nil, err
	}
	if u := in.Update; u.Capacity.Set || u.Waitlist.Set || u.HideAttendees.Set && in.Scope != calendar.ScopeAll {
		return nil, nil, errSeriesAttendance()
	}
	var extra []itemKey
	if in.Update.OrganizerEmail.Set {
		email, err := calendar.NormalizeEmail(in.Update.OrganizerEmail.Value)
		if err != nil {
			return nil, nil, calendar.Invalidf("organizerEmail", "%s", calendar.ErrorMessage(err))
		}
		extra = append(extra, emailKey(email))
	}
	restoring := pendingKey(pendingRestore, trashPendingID(key.CalendarID, key.SeriesID))
	if in.Delete { // a deletion of the whole series waits for its restore to be finished (trash_restore.go)
		extra = append(extra, restoring)
	}
	acc, defaults, err := s.entryAccess(ctx, key.CalendarID, extra...)
	if err != nil {
		return nil, nil, err
	}
	if acc.items[restoring] != nil {
		return nil, acc.calendar, errBeingMoved(key.SeriesID)
	}
	if in.Update.OrganizerEmail.Set { // the organizer handed the series to, found as a single entry's
		if in.Organizer = stringAttr(acc.items[extra[0]], "userId"); in.Organizer == "" {
			return nil, acc.calendar, calendar.Errorf(calendar.CodeNotFound, "no user has the email %s: an organizer must have signed in once", in.Update.OrganizerEmail.Value)
		}
	}
	st, err := s.readSeries(ctx, key.CalendarID, key.SeriesID)
	if err != nil {
		return nil, acc.calendar, err
	}
	in.Series, in.Occurrence, in.Defaults, in.Now = st.Series, key.OriginalStart, defaults, s.timestamp()
	in.NewSeriesID = s.newID()
	in.NewICalUID = in.NewSeriesID + "@" + s.icalDomain
	edit, err := calendar.PlanSeriesEdit(s.recur, in)
	if err != nil {
		return nil, acc.calendar, err
	}
	editedBy(edit, acc.viewer)
	people, err := s.seriesPeople(ctx, st, edit, key.OriginalStart)
	if err != nil {
		return nil, acc.calendar, err
	}
	if err := s.applySeriesEdit(ctx, acc, st, edit, people); err != nil {
		return nil, acc.calendar, fmt.Errorf("change series %s: %w", key.SeriesID, err)
	}
	return edit, acc.calendar, nil
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

// A series' master carries, besides its version, an exception revision
// (xrev): every write of one exception increments it, under a check of the
// master's version, and every write of the master is conditioned on both. So
// a change of one occurrence and a change of the series as a whole exclude
// each other (one of them fails with VERSION_CONFLICT), while changes of
// different occurrences do not, and occurrence versions (the master's version
// plus the exception's) do not move when another occurrence changes.

// masterUnchanged is the condition on a master as it was read.
func masterUnchanged(st *storedSeries) expression.ConditionBuilder {
	return versionIs(st.Master.Version).And(xrevIs(st.xrev))
}

// xrevIs is the condition that a master's exception revision is xrev.
func xrevIs(xrev int) expression.ConditionBuilder {
	x := expression.Name(attrXrev)
	rev := x.Equal(expression.Value(xrev))
	if xrev == 0 {
		rev = expression.AttributeNotExists(x).Or(rev)
	}
	return rev
}

// applySeriesEdit writes a planned change. When it fits in one transaction it
// is one: the master's new version (or, for a change of one occurrence, its
// exception revision), the new series of a split, and every exception written
// or deleted, each conditioned on what was read, so a concurrent change to any
// of them fails the whole with VERSION_CONFLICT.
//
// A larger change (a split or retiming of a series with many exceptions) is
// made so that at no moment both or neither of the old and new states show:
//  1. the new exceptions are written first where nothing reads them yet: under
//     the series split off, which does not exist yet, or under a new
//     generation of the series' exceptions, which is not current yet;
//  2. one transaction then switches, writing the master (with the new
//     generation) and the new series, conditioned on the master as read: an
//     exception written since the read changed its revision and fails it;
//  3. the exceptions left behind, which nothing reads any more, are deleted.
//
// Should the process stop between the steps, what is left behind is never
// read: exceptions of a generation or series that never became current.
func (s *Store) applySeriesEdit(ctx context.Context, acc *access, st *storedSeries, edit *calendar.SeriesEdit, people seriesPeopleWrites) error {
	if edit.Master == nil && edit.Split == nil { // the series deleted: to the trash
		return s.trashSeries(ctx, acc, st, edit, people)
	}
	gen := st.gen
	if edit.Regenerate {
		gen = s.newID()
	}
	master, err := s.masterWrites(st, edit, gen)
	if err != nil {
		return err
	}
	ops := append([]txOp{roleCheck(st.Master.CalendarID, acc.viewer, calendar.ActionWriteEntries)}, master...)
	own := len(ops) // the actions before the attendees' (splitInSteps writes those apart)
	ops = append(ops, people.ops...)
	var inPlace, fresh []txOp
	for _, x := range edit.Put {
		switch {
		case edit.Split != nil && x.SeriesID == edit.Split.ID:
			fresh = append(fresh, exceptionWrites(x, "", notExists(), 0)...)
		case edit.Regenerate:
			fresh = append(fresh, exceptionWrites(x, gen, notExists(), 0)...)
		default:
			cond, pieces := notExists(), 0
			if prev := edit.Old.Exception(x.OriginalStart); prev != nil {
				cond, pieces = versionIs(prev.Version), st.pieces[prev.ID]
			}
			inPlace = append(inPlace, exceptionWrites(x, gen, cond, pieces)...)
		}
	}
	var drops []txOp
	for _, x := range edit.Drop {
		drops = append(drops, exceptionDeletes(x, st.gen, st.pieces[x.ID], versionIs(x.Version))...)
	}
	if acc.calendar.IsResource { // bookings move with the switch, in one write
		slots, err := s.seriesSlotWrites(acc.calendar, st, edit)
		if err != nil {
			return err
		}
		ops = append(ops, slots...)
	}
	if whole := people.logged(seriesWrite(ctx, acc.viewer, st, edit, ops, inPlace, fresh, drops)); whole.Size() <= s.maxSeriesActions {
		return s.bookingFailed(ctx, s.commit(ctx, whole))
	}
	switchOver := people.logged(seriesWrite(ctx, acc.viewer, st, edit, ops))
	if len(people.ops) > 0 && switchOver.Size() > s.maxSeriesActions {
		if edit.Split == nil || len(inPlace) > 0 {
			return s.tooManyPeople()
		}
		rest := slices.Concat(ops[:own], ops[own+len(people.ops):])
		return s.bookingFailed(ctx, s.splitInSteps(ctx, acc.viewer, st, edit, gen, rest, fresh, people))
	}
	if len(inPlace) > 0 || switchOver.Size() > s.maxSeriesActions { // no steps can split these
		if acc.calendar.IsResource {
			return errTooManyBookings()
		}
		return fmt.Errorf("a change of one occurrence needs %d actions", switchOver.Size()+len(inPlace))
	}
	return s.bookingFailed(ctx, s.applyInSteps(ctx, st, edit, gen, switchOver, fresh))
}

// seriesWrite is the write of a series change made of the actions in parts:
// with the change records of the series and of the series split off it
// (their exceptions and pieces are theirs), and what the change makes in
// their creators' stats (exceptions count for nothing there).
func seriesWrite(ctx context.Context, viewer string, st *storedSeries, edit *calendar.SeriesEdit, parts ...[]txOp) *write {
	w := newWrite()
	w.Idempotent(ctx)
	for _, p := range parts {
		w.Add(p...)
	}
	w.LogEntry(st.Master.CalendarID, st.Master.ID)
	w.Revision(st.Master.ID, st.xrev)
	switch {
	case edit.Master == nil:
		w.Tally(viewer, st.Master, nil)
	case edit.MasterChanged():
		w.Tally(viewer, st.Master, edit.Master)
	default:
		if was, is, ok := occurrenceChanged(st, edit); ok {
			w.Occurrence(viewer, st.Master, st.xrev, was, is)
		}
	}
	if sp := edit.Split; sp != nil {
		w.LogEntry(sp.CalendarID, sp.ID)
		w.Tally(viewer, nil, sp)
	}
	return w
}

// applyInSteps makes a change too large for one transaction in the three
// steps applySeriesEdit describes: fresh holds step 1's writes, switchOver
// is step 2.
func (s *Store) applyInSteps(ctx context.Context, st *storedSeries, edit *calendar.SeriesEdit, gen string, switchOver *write, fresh []txOp) error {
	// Once step 1 is written the switch must be decided, and the clean-up
	// done, even if the client hangs up.
	finish, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Minute)
	defer cancel()
	if err := s.writeUnconditionally(finish, fresh); err != nil {
		s.removeQuietly(finish, fresh)
		return err
	}
	if err := s.commit(finish, switchOver); err != nil {
		// A refusal (a condition failed) leaves the series as it was; any
		// other failure may have come after DynamoDB applied the switch, so
		// the master says which.
		switched, readErr := false, error(nil)
		if calendar.ErrorCode(err) == calendar.CodeInternal {
			switched, readErr = s.switched(finish, st, edit, gen)
		}
		if readErr != nil {
			return err // undecided: step 1's items stay, unread, rather than risk the series' exceptions
		}
		if !switched {
			s.removeQuietly(finish, fresh)
			return err
		}
		markerCommitted(finish) // the switch carried it, if the request had one
	}
	var left []txOp
	for _, x := range edit.Drop {
		left = append(left, exceptionDeletes(x, st.gen, st.pieces[x.ID], noCondition())...)
	}
	s.removeQuietly(finish, left)
	return nil
}

// switched reports whether a series change's switch (step 2) was applied:
// whether the master is as the change writes it (version and generation),
// and the series it splits off exists.
func (s *Store) switched(ctx context.Context, st *storedSeries, edit *calendar.SeriesEdit, gen string) (bool, error) {
	mk := entryKey(st.Master.CalendarID, st.Master.ID)
	keys := []itemKey{mk}
	if edit.Split != nil {
		keys = append(keys, entryKey(edit.Split.CalendarID, edit.Split.ID))
	}
	items, err := s.batchGet(ctx, keys)
	if err != nil || edit.Master == nil {
		return items[mk] == nil, err
	}
	if items[mk] == nil || (edit.Split != nil && items[keys[1]] == nil) {
		return false, nil
	}
	r, err := decodeEntryRecord(items[mk])
	return r.Version == edit.Master.Version && r.Gen == gen, err
}

// masterWrites returns the actions on the master and on a split-off series
// (seriesWrite adds their change records and stats). A change of one
// occurrence that moves it alone also resets the answers to it
// (occurrenceResetWrite). Errors: CodeInvalid past the bounds of resets.
func (s *Store) masterWrites(st *storedSeries, edit *calendar.SeriesEdit, gen string) ([]txOp, error) {
	cal, master := st.Master.CalendarID, st.Master
	mk := entryKey(cal, master.ID)
	var ops []txOp
	switch {
	case edit.Master == nil:
		ops = append(ops, opDelete(mk, masterAsRead(st), masterChanged(st)))
	case edit.MasterChanged():
		r := entryRecords(edit.Master, s.seriesPlacement(edit.Master, gen))[0]
		r.Xrev = st.xrev
		ops = append(ops, opPut(mk, r, masterAsRead(st), masterChanged(st)))
	default:
		if orig, moved := edit.MovedAlone(); moved {
			op, err := resetMovedOccurrence(st, edit, orig)
			if err != nil {
				return nil, err
			}
			ops = append(ops, op)
			break
		}
		// On the revision as read too, so that its history record's seq is
		// its own (history_write.go): another occurrence's change since the
		// read has this one built again (resetRaced).
		ops = append(ops, opUpdate(mk, expression.Add(expression.Name(attrXrev), expression.Value(1)),
			versionIs(master.Version).And(xrevIs(st.xrev)), resetRaced(master)))
	}
	if sp := edit.Split; sp != nil {
		ops = append(ops, opPut(entryKey(cal, sp.ID), entryRecords(sp, s.seriesPlacement(sp, ""))[0], notExists(),
			mustBeNew(calendar.CodeInternal, "series ID collision")))
	}
	return ops, nil
}

// removeQuietly deletes items that nothing reads, logging what it cannot.
func (s *Store) removeQuietly(ctx context.Context, ops []txOp) {
	var deletes []txOp
	for _, op := range ops {
		if op.action.Put != nil {
			op = opDelete(op.key, noCondition(), nil)
		}
		deletes = append(deletes, op)
	}
	if err := s.writeUnconditionally(ctx, deletes); err != nil {
		s.log.ErrorContext(ctx, "removing unread exceptions of a series change", "err", err)
	}
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

// seriesSlotWrites returns the bookings a series change takes and releases
// on a resource calendar: every occurrence of the series as it was against
// those of the series (and the series split off) as the change leaves them.
func (s *Store) seriesSlotWrites(cal *calendar.Calendar, st *storedSeries, edit *calendar.SeriesEdit) ([]txOp, error) {
	was, err := s.bookings(st.Master, st.Exceptions)
	if err != nil {
		return nil, err
	}
	var will []*calendar.Entry
	for _, m := range []*calendar.Entry{edit.Master, edit.Split} {
		if m == nil {
			continue
		}
		b, err := s.bookings(m, exceptionsAfter(m, edit))
		if err != nil {
			return nil, err
		}
		will = append(will, b...)
	}
	return s.slotWrites(cal, was, will)
}

// exceptionsAfter returns the exceptions series m has once edit is made.
func exceptionsAfter(m *calendar.Entry, edit *calendar.SeriesEdit) []*calendar.Entry {
	var out []*calendar.Entry
	if !edit.Regenerate && m.ID == edit.Old.Master.ID {
		for _, x := range edit.Old.Exceptions {
			if !slices.ContainsFunc(edit.Drop, func(d *calendar.Entry) bool { return d.OriginalStart.Equal(x.OriginalStart) }) &&
				!slices.ContainsFunc(edit.Put, func(p *calendar.Entry) bool { return p.SeriesID == m.ID && p.OriginalStart.Equal(x.OriginalStart) }) {
				out = append(out, x)
			}
		}
	}
	for _, x := range edit.Put {
		if x.SeriesID == m.ID {
			out = append(out, x)
		}
	}
	return out
}
