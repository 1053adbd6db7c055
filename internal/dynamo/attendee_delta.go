package dynamo

import (
	"context"
	"fmt"
	"time"

	"github.com/calgraph/calgraph/internal/calendar"
)

// ChangeAttendees implements calendar.AttendeeService: a writer adds and
// removes attendees of a single entry by delta, leaving everyone else's
// answers alone. An email that a calgraph user has is that user (found as
// AddMember finds them); any other is an external attendee. Removing an
// accepted attendee promotes the first waitlisted in the same transaction.
// The transaction requires the summary as read (attendanceAsRead), so the
// count against MaxAttendees and the promotions are exact; a concurrent
// answer makes it read again.
func (s *Store) ChangeAttendees(ctx context.Context, d calendar.AttendeeDelta) (*calendar.Entry, error) {
	if err := validEntryKey(d.Key); err != nil {
		return nil, err
	}
	d, err := d.Normalize()
	if err != nil {
		return nil, err
	}
	return retryAttendance(ctx, func() (*calendar.Entry, error) { return s.changeAttendees(ctx, d) })
}

func (s *Store) changeAttendees(ctx context.Context, d calendar.AttendeeDelta) (*calendar.Entry, error) {
	ek := entryKey(d.Key.CalendarID, d.Key.EntryID)
	keys := []itemKey{ek}
	for _, a := range d.Add {
		keys = append(keys, emailKey(a.Email))
	}
	for _, email := range d.Remove {
		keys = append(keys, emailKey(email), attendeeKey(d.Key.CalendarID, d.Key.EntryID, attendeeWho("", email)))
	}
	acc, err := s.access(ctx, d.Key.CalendarID, calendar.ActionWriteEntries, keys...)
	if err != nil {
		return nil, err
	}
	e, pieces, err := entryOfItem(acc.items[ek])
	if err != nil {
		return nil, err
	}
	removed, err := s.removedAttendees(ctx, acc, d, e.Attendance.Epoch)
	if err != nil {
		return nil, err
	}
	now := s.timestamp()
	after := e.Attendance
	if n := after.Summary.Total() + len(d.Add) - len(removed); n > calendar.MaxAttendees {
		return nil, calendar.Invalidf("add", "an entry has at most %d attendees; this change would make it %d", calendar.MaxAttendees, n)
	}
	var sum calendar.AttendeeSummary
	shareSum := map[calendar.AnswerKey]calendar.AttendeeSummary{} // a series attendee's occurrence answers
	w := newWrite()
	w.Idempotent(ctx)
	w.Guard(roleCheck(d.Key.CalendarID, acc.viewer, calendar.ActionWriteEntries))
	for _, r := range removed {
		sum.Count(r, -1)
		_, shares := calendar.ShareChange(r, nil, e.Attendance.Resets)
		for k, d := range shares {
			shareSum[k] = addSummaries(shareSum[k], d)
		}
		w.Delete(attendeeKey(r.CalendarID, r.EntryID, attendeeWho(r.UserID, r.Email)), versionIs(r.Version), attendanceMoved)
		w.LogInvitation(r)
	}
	for _, n := range d.Add {
		if n.Response != calendar.ResponseNeedsAction && e.Attendance.Capacity > 0 {
			return nil, calendar.Invalidf("add", "%s is added with an answer, which an entry with a capacity does not take: they answer themselves", n.Email)
		}
		a := &calendar.Attendee{CalendarID: e.CalendarID, EntryID: e.ID, UserID: stringAttr(acc.items[emailKey(n.Email)], "userId"),
			Email: n.Email, DisplayName: n.DisplayName, Optional: n.Optional, Response: n.Response, AdditionalGuests: n.AdditionalGuests,
			InvitedBy: acc.viewer, InvitedAt: now, Version: 1, Epoch: e.Attendance.Epoch,
			Moves: e.Attendance.Moves} // an imported answer is given now, after any occurrence moved
		if n.Response != calendar.ResponseNeedsAction {
			a.RespondedAt = now // an imported answer
		}
		if err := s.importedOccurrenceAnswers(e, a, n.Occurrences, now); err != nil {
			return nil, err
		}
		_, shares := calendar.ShareChange(nil, a, e.Attendance.Resets)
		for k, d := range shares {
			shareSum[k] = addSummaries(shareSum[k], d)
		}
		sum.Count(a, 1)
		w.Add(attendeePut(a, 0, now))
		w.LogInvitation(a)
	}
	after.Summary = addSummaries(after.Summary, sum)
	promoted, after, err := s.promotions(ctx, e, after, len(removed), removed...)
	if err != nil {
		return nil, err
	}
	seated(&sum, promoted)
	shares, cond, err := shareWrites(e, shareSum)
	if err != nil {
		return nil, err
	}
	w.Add(summaryWrites(e, pieces, sum, and(cond, attendanceAsRead(e.Attendance.Rev)), shares)...)
	promote(w, promoted, now)
	w.LogEntry(e.CalendarID, e.ID)
	if n := w.Size(); n > maxTxActions { // removals seating as many, or 25 users on a year-long entry
		return nil, calendar.Invalidf("remove", "this change needs %d writes, more than one transaction holds (%d): add or remove fewer attendees at a time", n, maxTxActions)
	}
	if err := s.commit(ctx, w); err != nil {
		return nil, fmt.Errorf("change attendees of entry %s: %w", e.ID, err)
	}
	after.Shares = addShares(after.Shares, shareSum)
	e.Attendance = after
	e.Attendance.Rev++
	return e, nil
}

