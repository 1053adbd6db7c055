package graph

import (
	"cmp"
	"context"
	"sync"
	"time"

	"github.com/calgraph/calgraph/graph/model"
	"github.com/calgraph/calgraph/internal/calendar"
	"github.com/calgraph/calgraph/internal/loader"
)

// The people on an entry (issue 25's first slice): what the resolvers of
// Entry.organizer, createdBy and attendees, of Attendee, and of the two
// attendee mutations call. The summary needs none: it is on the entry.

// attendancePolicy reads updateEntry's capacity, waitlist and hideAttendees.
func attendancePolicy(in model.UpdateEntryInput, u *calendar.EntryUpdate) error {
	if c, set := in.Capacity.ValueOK(); set {
		u.Capacity = calendar.Set(c)
	}
	var err error
	if u.Waitlist, err = notNull("waitlist", in.Waitlist); err != nil {
		return err
	}
	if u.HideAttendees, err = notNull("hideAttendees", in.HideAttendees); err != nil {
		return err
	}
	u.OrganizerEmail, err = notNull("organizerEmail", in.OrganizerEmail)
	return err
}

// userOrNil loads a user an entry or attendee the viewer reads names, or
// nil for none.
func userOrNil(ctx context.Context, id string) (*calendar.User, error) {
	if id == "" {
		return nil, nil
	}
	return loader.For(ctx).UserOnEntry(ctx, id)
}

// organizerOut is an entry's organizer.
func organizerOut(ctx context.Context, e model.Entry) (*calendar.User, error) {
	return userOrNil(ctx, calendar.OrganizerOf(e.Domain()))
}

// attendeesOut reads a page of an entry's attendees. An occurrence shows
// its series' list with each answer at it (calendar.Attendee.AtOccurrence), narrowed
// by response after the page is read, so such a page may hold fewer than
// first.
func attendeesOut(ctx context.Context, svc calendar.AttendeeService, e model.Entry, first *int, after *string, response []calendar.Response) (*model.AttendeeConnection, error) {
	d := e.Domain()
	if d.Attendance.Summary.Total() == 0 {
		return attendeeConnection(&calendar.AttendeePage{}), page(first, after).Validate()
	}
	if d.SeriesID == "" {
		p, err := svc.Attendees(ctx, d.Key(), calendar.AttendeeFilter{Responses: response}, page(first, after))
		if err != nil {
			return nil, err
		}
		return attendeeConnection(p), nil
	}
	f := calendar.AttendeeFilter{Responses: response}
	if err := f.Validate(); err != nil {
		return nil, err
	}
	p, err := svc.Attendees(ctx, calendar.EntryKey{CalendarID: d.CalendarID, EntryID: d.SeriesID}, calendar.AttendeeFilter{}, page(first, after))
	if err != nil {
		return nil, err
	}
	kept := &calendar.AttendeePage{EndCursor: p.EndCursor, HasNextPage: p.HasNextPage}
	for i, a := range p.Attendees {
		if at := a.AtOccurrence(d.OriginalStart, d.Attendance.Reset); f.Keeps(at) {
			kept.Attendees = append(kept.Attendees, at)
			if i < len(p.Cursors) {
				kept.Cursors = append(kept.Cursors, p.Cursors[i])
			}
		}
	}
	return attendeeConnection(kept), nil
}

