package dynamo

import (
	"cmp"
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"

	"github.com/calgraph/calgraph/internal/calendar"
)

// entryAccess reads, in one BatchGetItem, what an entry write needs (the
// calendar, the viewer's membership and preferences, and extra items) and
// checks that the viewer writes entries there. It returns the defaults for
// entries the viewer writes on that calendar.
func (s *Store) entryAccess(ctx context.Context, calendarID string, extra ...itemKey) (*access, calendar.Defaults, error) {
	viewer, err := calendar.ViewerID(ctx)
	if err != nil {
		return nil, calendar.Defaults{}, err
	}
	acc, err := s.access(ctx, calendarID, calendar.ActionWriteEntries, append(extra, userKey(viewer))...)
	if err != nil {
		return nil, calendar.Defaults{}, err
	}
	prefs := calendar.DefaultPreferences()
	if it := acc.items[userKey(viewer)]; it != nil {
		r, err := unmarshal[userRecord](it)
		if err != nil {
			return nil, calendar.Defaults{}, err
		}
		prefs = r.preferences()
	}
	return acc, prefs.EntryDefaults(acc.calendar), nil
}

// existingEntry reads an entry out of what entryAccess read.
func existingEntry(acc *access, key calendar.EntryKey, expectedVersion int) (*calendar.Entry, int, error) {
	it := acc.items[entryKey(key.CalendarID, key.EntryID)]
	e, pieces, err := entryOfItem(it)
	if err != nil {
		return nil, 0, err
	}
	if e.Version != expectedVersion {
		return nil, 0, versionMismatch("entry", expectedVersion)(it)
	}
	return e, pieces, nil
}

func validEntryKey(key calendar.EntryKey) error {
	if err := calendar.ValidateID("id", key.CalendarID); err != nil {
		return err
	}
	return calendar.ValidateID("id", key.EntryID)
}

// CreateEntry implements calendar.EntryService.
func (s *Store) CreateEntry(ctx context.Context, n calendar.NewEntry) (*calendar.Entry, *calendar.Calendar, error) {
	return retryBooking(func() (*calendar.Entry, *calendar.Calendar, error) { return s.createEntry(ctx, n) })
}

// createEntry is one attempt of CreateEntry, from its reads.
func (s *Store) createEntry(ctx context.Context, n calendar.NewEntry) (*calendar.Entry, *calendar.Calendar, error) {
	acc, defaults, err := s.entryAccess(ctx, n.CalendarID)
	if err != nil {
		return nil, nil, err
	}
	e, err := n.Build(defaults)
	if err != nil {
		return nil, acc.calendar, err
	}
	if e.IsSeries() {
		if err := calendar.ValidateSeries(s.recur, &e); err != nil {
			return nil, acc.calendar, err
		}
	}
	now := s.timestamp()
	e.ID = s.newID()
	e.ICalUID, e.Version, e.CreatedAt, e.UpdatedAt, e.CreatedBy = e.ID+"@"+s.icalDomain, 1, now, now, acc.viewer
	e.UpdatedBy = acc.viewer
	w := newWrite()
	w.Idempotent(ctx)
	w.Guard(roleCheck(n.CalendarID, acc.viewer, calendar.ActionWriteEntries))
	if op, ok := seriesArrive(acc.calendar, &e); ok {
		w.Add(op) // it checks that the calendar is there too
		w.LogCalendar(n.CalendarID)
	} else {
		w.Guard(calendarStillThere(n.CalendarID, 0))
	}
	if err := s.guardBooking(ctx, w, acc.viewer, nil, &e); err != nil {
		return nil, acc.calendar, err
	}
	w.Add(entryWrites(&e, s.placement(&e), notExists(), mustBeNew(calendar.CodeInternal, "entry ID collision"), 0)...)
	w.LogEntry(e.CalendarID, e.ID)
	w.Tally(acc.viewer, nil, &e)
	if err := s.book(ctx, w, acc.calendar, nil, &e); err != nil {
		return nil, acc.calendar, fmt.Errorf("create entry in calendar %s: %w", n.CalendarID, err)
	}
	return &e, acc.calendar, nil
}

// UpdateEntry implements calendar.EntryService.
func (s *Store) UpdateEntry(ctx context.Context, u calendar.EntryUpdate) (*calendar.Entry, *calendar.Calendar, error) {
	if err := validEntryKey(u.Key); err != nil {
		return nil, nil, err
	}
	return retryAttendanceOn(ctx, func() (*calendar.Entry, *calendar.Calendar, error) {
		return retryBooking(func() (*calendar.Entry, *calendar.Calendar, error) { return s.updateEntry(ctx, u) })
	})
}