// removedAttendees reads the attendees d removes, as they read at answer
// epoch epoch: by the user an email names, else as an external address. Removing one who is not invited is
// NOT_FOUND, so a client's stale list does not pass silently.
func (s *Store) removedAttendees(ctx context.Context, acc *access, d calendar.AttendeeDelta, epoch int) ([]*calendar.Attendee, error) {
	var users []itemKey
	for _, email := range d.Remove {
		if id := stringAttr(acc.items[emailKey(email)], "userId"); id != "" {
			users = append(users, attendeeKey(d.Key.CalendarID, d.Key.EntryID, attendeeWho(id, "")))
		}
	}
	found, err := s.batchGet(ctx, users)
	if err != nil {
		return nil, err
	}
	var out []*calendar.Attendee
	for _, email := range d.Remove {
		it := acc.items[attendeeKey(d.Key.CalendarID, d.Key.EntryID, attendeeWho("", email))]
		if id := stringAttr(acc.items[emailKey(email)], "userId"); id != "" && found[attendeeKey(d.Key.CalendarID, d.Key.EntryID, attendeeWho(id, ""))] != nil {
			it = found[attendeeKey(d.Key.CalendarID, d.Key.EntryID, attendeeWho(id, ""))]
		}
		if it == nil {
			return nil, calendar.Errorf(calendar.CodeNotFound, "%s is not invited to this entry", email)
		}
		a, err := decodeAttendeeAt(it, epoch)
		if err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	return out, nil
}

// addSummaries returns a + b.
func addSummaries(a, b calendar.AttendeeSummary) calendar.AttendeeSummary {
	return calendar.AttendeeSummary{
		NeedsAction: a.NeedsAction + b.NeedsAction, Accepted: a.Accepted + b.Accepted, Tentative: a.Tentative + b.Tentative,
		Declined: a.Declined + b.Declined, Waitlisted: a.Waitlisted + b.Waitlisted, AcceptedGuests: a.AcceptedGuests + b.AcceptedGuests,
	}
}

// addShares returns a master's shares a with d added (nil when none).
func addShares(a, d map[calendar.AnswerKey]calendar.AttendeeSummary) map[calendar.AnswerKey]calendar.AttendeeSummary {
	if len(a)+len(d) == 0 {
		return nil
	}
	out := map[calendar.AnswerKey]calendar.AttendeeSummary{}
	for k, s := range a {
		out[k] = s
	}
	for k, s := range d {
		out[k] = addSummaries(out[k], s)
	}
	return out
}

// importedOccurrenceAnswers gives a, added to series e, the answers to
// single occurrences an import brings (calendar.NewAttendee.Occurrences),
// given now: each must be an occurrence the series has (CodeInvalid
// otherwise, as on a single entry). Their shares are added with the rest.
func (s *Store) importedOccurrenceAnswers(e *calendar.Entry, a *calendar.Attendee, occ []calendar.OccurrenceAnswer, now time.Time) error {
	if len(occ) == 0 {
		return nil
	}
	if !e.IsSeries() {
		return calendar.Invalidf("add", "%s answers single occurrences of an entry that does not repeat", a.Email)
	}
	for _, o := range occ {
		if !s.recur.Has(e, o.Key.From) {
			return calendar.Invalidf("add", "%s answers %s, which is no occurrence of the series", a.Email, o.Key.From.Format(time.RFC3339))
		}
		o.RespondedAt, o.Moves = now, e.Attendance.Moves
		a.Occurrences = append(a.Occurrences, o)
	}
	return nil
}