// entryOfAttendee is the entry an attendee is invited to, nil once it is
// gone; the loader lets the invited user read it.
func entryOfAttendee(ctx context.Context, a *calendar.Attendee) (model.Entry, error) {
	e, err := loader.For(ctx).Entry(ctx, a.Key())
	if calendar.ErrorCode(err) == calendar.CodeNotFound {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if e, err = visibleOne(ctx, e); err != nil {
		return nil, err
	}
	return entryOut(ctx, e)
}

// invitedEntry is an entry of a live delivery to a viewer invited to it, as
// it is now, read through the loaders' invitation check: nil once the
// invitation (or the entry) is gone, so that a delivery read in the moment
// between a removal and its own record shows nothing.
func invitedEntry(ctx context.Context, key calendar.EntryKey) (model.Node, error) {
	e, err := loader.For(ctx).Entry(ctx, key)
	if calendar.ErrorCode(err) == calendar.CodeNotFound {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if e, err = visibleOne(ctx, e); err != nil {
		return nil, err
	}
	return entryOut(ctx, e)
}

// invitationsIn keeps the invitations of a page whose entry overlaps a
// range, read in zone (UTC by default); the entries are loaded at once (one
// batch), and the page keeps its end cursor so that paging goes on.
func invitationsIn(ctx context.Context, p *calendar.AttendeePage, in model.TimeRangeInput, zone *string) (*model.AttendeeConnection, error) {
	spec, err := rangeSpec(in, zone)
	if err != nil {
		return nil, err
	}
	if err := spec.Validate(); err != nil {
		return nil, err
	}
	rng, err := spec.Resolve(cmp.Or(spec.TimeZone, "UTC"))
	if err != nil {
		return nil, err
	}
	entries := make([]*calendar.Entry, len(p.Attendees))
	errs := make([]error, len(p.Attendees))
	var wg sync.WaitGroup
	for i, a := range p.Attendees {
		wg.Go(func() { entries[i], errs[i] = loader.For(ctx).Entry(ctx, a.Key()) })
	}
	wg.Wait()
	kept := &calendar.AttendeePage{EndCursor: p.EndCursor, HasNextPage: p.HasNextPage}
	for i, a := range p.Attendees {
		if calendar.ErrorCode(errs[i]) == calendar.CodeNotFound {
			continue // the entry is gone
		}
		if errs[i] != nil {
			return nil, errs[i]
		}
		occurs, err := loader.For(ctx).Occurs(entries[i], rng)
		if err != nil {
			return nil, err
		}
		if occurs {
			kept.Attendees, kept.Cursors = append(kept.Attendees, a), append(kept.Cursors, p.Cursors[i])
		}
	}
	return attendeeConnection(kept), nil
}

// attendeeConnection is a page of attendees as a Relay connection.
func attendeeConnection(p *calendar.AttendeePage) *model.AttendeeConnection {
	conn := &model.AttendeeConnection{
		Edges:    make([]*model.AttendeeEdge, len(p.Attendees)),
		PageInfo: pageInfo(p.Cursors, p.EndCursor, p.HasNextPage),
	}
	for i, a := range p.Attendees {
		cursor := ""
		if i < len(p.Cursors) {
			cursor = p.Cursors[i]
		}
		conn.Edges[i] = &model.AttendeeEdge{Cursor: cursor, Node: a}
	}
	return conn
}

// attendeeDelta converts changeAttendees' input.
func attendeeDelta(in model.ChangeAttendeesInput) (calendar.AttendeeDelta, error) {
	key, _, err := answeredEntry(in.EntryID)
	if err != nil {
		return calendar.AttendeeDelta{}, err
	}
	d := calendar.AttendeeDelta{Key: key, Remove: in.Remove.Value()}
	for _, a := range in.Add.Value() {
		if a == nil {
			continue
		}
		d.Add = append(d.Add, calendar.NewAttendee{Email: a.Email, DisplayName: orEmpty(a.DisplayName), Optional: orEmpty(a.Optional)})
	}
	return d, nil
}

// answeredEntry decodes the entry an attendee mutation names: an entry, or
// an occurrence, whose series it addresses (with its original start).
func answeredEntry(gid string) (calendar.EntryKey, time.Time, error) {
	entry, occ, err := model.DecodeEntryOrOccurrenceID("entryId", gid)
	switch {
	case err != nil:
		return calendar.EntryKey{}, time.Time{}, err
	case entry != nil:
		return *entry, time.Time{}, nil
	}
	return calendar.EntryKey{CalendarID: occ.CalendarID, EntryID: occ.SeriesID}, occ.OriginalStart, nil
}

// rsvp converts respondToEntry's input.
func rsvp(in model.RespondToEntryInput) (calendar.RSVP, error) {
	key, occurrence, err := answeredEntry(in.EntryID)
	return calendar.RSVP{
		Key: key, Occurrence: occurrence, Scope: orEmpty(in.Scope), ExpectedVersion: in.ExpectedVersion, Response: in.Response,
		Comment: orEmpty(in.Comment), AdditionalGuests: orEmpty(in.AdditionalGuests), ProposedStart: orEmpty(in.ProposedStart), ProposedEnd: orEmpty(in.ProposedEnd),
	}, err
}

// textOrNil is a text field that is null when empty.
func textOrNil(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// timeOrNil is a time field that is null when zero.
func timeOrNil(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	return &t
}