// updateEntry is one attempt of UpdateEntry, from its reads.
func (s *Store) updateEntry(ctx context.Context, u calendar.EntryUpdate) (*calendar.Entry, *calendar.Calendar, error) {
	extra := []itemKey{entryKey(u.Key.CalendarID, u.Key.EntryID)}
	if u.OrganizerEmail.Set {
		email, err := calendar.NormalizeEmail(u.OrganizerEmail.Value)
		if err != nil {
			return nil, nil, calendar.Invalidf("organizerEmail", "%s", calendar.ErrorMessage(err))
		}
		u.OrganizerEmail.Value = email
		extra = append(extra, emailKey(email))
	}
	acc, defaults, err := s.entryAccess(ctx, u.Key.CalendarID, extra...)
	if err != nil {
		return nil, nil, err
	}
	old, pieces, err := existingEntry(acc, u.Key, u.ExpectedVersion)
	if err != nil {
		return nil, acc.calendar, err
	}
	if old.IsSeries() {
		edit, cal, err := s.editSeries(ctx, wholeSeries(u.Key), calendar.SeriesEditInput{Scope: calendar.ScopeAll, Update: u})
		if err != nil {
			return nil, cmp.Or(cal, acc.calendar), err
		}
		return edit.Result, cal, nil
	}
	e, err := u.Apply(*old, defaults)
	if err != nil {
		return nil, acc.calendar, err
	}
	if u.OrganizerEmail.Set {
		if e.Attendance.Organizer = stringAttr(acc.items[emailKey(u.OrganizerEmail.Value)], "userId"); e.Attendance.Organizer == "" {
			return nil, acc.calendar, calendar.Errorf(calendar.CodeNotFound, "no user has the email %s: an organizer must have signed in once", u.OrganizerEmail.Value)
		}
	}
	if e.IsSeries() { // a single entry made to repeat: it becomes a series under its ID
		if e.Attendance.Capacity > 0 {
			return nil, acc.calendar, errSeriesAttendance()
		}
		if err := calendar.ValidateSeries(s.recur, &e); err != nil {
			return nil, acc.calendar, err
		}
	}
	return s.rewriteEntry(ctx, acc, old, e, u.ExpectedVersion, pieces)
}

// wholeSeries addresses a series as a whole.
func wholeSeries(k calendar.EntryKey) calendar.OccurrenceKey {
	return calendar.OccurrenceKey{CalendarID: k.CalendarID, SeriesID: k.EntryID}
}

// placement is where an entry's items go; for a series, beyond its master.
func (s *Store) placement(e *calendar.Entry) placement {
	if e.IsSeries() {
		return s.seriesPlacement(e, "")
	}
	return placement{}
}

// SetTaskCompleted implements calendar.EntryService.
func (s *Store) SetTaskCompleted(ctx context.Context, key calendar.EntryKey, expectedVersion int, completed bool) (*calendar.Entry, *calendar.Calendar, error) {
	if err := validEntryKey(key); err != nil {
		return nil, nil, err
	}
	return retryAttendanceOn(ctx, func() (*calendar.Entry, *calendar.Calendar, error) {
		acc, _, err := s.entryAccess(ctx, key.CalendarID, entryKey(key.CalendarID, key.EntryID))
		if err != nil {
			return nil, nil, err
		}
		return s.setTaskCompleted(ctx, acc, key, expectedVersion, completed)
	})
}

// setTaskCompleted is one attempt of SetTaskCompleted, from its reads.
func (s *Store) setTaskCompleted(ctx context.Context, acc *access, key calendar.EntryKey, expectedVersion int, completed bool) (*calendar.Entry, *calendar.Calendar, error) {
	old, pieces, err := existingEntry(acc, key, expectedVersion)
	if err != nil {
		return nil, acc.calendar, err
	}
	e, changed, err := calendar.SetCompleted(*old, completed, s.timestamp())
	if err != nil || !changed {
		return old, acc.calendar, err
	}
	return s.rewriteEntry(ctx, acc, old, e, expectedVersion, pieces)
}

