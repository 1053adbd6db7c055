package loader

import (
	"context"
	"sync"

	"github.com/calgraph/calgraph/internal/calendar"
)

// maxAgendaInvitations bounds the invitations an agenda looks through: the
// viewer's newest, declined ones included. GSI1 keys invitations by when
// they were made, not by their entry's time (an edit of an entry would
// otherwise rewrite up to 100 invitations), so the agenda reads them all
// up to this bound, with their entries, and keeps those in its range.
const maxAgendaInvitations = 200

// invitedEntries starts the Query of the viewer's invitations they did not
// decline (R36) and returns a function that waits for it.
func (l *Loaders) invitedEntries(ctx context.Context) func() ([]calendar.EntryKey, error) {
	viewer, err := calendar.ViewerID(ctx)
	if err != nil {
		return func() ([]calendar.EntryKey, error) { return nil, err }
	}
	done := make(chan struct{})
	var keys []calendar.EntryKey
	go func() {
		defer close(done)
		keys, err = l.reader.InvitedEntries(ctx, viewer, maxAgendaInvitations)
	}()
	return func() ([]calendar.EntryKey, error) {
		<-done
		return keys, err
	}
}

// invitedLoads are the reads of an agenda's invitations, started together
// so that they share the batch of the agenda's calendars: for each, the
// entry and the viewer's own invitation (read strongly: GSI1 may still list
// one removed or declined a moment ago), and for each of their calendars
// the calendar and the viewer's membership (its viewerRole then costs
// nothing).
type invitedLoads struct {
	keys      []calendar.EntryKey
	entries   []func() (*calendar.Entry, error)
	attendees []func() (*calendar.Attendee, error)
	calendars map[string]func() (*calendar.Calendar, error)
}

func (l *Loaders) loadInvited(ctx context.Context, viewer string, keys []calendar.EntryKey) *invitedLoads {
	in := &invitedLoads{keys: keys, calendars: map[string]func() (*calendar.Calendar, error){}}
	for _, k := range keys {
		in.entries = append(in.entries, l.loadEntry(ctx, k))
		in.attendees = append(in.attendees, l.loadAttendee(ctx, calendar.AttendeeKey{Entry: k, UserID: viewer}))
		if in.calendars[k.CalendarID] == nil {
			in.calendars[k.CalendarID] = l.loadCalendar(ctx, k.CalendarID)
			l.loadMembership(ctx, calendar.MembershipKey{CalendarID: k.CalendarID, UserID: viewer})
		}
	}
	return in
}

// shown returns the invited entries of calendars the agenda does not read
// already (byID), adding their calendars to byID: the entries the viewer is
// still invited to, have not declined, and that still exist. Each calendar
// so opened answers RoleInvited to a viewer who is no member of it.
func (in *invitedLoads) shown(ctx context.Context, l *Loaders, byID map[string]*calendar.Calendar) ([]*calendar.Entry, error) {
	var out []*calendar.Entry
	opened := map[string]bool{}
	for i, k := range in.keys {
		if byID[k.CalendarID] != nil && !opened[k.CalendarID] {
			continue // read whole by its range Query
		}
		a, err := in.attendees[i]()
		if err != nil {
			return nil, err
		}
		if a == nil {
			continue
		}
		e, err := in.entries[i]()
		if err != nil {
			return nil, err
		}
		if e != nil && a.At(e.Attendance.Epoch).Response == calendar.ResponseDeclined {
			continue // declined at the entry's time (a decline before it moved is void)
		}
		c, err := in.calendars[k.CalendarID]()
		if err != nil {
			return nil, err
		}
		if e == nil || c == nil {
			continue // deleted meanwhile
		}
		byID[k.CalendarID], opened[k.CalendarID] = c, true
		l.reach(k.CalendarID)
		out = append(out, e)
	}
	return l.withExceptions(ctx, out)
}

// withExceptions adds to entries the exceptions of the series among them,
// which the range Query of a calendar the viewer reads would have brought:
// without them an invited series would show its moved occurrences where
// its rule puts them, and its cancelled ones. One Query per invited series,
// side by side (a wave only when the agenda holds one).
func (l *Loaders) withExceptions(ctx context.Context, entries []*calendar.Entry) ([]*calendar.Entry, error) {
	var series []*calendar.Entry
	for _, e := range entries {
		if e.IsSeries() {
			series = append(series, e)
		}
	}
	found := make([]*calendar.Series, len(series))
	errs := make([]error, len(series))
	var wg sync.WaitGroup
	for i, e := range series {
		wg.Go(func() { found[i], errs[i] = l.reader.Series(ctx, e.Key()) })
	}
	wg.Wait()
	for i, s := range found {
		if calendar.ErrorCode(errs[i]) == calendar.CodeNotFound {
			continue // deleted since it was read: the master shows as read
		}
		if errs[i] != nil {
			return nil, errs[i]
		}
		entries = append(entries, s.Exceptions...)
	}
	return entries, nil
}

// Occurs reports whether e shows in r: a single entry when it overlaps r,
// a series when one of its occurrences does by its rule (its exceptions
// are not read: a moved occurrence counts where the rule puts it).
func (l *Loaders) Occurs(e *calendar.Entry, r calendar.Range) (bool, error) {
	if !e.IsSeries() {
		return e.Overlaps(r.Start, r.End, r.Zone), nil
	}
	x, err := calendar.Expand(l.engine, []*calendar.Entry{e}, r, false, calendar.MaxViewEntries+1)
	if calendar.ErrorCode(err) == calendar.CodeInvalid {
		return true, nil // more occurrences in r than a view shows: it occurs
	}
	if err != nil {
		return false, err
	}
	for _, occ := range x.Entries {
		if occ.Overlaps(r.Start, r.End, r.Zone) {
			return true, nil
		}
	}
	return len(x.TooDense) > 0, nil
}
