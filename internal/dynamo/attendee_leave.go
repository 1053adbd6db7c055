package dynamo

import (
	"context"
	"fmt"

	"github.com/calgraph/calgraph/internal/calendar"
)

// leaveInvitations takes a deleted user off every entry they are invited
// to: their attendee items hold their email, name and comments, and would
// otherwise stay, answering for nobody, in others' lists and counts. Each
// goes in a transaction of its own, as a writer's removal would (the
// summary less their answer, the first waiting seated when a place frees,
// the entry's change record), with no role needed: the account is gone.
// The invitations are found on GSI1, which lags writes by about a second;
// ResumeDeletions runs it again after userDeletionGrace, which finds those
// the first run missed.
func (s *Store) leaveInvitations(ctx context.Context, userID string) error {
	in := keyQuery{index: indexGSI1, pkAttr: attrGSI1PK, partition: userPartition(userID),
		sk: skPrefix(attrGSI1SK, prefixAttendee)}.input(s.table)
	var items []item
	for {
		page, err := s.reads.Query(ctx, in)
		if err != nil {
			return fmt.Errorf("list the invitations of %s: %w", userID, err)
		}
		items = append(items, page.Items...)
		if len(page.LastEvaluatedKey) == 0 {
			break
		}
		in.ExclusiveStartKey = page.LastEvaluatedKey
	}
	for _, it := range items {
		k := calendar.EntryKey{CalendarID: stringAttr(it, "calendarId"), EntryID: stringAttr(it, "entryId")}
		_, err := retryAttendance(ctx, func() (struct{}, error) { return struct{}{}, s.leaveEntry(ctx, k, userID) })
		if calendar.ErrorCode(err) == calendar.CodeNotFound { // the entry went meanwhile: its item may be left
			err = s.leaveEntry(ctx, k, userID)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// leaveEntry removes user's attendee item from entry k, if still there.
func (s *Store) leaveEntry(ctx context.Context, k calendar.EntryKey, userID string) error {
	ek, ak := entryKey(k.CalendarID, k.EntryID), attendeeKey(k.CalendarID, k.EntryID, attendeeWho(userID, ""))
	items, err := s.batchGet(ctx, []itemKey{ek, ak})
	if err != nil {
		return err
	}
	switch {
	case items[ak] == nil:
		return nil // removed meanwhile
	case items[ek] == nil: // the entry's deletion left it behind: nothing counts it
		w := newWrite()
		w.Delete(ak, noCondition(), nil)
		return s.commitSmall(ctx, w)
	}
	e, pieces, err := entryOfItem(items[ek])
	if err != nil {
		return err
	}
	gone, err := decodeAttendeeAt(items[ak], e.Attendance.Epoch)
	if err != nil {
		return err
	}
	var d calendar.AttendeeSummary
	d.Count(gone, -1)
	_, shares := calendar.ShareChange(gone, nil, e.Attendance.Resets) // a series attendee's answers to occurrences
	after := e.Attendance
	after.Summary = addSummaries(after.Summary, d)
	promoted, _, err := s.promotions(ctx, e, after, 1, gone)
	if err != nil {
		return err
	}
	seated(&d, promoted)
	shareUpdate, cond, err := shareWrites(e, shares)
	if err != nil {
		return err
	}
	w := newWrite()
	w.Delete(ak, versionIs(gone.Version), func(item) error { return errAttendanceMoved })
	w.Add(summaryWrites(e, pieces, d, and(cond, attendanceAsRead(e.Attendance.Rev)), shareUpdate)...)
	promote(w, promoted, s.timestamp())
	w.LogEntry(e.CalendarID, e.ID)
	if err := s.commit(ctx, w); err != nil {
		return fmt.Errorf("take a deleted user off entry %s: %w", e.ID, err)
	}
	return nil
}
