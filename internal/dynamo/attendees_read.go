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
// to some responses by the Query's filter. The viewer must see the list
// (calendar.AttendeesVisible): one who may see only their own answer gets
// just that, and anyone else NOT_FOUND, as for a missing entry.
func (s *Store) Attendees(ctx context.Context, key calendar.EntryKey, f calendar.AttendeeFilter, p calendar.Page) (*calendar.AttendeePage, error) {
	if err := validEntryKey(key); err != nil {
		return nil, err
	}
	if err := f.Validate(); err != nil {
		return nil, err
	}
	view, own, err := s.attendeeView(ctx, key)
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
		prefix: attendeePrefix(key.EntryID), consistent: true, page: p, filter: responseFilter(f)})
}

// Attendance implements calendar.AttendeeService: the viewer's own answer to
// an entry, nil when they are not invited.
func (s *Store) Attendance(ctx context.Context, key calendar.EntryKey) (*calendar.Attendee, error) {
	viewer, err := calendar.ViewerID(ctx)
	if err != nil {
		return nil, err
	}
	if err := validEntryKey(key); err != nil {
		return nil, err
	}
	ak := attendeeKey(key.CalendarID, key.EntryID, attendeeWho(viewer, ""))
	items, err := s.batchGet(ctx, []itemKey{ak})
	if err != nil || items[ak] == nil {
		return nil, err
	}
	return decodeAttendee(items[ak])
}

// attendeeView reads what the viewer sees of an entry's attendees, with
// their own answer when invited.
func (s *Store) attendeeView(ctx context.Context, key calendar.EntryKey) (calendar.AttendeeView, *calendar.Attendee, error) {
	viewer, err := calendar.ViewerID(ctx)
	if err != nil {
		return 0, nil, err
	}
	ek, mk, ak := entryKey(key.CalendarID, key.EntryID), membershipKey(key.CalendarID, viewer), attendeeKey(key.CalendarID, key.EntryID, attendeeWho(viewer, ""))
	items, err := s.batchGet(ctx, []itemKey{ek, mk, ak})
	if err != nil || items[ek] == nil {
		return calendar.SeeNoAttendees, nil, err
	}
	e, _, err := entryOfItem(items[ek])
	if err != nil {
		return 0, nil, err
	}
	var role calendar.Role
	if items[mk] != nil {
		m, err := decodeMembershipRecord(items[mk])
		if err != nil {
			return 0, nil, err
		}
		role = calendar.Role(m.Role)
	}
	var own *calendar.Attendee
	if items[ak] != nil {
		if own, err = decodeAttendee(items[ak]); err != nil {
			return 0, nil, err
		}
	}
	return calendar.AttendeesVisible(role, calendar.OrganizerOf(e) == viewer, own != nil, e.Attendance), own, nil
}

// EntryInvitations implements calendar.AttendeeService: the viewer's
// invitations to entries, newest first, on GSI1 (eventually consistent: an
// invitation made a moment ago may be missing from the first read).
func (s *Store) EntryInvitations(ctx context.Context, f calendar.AttendeeFilter, p calendar.Page) (*calendar.AttendeePage, error) {
	viewer, err := calendar.ViewerID(ctx)
	if err != nil {
		return nil, err
	}
	if err := f.Validate(); err != nil {
		return nil, err
	}
	return s.attendeePage(ctx, pageQuery{index: indexGSI1, pkAttr: attrGSI1PK, skAttr: attrGSI1SK,
		partition: userPartition(viewer), prefix: prefixAttendee, descending: true, page: p, filter: responseFilter(f),
		valid: func(key map[string]string) bool {
			rest := strings.TrimPrefix(key[attrGSI1SK], prefixAttendee)
			parts := strings.Split(rest, "#")
			if len(parts) != 3 {
				return false
			}
			k := attendeeKey(parts[1], parts[2], attendeeWho(viewer, ""))
			return key[attrPK] == k.PK && key[attrSK] == k.SK
		}})
}

// responseFilter keeps the attendees f keeps.
func responseFilter(f calendar.AttendeeFilter) filter {
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
	return out
}

func (s *Store) attendeePage(ctx context.Context, q pageQuery) (*calendar.AttendeePage, error) {
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
		page.Attendees = append(page.Attendees, a)
	}
	return page, nil
}
