package dynamo

import (
	"context"
	"fmt"

	"github.com/calgraph/calgraph/internal/calendar"
)

// MoveEntry implements calendar.EntryService: one transaction deletes the entry
// and its pieces from the old calendar and puts them in the new one (seed 003's
// reschedule), so it is in exactly one calendar at every moment. It returns
// the target calendar as the write's check read it.
func (s *Store) MoveEntry(ctx context.Context, key calendar.EntryKey, expectedVersion int, toCalendarID string) (*calendar.Entry, *calendar.Calendar, error) {
	viewer, err := calendar.ViewerID(ctx)
	if err != nil {
		return nil, nil, err
	}
	if err := validMove(key, toCalendarID); err != nil {
		return nil, nil, err
	}
	tk, tm := calendarKey(toCalendarID), membershipKey(toCalendarID, viewer)
	acc, _, err := s.entryAccess(ctx, key.CalendarID, entryKey(key.CalendarID, key.EntryID), tk, tm)
	if err != nil {
		return nil, nil, err
	}
	to, err := moveTarget(acc, tk, tm)
	if err != nil {
		return nil, nil, err
	}
	old, pieces, err := existingEntry(acc, key, expectedVersion)
	if err != nil {
		return nil, to, err
	}
	if old.IsSeries() {
		return nil, to, calendar.Invalidf("id", "a series cannot be moved to another calendar: create it there and delete it here")
	}
	if len(old.Holds) > 0 {
		return nil, to, calendar.Invalidf("id", "an entry booked with mustNotOverlap cannot be moved to another calendar: set mustNotOverlap to [] first")
	}
	if old.Attendance.Summary.Total() > 0 {
		return nil, to, calendar.Invalidf("id", "an entry with attendees cannot be moved to another calendar yet: remove its attendees first")
	}
	moved := *old
	moved.CalendarID, moved.Version, moved.UpdatedAt, moved.UpdatedBy = toCalendarID, expectedVersion+1, s.timestamp(), viewer
	w := newWrite()
	w.Idempotent(ctx)
	w.Guard(roleCheck(key.CalendarID, viewer, calendar.ActionWriteEntries))
	w.Guard(roleCheck(toCalendarID, viewer, calendar.ActionWriteEntries))
	w.Guard(calendarStillThere(toCalendarID, 0))
	w.Add(entryDeletes(old, pieces, entryAsRead(old, expectedVersion), entryChanged(expectedVersion))...)
	w.Add(entryWrites(&moved, placement{}, notExists(), mustBeNew(calendar.CodeInternal, "entry already in the target calendar"), 0)...)
	w.LogEntry(old.CalendarID, old.ID)
	w.LogEntry(moved.CalendarID, moved.ID)
	w.Tally(viewer, old, nil)
	w.Tally(viewer, nil, &moved)
	released, err := s.slotWrites(acc.calendar, []*calendar.Entry{old}, nil)
	if err != nil {
		return nil, to, err
	}
	taken, err := s.slotWrites(to, nil, []*calendar.Entry{&moved})
	if err != nil {
		return nil, to, err
	}
	w.Book(released...)
	w.Book(taken...)
	if err := s.commitBooking(ctx, w); err != nil {
		return nil, to, fmt.Errorf("move entry %s: %w", key.EntryID, err)
	}
	if err := s.moveMyReminders(ctx, key, moved.Key()); err != nil { // users' own reminders go with it
		return nil, to, err
	}
	return &moved, to, nil
}

// validMove checks a move's input.
func validMove(key calendar.EntryKey, toCalendarID string) error {
	if err := validEntryKey(key); err != nil {
		return err
	}
	if err := calendar.ValidateID("toCalendarId", toCalendarID); err != nil {
		return err
	}
	if toCalendarID == key.CalendarID {
		return calendar.Invalidf("toCalendarId", "the entry is already in that calendar")
	}
	return nil
}

// moveTarget checks the viewer's standing on a move's target calendar, as
// acc read it, and returns the calendar.
func moveTarget(acc *access, calendarItem, membershipItem itemKey) (*calendar.Calendar, error) {
	if acc.items[calendarItem] == nil || acc.items[membershipItem] == nil {
		return nil, calendar.Errorf(calendar.CodeNotFound, "target calendar not found")
	}
	m, err := decodeMembershipRecord(acc.items[membershipItem])
	if err != nil {
		return nil, err
	}
	if !calendar.Role(m.Role).Can(calendar.ActionWriteEntries) {
		return nil, calendar.Errorf(calendar.CodeForbidden, "your role on the target calendar (%s) cannot %s", m.Role, calendar.ActionWriteEntries)
	}
	c, err := decodeCalendarRecord(acc.items[calendarItem])
	if err != nil {
		return nil, err
	}
	return c.calendar(), nil
}