// rewriteEntry writes a changed entry over its previous version old, which
// had oldPieces pieces, with the next version number. It returns the entry
// written and its calendar as acc read it.
func (s *Store) rewriteEntry(ctx context.Context, acc *access, old *calendar.Entry, e calendar.Entry, expectedVersion, oldPieces int) (*calendar.Entry, *calendar.Calendar, error) {
	e.Version, e.UpdatedAt, e.UpdatedBy = expectedVersion+1, s.timestamp(), acc.viewer
	// A move of its time sends every answer back to NEEDS_ACTION in this
	// same write: a new answer epoch and summary on the entry item, which
	// entryAsRead requires unchanged since the read (no attendee item is
	// rewritten: each reads as NEEDS_ACTION from its older epoch).
	calendar.ResetAnswersIfMoved(old, &e)
	w := newWrite()
	w.Idempotent(ctx)
	w.Guard(roleCheck(e.CalendarID, acc.viewer, calendar.ActionWriteEntries))
	if op, ok := seriesArrive(acc.calendar, &e); ok {
		w.Add(op)
		w.LogCalendar(e.CalendarID)
	}
	if err := s.guardBooking(ctx, w, acc.viewer, old, &e); err != nil {
		return nil, acc.calendar, err
	}
	w.Add(entryWrites(&e, s.placement(&e), entryAsRead(old, expectedVersion), entryChanged(expectedVersion), oldPieces)...)
	w.LogEntry(e.CalendarID, e.ID)
	w.Tally(acc.viewer, old, &e)
	if err := s.book(ctx, w, acc.calendar, old, &e); err != nil {
		return nil, acc.calendar, fmt.Errorf("update entry %s: %w", e.ID, err)
	}
	return &e, acc.calendar, nil
}

// seriesArrive returns the action that records (a change of the calendar
// item: the write logs it), in the write that puts e,
// that cal now holds a series (neverHeldSeries removed; range views look for
// series from then on), when e is one and cal was read without one so far.
// A calendar read as having held one needs nothing: the mark never returns.
func seriesArrive(cal *calendar.Calendar, e *calendar.Entry) (txOp, bool) {
	if !e.IsSeries() || !cal.NeverHeldSeries {
		return txOp{}, false
	}
	return opUpdate(calendarKey(cal.ID), expression.Remove(expression.Name(attrNeverHeldSeries)),
		exists(), func(item) error { return errCalendarNotFound() }), true
}

// book commits w with the bookings that moving an entry of cal from before
// to after (either may be nil) takes and releases on a resource calendar.
func (s *Store) book(ctx context.Context, w *write, cal *calendar.Calendar, before, after *calendar.Entry) error {
	if !cal.IsResource {
		return s.commit(ctx, w)
	}
	if err := s.addBookings(w, cal, before, after, nil); err != nil {
		return err
	}
	return s.commitBooking(ctx, w)
}

// addBookings adds to w the bookings that moving an entry of cal from
// before to after (either may be nil; after a series with exceptions xs)
// takes and releases on a resource calendar.
func (s *Store) addBookings(w *write, cal *calendar.Calendar, before, after *calendar.Entry, xs []*calendar.Entry) error {
	if !cal.IsResource {
		return nil
	}
	was, err := s.bookings(before, nil)
	if err != nil {
		return err
	}
	will, err := s.bookings(after, xs)
	if err != nil {
		return err
	}
	slots, err := s.slotWrites(cal, was, will)
	if err != nil {
		return err
	}
	w.Book(slots...)
	return nil
}

// commitBooking commits a write that may take resource bookings, refusing
// one too large for a transaction and naming the booking a clash was with.
func (s *Store) commitBooking(ctx context.Context, w *write) error {
	if w.Room() < 0 {
		return errTooManyBookings()
	}
	return s.bookingFailed(ctx, s.commit(ctx, w))
}

func errTooManyBookings() error {
	return calendar.Invalidf("timing", "this change moves too many bookings of a resource calendar for one write: book fewer or shorter ones")
}

// DeleteEntry implements calendar.EntryService.
func (s *Store) DeleteEntry(ctx context.Context, key calendar.EntryKey, expectedVersion int) error {
	if err := validEntryKey(key); err != nil {
		return err
	}
	_, err := retryAttendance(ctx, func() (struct{}, error) { return struct{}{}, s.deleteEntry(ctx, key, expectedVersion) })
	if err != nil {
		return err
	}
	return s.trashMyReminders(ctx, key) // users' own reminders go to the trash with it
}

