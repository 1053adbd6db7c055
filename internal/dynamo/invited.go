package dynamo

import (
	"context"
	"fmt"
	"slices"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/calgraph/calgraph/internal/calendar"
)

// InvitedEntries implements calendar.Reader (R36): the entries a user is
// invited to, from GSI1's `ATT#` keys of their partition, newest invitation
// first. It reads at most max invitations, and only their calendar and
// entry IDs. Declined ones are among them: an answer given before its
// entry's time moved reads as NEEDS_ACTION (calendar.AnswerCurrent), which
// only the entry's answer epoch tells, so the caller leaves out those
// declined at it.
func (s *Store) InvitedEntries(ctx context.Context, userID string, max int) ([]calendar.EntryKey, error) {
	in := keyQuery{index: indexGSI1, pkAttr: attrGSI1PK, partition: userPartition(userID),
		sk: skPrefix(attrGSI1SK, prefixAttendee), descending: true, projection: []string{"calendarId", "entryId"}}.input(s.table)
	var out []calendar.EntryKey
	seen := map[calendar.EntryKey]bool{}
	for evaluated := 0; evaluated < max; {
		in.Limit = aws.Int32(int32(max - evaluated))
		page, err := s.reads.Query(ctx, in)
		if err != nil {
			return nil, fmt.Errorf("query invitations of %s: %w", userID, err)
		}
		for _, it := range page.Items {
			k := calendar.EntryKey{CalendarID: stringAttr(it, "calendarId"), EntryID: stringAttr(it, "entryId")}
			if !seen[k] { // a series' answers per occurrence share its entry
				seen[k] = true
				out = append(out, k)
			}
		}
		evaluated += int(page.ScannedCount)
		if len(page.LastEvaluatedKey) == 0 || page.ScannedCount == 0 {
			break
		}
		in.ExclusiveStartKey = page.LastEvaluatedKey
	}
	return out, nil
}

// attendeesFitting is how many of the last of attendees a transaction with
// room actions left can remove: one action each, and one more for a
// calgraph user's record in their own log.
func attendeesFitting(attendees []*calendar.Attendee, room int) int {
	n := 0
	for i := len(attendees) - 1; i >= 0; i-- {
		cost := 1
		if attendees[i].UserID != "" {
			cost = 2
		}
		if room < cost {
			break
		}
		room -= cost
		n++
	}
	return n
}

// InvitationChanges implements calendar.InvitationSyncService. Without a
// token it reads the viewer's invitations from GSI1 a page at a time (its
// lag is covered as fullList's is: the token after the last page starts
// overlapWindow before the first); with one, it reads the viewer's log
// after it, where each `ATT#` record names an invitation, read again as it
// is now (missing: removed). The log's membership records are
// calendarListChanges'; a page may so hold fewer than first.
func (s *Store) InvitationChanges(ctx context.Context, token string, first int) (*calendar.InvitationChangePage, error) {
	viewer, err := calendar.ViewerID(ctx)
	if err != nil {
		return nil, err
	}
	if err := calendar.ValidateChangePage(first); err != nil {
		return nil, err
	}
	bad := calendar.Invalidf("syncToken", "syncToken is not a sync token of these invitations")
	var t syncToken
	if token == "" {
		t = s.startToken(viewer, true)
		t.phase = phaseInvitations
	} else if t, err = s.parseToken(token, viewer, true); err != nil {
		return nil, err
	}
	if t.full && t.phase != phaseInvitations {
		return nil, bad
	}
	if t.full {
		return s.fullInvitations(ctx, t, first, bad)
	}
	p, err := s.readUserLog(ctx, t, first)
	if err != nil {
		return nil, err
	}
	return &calendar.InvitationChangePage{Changes: p.Invitations, More: p.More, Token: p.Token}, nil
}

// invitationChanges reads the user's invitations that objects of their log
// name, as they are now (missing: removed), each answer as it reads at its
// entry's answer epoch (the entries are read in the same batch).
func (s *Store) invitationChanges(ctx context.Context, userID string, objects []string) ([]calendar.InvitationChange, error) {
	var keys []itemKey
	var entries []calendar.EntryKey
	for _, obj := range objects {
		if k, ok := invitationOfObject(obj); ok {
			entries = append(entries, k)
			keys = append(keys, attendeeKey(k.CalendarID, k.EntryID, attendeeWho(userID, "")))
		}
	}
	if len(keys) == 0 {
		return nil, nil
	}
	all := slices.Clone(keys)
	for _, k := range entries {
		all = append(all, entryKey(k.CalendarID, k.EntryID))
	}
	items, err := s.batchGet(ctx, all)
	if err != nil {
		return nil, err
	}
	changes := make([]calendar.InvitationChange, len(entries))
	for i, k := range entries {
		changes[i] = calendar.InvitationChange{Entry: k, Removed: items[keys[i]] == nil}
		if !changes[i].Removed {
			epoch := 0
			if e := items[entryKey(k.CalendarID, k.EntryID)]; e != nil {
				if epoch, err = answerEpochOf(e); err != nil {
					return nil, err
				}
			}
			if changes[i].Attendee, err = decodeAttendeeAt(items[keys[i]], epoch); err != nil {
				return nil, err
			}
		}
	}
	return changes, nil
}

// fullInvitations reads a page of the viewer's invitations as they are.
func (s *Store) fullInvitations(ctx context.Context, t syncToken, first int, bad error) (*calendar.InvitationChangePage, error) {
	p, err := s.EntryInvitations(ctx, calendar.AttendeeFilter{}, calendar.Page{First: first, After: t.after})
	if calendar.ErrorCode(err) == calendar.CodeInvalid {
		return nil, bad
	}
	if err != nil {
		return nil, err
	}
	page := &calendar.InvitationChangePage{}
	for _, a := range p.Attendees {
		page.Changes = append(page.Changes, calendar.InvitationChange{Entry: a.Key(), Attendee: a})
	}
	t.after = p.EndCursor
	if !p.HasNextPage {
		t = syncToken{owner: t.owner, user: true, low: t.low}
	}
	page.More, page.Token = t.full, t.encode()
	return page, nil
}

// answerEpochOf reads the answer epoch of an entry item.
func answerEpochOf(it item) (int, error) {
	e, _, err := entryOfItem(it)
	if err != nil {
		return 0, err
	}
	return e.Attendance.Epoch, nil
}
