package dynamo

import (
	"context"
	"slices"
	"strconv"
	"strings"

	"github.com/calgraph/calgraph/internal/calendar"
)

// Attendees implements calendar.AttendeeService: a page of an entry's
// attendees in key order (users by ID, then external addresses), narrowed
// to some responses by the Query's filter, which reads an answer from
// before the entry's answer epoch as NEEDS_ACTION. The viewer must see the list
// (calendar.AttendeesVisible): one who may see only their own answer gets
// just that, and anyone else NOT_FOUND, as for a missing entry.
func (s *Store) Attendees(ctx context.Context, key calendar.EntryKey, f calendar.AttendeeFilter, p calendar.Page) (*calendar.AttendeePage, error) {
	if err := validEntryKey(key); err != nil {
		return nil, err
	}
	if err := f.Validate(); err != nil {
		return nil, err
	}
	view, own, epoch, err := s.attendeeView(ctx, key)
	if err != nil {
		return nil, err
	}
	switch view {
	case calendar.SeeNoAttendees:
		return nil, errEntryNotFound()
	case calendar.SeeOwnAttendee:
		page := &calendar.AttendeePage{}
		if f.Keeps(own) {
			page.Attendees = []*calendar.Attendee{own}
		}
		return page, p.Validate()
	}
	return s.attendeePage(ctx, pageQuery{pkAttr: attrPK, skAttr: attrSK, partition: calendarPartition(key.CalendarID),
		prefix: attendeePrefix(key.EntryID), consistent: true, page: p, filter: responseFilter(f, epoch)}, epochOf(epoch))
}

// Attendance implements calendar.AttendeeService: the viewer's own answer to
// an entry, nil when they are not invited, read with the entry (one
// BatchGetItem) for its answer epoch.
func (s *Store) Attendance(ctx context.Context, key calendar.EntryKey) (*calendar.Attendee, error) {
	viewer, err := calendar.ViewerID(ctx)
	if err != nil {
		return nil, err
	}
	if err := validEntryKey(key); err != nil {
		return nil, err
	}
	ek, ak := entryKey(key.CalendarID, key.EntryID), attendeeKey(key.CalendarID, key.EntryID, attendeeWho(viewer, ""))
	items, err := s.batchGet(ctx, []itemKey{ek, ak})
	if err != nil || items[ak] == nil || items[ek] == nil {
		return nil, err
	}
	e, _, err := entryOfItem(items[ek])
	if err != nil {
		return nil, err
	}
	return decodeAttendeeAt(items[ak], e.Attendance.Epoch)
}

// attendeeView reads what the viewer sees of an entry's attendees, with
// their own answer when invited and the entry's answer epoch.
func (s *Store) attendeeView(ctx context.Context, key calendar.EntryKey) (calendar.AttendeeView, *calendar.Attendee, int, error) {
	viewer, err := calendar.ViewerID(ctx)
	if err != nil {
		return 0, nil, 0, err
	}
	ek, mk, ak := entryKey(key.CalendarID, key.EntryID), membershipKey(key.CalendarID, viewer), attendeeKey(key.CalendarID, key.EntryID, attendeeWho(viewer, ""))
	items, err := s.batchGet(ctx, []itemKey{ek, mk, ak})
	if err != nil || items[ek] == nil {
		return calendar.SeeNoAttendees, nil, 0, err
	}
	e, _, err := entryOfItem(items[ek])
	if err != nil {
		return 0, nil, 0, err
	}
	var role calendar.Role
	if items[mk] != nil {
		m, err := decodeMembershipRecord(items[mk])
		if err != nil {
			return 0, nil, 0, err
		}
		role = calendar.Role(m.Role)
	}
	var own *calendar.Attendee
	if items[ak] != nil {
		if own, err = decodeAttendeeAt(items[ak], e.Attendance.Epoch); err != nil {
			return 0, nil, 0, err
		}
	}
	return calendar.AttendeesVisible(role, calendar.OrganizerOf(e) == viewer, own != nil, e.Attendance), own, e.Attendance.Epoch, nil
}