// deleteEntry is one attempt of DeleteEntry, from its reads. An entry's
// attendees go in its transaction; when they do not all fit, some are
// removed first by transactions of their own (each a consistent state: the
// entry with fewer attendees), and the entry is read again.
func (s *Store) deleteEntry(ctx context.Context, key calendar.EntryKey, expectedVersion int) error {
	restoring := pendingKey(pendingRestore, trashPendingID(key.CalendarID, key.EntryID))
	acc, _, err := s.entryAccess(ctx, key.CalendarID, entryKey(key.CalendarID, key.EntryID), restoring)
	if err != nil {
		return err
	}
	old, pieces, err := existingEntry(acc, key, expectedVersion)
	if err != nil {
		return err
	}
	if acc.items[restoring] != nil { // its restore is being finished (trash_restore.go)
		return errBeingMoved(key.EntryID)
	}
	if old.IsSeries() { // its attendees go with it (seriesPeople)
		_, _, err := s.editSeries(ctx, wholeSeries(key), calendar.SeriesEditInput{
			Scope: calendar.ScopeAll, Delete: true, Update: calendar.EntryUpdate{ExpectedVersion: expectedVersion},
		})
		return err
	}
	var attendees []*calendar.Attendee
	var raw []item // as stored, for the trash
	if old.Attendance.Summary.Total() > 0 {
		if raw, err = s.rawAttendees(ctx, old); err != nil {
			return err
		}
		for _, it := range raw {
			a, err := decodeAttendeeAt(it, old.Attendance.Epoch)
			if err != nil {
				return err
			}
			attendees = append(attendees, a)
		}
	}
	w := newWrite()
	w.Idempotent(ctx)
	w.Guard(roleCheck(key.CalendarID, acc.viewer, calendar.ActionWriteEntries))
	w.Add(entryDeletes(old, pieces, entryAsRead(old, expectedVersion), entryChanged(expectedVersion))...)
	t := s.trashPuts(acc.viewer, old, acc.items[entryKey(key.CalendarID, key.EntryID)], nil, raw) // trash.go
	w.Add(t.head...)
	w.LogEntry(old.CalendarID, old.ID)
	w.Tally(acc.viewer, old, nil)
	if len(t.parts) > 0 || len(attendees) > attendeesFitting(attendees, w.Room()-attendeeDeleteSlack) {
		// Too many attendees for one transaction: the deletion is made
		// in steps (trash_steps.go), its attendees removed after the switch.
		holdWrites(w, old, nil)
		if err := s.addBookings(w, acc.calendar, old, nil, nil); err != nil {
			return err
		}
		return s.bookingFailed(ctx, s.trashInSteps(ctx, acc.calendar, old, t, w))
	}
	for _, a := range attendees {
		w.Delete(attendeeKey(a.CalendarID, a.EntryID, attendeeWho(a.UserID, a.Email)), versionIs(a.Version), attendanceMoved)
		w.LogInvitation(a)
	}
	holdWrites(w, old, nil)
	if err := s.book(ctx, w, acc.calendar, old, nil); err != nil {
		return fmt.Errorf("delete entry %s: %w", key.EntryID, err)
	}
	return nil
}

// entryWrites returns the actions that write e: its entry item under cond,
// its pieces, and deletes of pieces it had beyond its new count. Its change
// record and stats are the caller's to add (write.LogEntry, write.Tally).
func entryWrites(e *calendar.Entry, pl placement, cond expression.ConditionBuilder, failed explainFunc, oldPieces int) []txOp {
	records := entryRecords(e, pl)
	ops := []txOp{opPut(itemKey{PK: records[0].PK, SK: records[0].SK}, records[0], cond, failed)}
	if len(records) > maxPieces {
		ops[0].err = fmt.Errorf("entry %s needs %d pieces; the limit is %d", e.ID, len(records), maxPieces)
	}
	for _, r := range records[1:] {
		ops = append(ops, opPut(itemKey{PK: r.PK, SK: r.SK}, r, noCondition(), nil))
	}
	for n := len(records); n < oldPieces; n++ {
		ops = append(ops, opDelete(entryPieceKey(e.CalendarID, records[0].ID, n), noCondition(), nil))
	}
	return ops
}

// entryDeletes returns the actions that delete e (under cond) and its pieces.
func entryDeletes(e *calendar.Entry, pieces int, cond expression.ConditionBuilder, failed explainFunc) []txOp {
	ops := []txOp{opDelete(entryKey(e.CalendarID, e.ID), cond, failed)}
	for n := 1; n < pieces; n++ {
		ops = append(ops, opDelete(entryPieceKey(e.CalendarID, e.ID, n), noCondition(), nil))
	}
	return ops
}