// EntryInvitations implements calendar.AttendeeService: the viewer's
// invitations to entries, newest first, on GSI1 (eventually consistent: an
// invitation made a moment ago may be missing from the first read). Each
// Query's invitations are read with their entries' answer epochs, in one
// BatchGetItem of the entries (the page's entries, which the API loads
// next anyway), so that an answer from before its entry's time moved reads,
// and is filtered, as NEEDS_ACTION: the Query's filter keeps what may match
// (every invitation when NEEDS_ACTION is asked for, since any answer may
// have been reset) and the epochs decide.
func (s *Store) EntryInvitations(ctx context.Context, f calendar.AttendeeFilter, p calendar.Page) (*calendar.AttendeePage, error) {
	viewer, err := calendar.ViewerID(ctx)
	if err != nil {
		return nil, err
	}
	if err := f.Validate(); err != nil {
		return nil, err
	}
	wide := f
	if slices.Contains(f.Responses, calendar.ResponseNeedsAction) {
		wide = calendar.AttendeeFilter{}
	}
	epochs := map[calendar.EntryKey]int{}
	return s.attendeePage(ctx, pageQuery{index: indexGSI1, pkAttr: attrGSI1PK, skAttr: attrGSI1SK,
		partition: userPartition(viewer), prefix: prefixAttendee, descending: true, page: p, filter: responseFilter(wide, 0),
		valid: func(key map[string]string) bool {
			rest := strings.TrimPrefix(key[attrGSI1SK], prefixAttendee)
			parts := strings.Split(rest, "#")
			if len(parts) != 3 {
				return false
			}
			k := attendeeKey(parts[1], parts[2], attendeeWho(viewer, ""))
			return key[attrPK] == k.PK && key[attrSK] == k.SK
		},
		keep: func(ctx context.Context, items []item) ([]item, error) {
			return s.currentInvitations(ctx, items, f, epochs)
		}}, func(a *calendar.Attendee) int { return epochs[a.Key()] })
}

// currentInvitations reads the answer epochs of the entries of invitation
// items into epochs and keeps the items whose answer, as it reads at its
// entry's epoch, f keeps. An invitation whose entry is gone reads as
// stored (the API leaves it out).
func (s *Store) currentInvitations(ctx context.Context, items []item, f calendar.AttendeeFilter, epochs map[calendar.EntryKey]int) ([]item, error) {
	var keys []itemKey
	for _, it := range items {
		k := calendar.EntryKey{CalendarID: stringAttr(it, "calendarId"), EntryID: stringAttr(it, "entryId")}
		if _, ok := epochs[k]; !ok {
			epochs[k] = 0
			keys = append(keys, entryKey(k.CalendarID, k.EntryID))
		}
	}
	entries, err := s.batchGet(ctx, keys)
	if err != nil {
		return nil, err
	}
	for _, it := range entries {
		e, _, err := entryOfItem(it)
		if err != nil {
			return nil, err
		}
		epochs[e.Key()] = e.Attendance.Epoch
	}
	var kept []item
	for _, it := range items {
		a, err := decodeAttendee(it)
		if err != nil {
			return nil, err
		}
		if f.Keeps(a.At(epochs[a.Key()])) {
			kept = append(kept, it)
		}
	}
	return kept, nil
}

// responseFilter keeps the attendees f keeps, as they read on an entry at
// answer epoch epoch: an answer stored at an older epoch (or none, before
// epochs were kept) is NEEDS_ACTION, as calendar.AnswerCurrent says.
func responseFilter(f calendar.AttendeeFilter, epoch int) filter {
	if len(f.Responses) == 0 {
		return filter{}
	}
	out := filter{expr: "#response IN (", names: map[string]string{"#response": "response"}, values: item{}}
	responses := slices.Compact(slices.Sorted(slices.Values(f.Responses))) // at most the four valid ones
	for i, r := range responses {
		name := ":r" + strconv.Itoa(i)
		if i > 0 {
			out.expr += ", "
		}
		out.expr += name
		out.values[name] = str(string(r))
	}
	out.expr += ")"
	if epoch == 0 { // every answer is current
		return out
	}
	out.names["#epoch"], out.values[":epoch"] = attrAnswerEpoch, number(int64(epoch))
	if slices.Contains(responses, calendar.ResponseNeedsAction) {
		out.expr = "(" + out.expr + ") OR attribute_not_exists(#epoch) OR #epoch < :epoch"
	} else {
		out.expr = "(" + out.expr + ") AND #epoch >= :epoch"
	}
	return out
}

// epochOf is the answer epoch of attendees of one entry.
func epochOf(epoch int) func(*calendar.Attendee) int {
	return func(*calendar.Attendee) int { return epoch }
}

// attendeePage runs q and reads its attendees as they read at the answer
// epoch of their entry (epoch).
func (s *Store) attendeePage(ctx context.Context, q pageQuery, epoch func(*calendar.Attendee) int) (*calendar.AttendeePage, error) {
	res, err := s.queryPage(ctx, q)
	if err != nil {
		return nil, err
	}
	page := &calendar.AttendeePage{Cursors: res.cursors, HasNextPage: res.hasNext}
	if n := len(res.cursors); n > 0 {
		page.EndCursor = res.cursors[n-1]
	}
	for _, it := range res.items {
		a, err := decodeAttendee(it)
		if err != nil {
			return nil, err
		}
		page.Attendees = append(page.Attendees, a.At(epoch(a)))
	}
	return page, nil
}
