package loader

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/calgraph/calgraph/internal/answercache"
	"github.com/calgraph/calgraph/internal/calendar"
	"github.com/calgraph/calgraph/internal/warm"
)

// View is what a range view shows: the range as read (with its zone), the
// entries in it, in view order, and their calendars by ID. A view of several
// calendars (Agenda, FreeBusy) that holds a series too dense to show
// (calendar.TooDense) leaves it out and says so in Partial, one error per
// calendar, so that the other calendars still show.
type View struct {
	Range     calendar.Range
	ZoneName  string
	Entries   []*calendar.Entry
	Calendars map[string]*calendar.Calendar
	Partial   []error
}

// Entries returns a calendar's entries in a range, to members who read it:
// the membership and the calendar load in one batch (when not loaded
// already), then the calendar's Queries go out (one when it never held a
// series, see EntryReader) while the viewer's preferences load. The Queries
// cover the range in every zone (RangeSpec.Window): waiting for the
// preferences to learn the view's zone would cost a wave when the viewer's
// item does not fit the calendars' batch.
func (l *Loaders) Entries(ctx context.Context, calendarID string, spec calendar.RangeSpec, f calendar.Filter) (*View, error) {
	if err := spec.Validate(); err != nil {
		return nil, err
	}
	prefs := l.viewerPreferences(ctx)
	cal := l.loadCalendar(ctx, calendarID)
	if _, err := l.viewerCan(ctx, calendarID, calendar.ActionRead); err != nil {
		return nil, err
	}
	c, err := cal()
	if err != nil {
		return nil, err
	}
	if c == nil { // deleted since the membership was read; its clean-up is under way
		return nil, calendar.Errorf(calendar.CodeNotFound, "calendar not found")
	}
	from, to := spec.Window()
	candidates, err := l.entriesReaching(ctx, c, from, to)
	if err != nil {
		return nil, err
	}
	p, err := prefs()
	if err != nil {
		return nil, err
	}
	v, err := l.view(ctx, spec, calendar.ViewZone(spec.TimeZone, p, c), candidates, f, map[string]*calendar.Calendar{calendarID: c})
	if err == nil && len(v.Partial) > 0 {
		return nil, v.Partial[0] // a view of one calendar shows it whole or not at all
	}
	return v, err
}

// Agenda returns the viewer's entries across the given calendars (all of the
// viewer's, up to maxAgendaCalendars, when ids is nil) in a range, merged into
// view order; each entry's calendar is loaded with them. Dates are read in the
// asked zone, else the viewer's, else UTC. The calendars, the viewer's
// memberships (read strongly) and preferences load in one batch; then the
// Queries of the calendars the viewer still reads go out as one wave, one
// per calendar that never held a series and two per other, for the range as
// read in the view's zone (now known). With invitations (and no ids), the
// entries the viewer is invited to in calendars they do not read join them
// at no extra wave (agenda_invited.go).
func (l *Loaders) Agenda(ctx context.Context, ids []string, spec calendar.RangeSpec, f calendar.Filter, invitations bool) (*View, error) {
	if err := spec.Validate(); err != nil {
		return nil, err
	}
	invited := func() ([]calendar.EntryKey, error) { return nil, nil }
	if ids == nil && invitations {
		invited = l.invitedEntries(ctx) // beside the memberships' Query
	}
	ids, err := l.agendaCalendars(ctx, ids)
	if err != nil {
		return nil, err
	}
	keys, err := invited()
	if err != nil {
		return nil, err
	}
	viewer, err := calendar.ViewerID(ctx)
	if err != nil {
		return nil, err
	}
	prefs := l.viewerPreferences(ctx)
	cals := make([]func() (*calendar.Calendar, error), len(ids))
	roles := make([]func() (*calendar.Membership, error), len(ids))
	for i, id := range ids {
		cals[i] = l.loadCalendar(ctx, id)
		// Read strongly beside the calendars: a list from GSI1 may lag.
		roles[i] = l.loadMembership(ctx, calendar.MembershipKey{CalendarID: id, UserID: viewer})
	}
	inv := l.loadInvited(ctx, viewer, keys) // same batch
	byID := make(map[string]*calendar.Calendar, len(ids))
	var readable []*calendar.Calendar
	for i, id := range ids {
		m, err := roles[i]()
		if err != nil {
			return nil, err
		}
		if m == nil || !m.Role.Can(calendar.ActionRead) {
			continue // left or lost the right to read since GSI1 listed it
		}
		c, err := cals[i]()
		if err != nil {
			return nil, err
		}
		if c == nil {
			continue // deleted; its memberships are being removed
		}
		byID[id] = c
		readable = append(readable, c)
	}
	p, err := prefs()
	if err != nil {
		return nil, err
	}
	zone := calendar.ViewZone(spec.TimeZone, p, nil)
	r, err := spec.Resolve(zone)
	if err != nil {
		return nil, err
	}
	candidates, err := l.agendaCandidates(ctx, readable, r.Start, r.End)
	if err != nil {
		return nil, err
	}
	invitedTo, err := inv.shown(ctx, l, byID)
	if err != nil {
		return nil, err
	}
	return l.view(ctx, spec, zone, append(candidates, invitedTo...), f, byID)
}

// maxAgendaCandidates bounds what an agenda holds in memory across calendars.
const maxAgendaCandidates = 4 * calendar.MaxViewEntries

// agendaCandidates queries the calendars' entries concurrently, on warm
// workers (internal/warm), whose stacks have grown already: each read runs
// deep (the store, ddbread, net/http).
func (l *Loaders) agendaCandidates(ctx context.Context, cals []*calendar.Calendar, from, to time.Time) ([]*calendar.Entry, error) {
	var mu sync.Mutex
	var candidates []*calendar.Entry
	g, gctx := warm.WithContext(ctx)
	g.SetLimit(maxAgendaCalendars)
	for _, c := range cals {
		g.Go(func() error {
			found, err := l.entriesReaching(gctx, c, from, to)
			mu.Lock()
			defer mu.Unlock()
			if candidates = append(candidates, found...); len(candidates) > maxAgendaCandidates {
				return calendar.Invalidf("range", "this range holds too many entries: narrow it or choose fewer calendars")
			}
			return err
		})
	}
	return candidates, g.Wait()
}

// agendaCalendars checks that the viewer is a member of each calendar asked
// for, or lists all of theirs.
func (l *Loaders) agendaCalendars(ctx context.Context, ids []string) ([]string, error) {
	viewer, err := calendar.ViewerID(ctx)
	if err != nil {
		return nil, err
	}
	if ids == nil { // as GSI1 lists them: Agenda checks them again, strongly
		ms, err := l.reader.AllMembershipsOfUser(ctx, viewer, maxAgendaCalendars)
		for _, m := range ms {
			if m.Role.Can(calendar.ActionRead) && (m.Settings == nil || m.Settings.Shown()) { // as the viewer's settings say
				ids = append(ids, m.CalendarID)
			}
		}
		return ids, err
	}
	ids = slices.Compact(slices.Sorted(slices.Values(ids)))
	if len(ids) > maxAgendaCalendars {
		return nil, calendar.Invalidf("calendarIds", "an agenda covers at most %d calendars", maxAgendaCalendars)
	}
	return ids, l.viewerCanAll(ctx, ids, calendar.ActionRead)
}

// maxAgendaCalendars bounds how many calendars one agenda covers.
const maxAgendaCalendars = 5 * calendar.MaxPageSize

// viewerPreferences starts loading the viewer and returns a function that
// waits for their preferences.
func (l *Loaders) viewerPreferences(ctx context.Context) func() (calendar.Preferences, error) {
	viewer, err := calendar.ViewerID(ctx)
	if err != nil {
		return func() (calendar.Preferences, error) { return calendar.Preferences{}, err }
	}
	u := l.loadUser(ctx, viewer)
	return func() (calendar.Preferences, error) {
		user, err := u()
		if err != nil || user == nil {
			return calendar.DefaultPreferences(), err
		}
		return user.Preferences, nil
	}
}

func (l *Loaders) view(ctx context.Context, spec calendar.RangeSpec, zone string, candidates []*calendar.Entry,
	f calendar.Filter, cals map[string]*calendar.Calendar) (*View, error) {
	r, err := spec.Resolve(zone)
	if err != nil {
		return nil, err
	}
	for _, e := range candidates {
		if e.IsSeries() {
			l.PrimeEntry(ctx, e) // for the series field of its occurrences
		}
	}
	x, err := l.expand(candidates, r, f.IncludeCancelled)
	if err != nil {
		return nil, err
	}
	selected := calendar.Select(x.Entries, r, f)
	selected = slices.DeleteFunc(selected, func(e *calendar.Entry) bool { return cals[e.CalendarID] == nil })
	if len(selected) > calendar.MaxViewEntries {
		return nil, calendar.Invalidf("range", "this range holds more than %d entries: narrow it", calendar.MaxViewEntries)
	}
	for _, e := range selected {
		l.PrimeEntry(ctx, e)
	}
	v := &View{Range: r, ZoneName: zone, Entries: selected, Calendars: cals}
	named := map[string]bool{}
	for _, m := range x.TooDense {
		if !named[m.CalendarID] && cals[m.CalendarID] != nil {
			named[m.CalendarID] = true
			v.Partial = append(v.Partial, calendar.TooDense(m))
		}
	}
	return v, nil
}

// Entry returns an entry of a calendar the viewer is a member of.
func (l *Loaders) Entry(ctx context.Context, key calendar.EntryKey) (*calendar.Entry, error) {
	if calendar.ValidateID("id", key.EntryID) != nil {
		return nil, calendar.Errorf(calendar.CodeNotFound, "entry not found")
	}
	thunk := l.loadEntry(ctx, key)
	l.loadCalendar(ctx, key.CalendarID) // same batch, for the entry's calendar field
	if _, err := l.viewerCan(ctx, key.CalendarID, calendar.ActionRead); err != nil {
		if !l.invited(ctx, key) {
			return nil, err
		}
		l.reach(key.CalendarID)
	}
	e, err := thunk()
	if err == nil && e == nil {
		err = calendar.Errorf(calendar.CodeNotFound, "entry not found")
	}
	return e, err
}

// ViewerAttendee returns the viewer's own invitation to an entry they were
// shown, nil when they are not invited, as it reads at the entry's answer
// epoch (an answer from before its time moved is NEEDS_ACTION): the
// entries of one level of a request are read in one batch. An
// occurrence's is the viewer's invitation to its series, with their answer
// at the occurrence (the occurrences of one series share the read).
func (l *Loaders) ViewerAttendee(ctx context.Context, e *calendar.Entry) (*calendar.Attendee, error) {
	viewer, err := calendar.ViewerID(ctx)
	if err != nil {
		return nil, err
	}
	if e.SeriesID == "" {
		a, err := l.loadAttendee(ctx, calendar.AttendeeKey{Entry: e.Key(), UserID: viewer})()
		return a.At(e.Attendance.Epoch), err
	}
	a, err := l.loadAttendee(ctx, calendar.AttendeeKey{Entry: calendar.EntryKey{CalendarID: e.CalendarID, EntryID: e.SeriesID}, UserID: viewer})()
	if a == nil || err != nil {
		return nil, err
	}
	return a.At(e.Attendance.Epoch).AtOccurrence(e.OriginalStart, e.Attendance.Reset), nil
}

// CalendarOfEntry returns the calendar of an entry the viewer was shown.
func (l *Loaders) CalendarOfEntry(ctx context.Context, e *calendar.Entry) (*calendar.Calendar, error) {
	c, err := l.loadCalendar(ctx, e.CalendarID)()
	if err == nil && c == nil {
		err = calendar.Errorf(calendar.CodeNotFound, "calendar not found")
	}
	return c, err
}

// Tasks returns a page of a calendar's open, completed or archived tasks, to
// members who read it; the archive starts where the viewer's preferences say.
func (l *Loaders) Tasks(ctx context.Context, calendarID string, list calendar.TaskList, p calendar.Page) (*calendar.TaskPage, error) {
	if _, err := l.viewerCan(ctx, calendarID, calendar.ActionRead); err != nil {
		return nil, err
	}
	q := calendar.TaskQuery{List: list}
	if list != calendar.TasksOpen {
		u, err := l.Viewer(ctx)
		if err != nil {
			return nil, err
		}
		q.ArchivedBefore = u.Preferences.ArchivedBefore(time.Now())
		answercache.Mark(ctx, "clock")
	}
	page, err := l.reader.Tasks(ctx, calendarID, q, p)
	if err != nil {
		return nil, err
	}
	for _, t := range page.Tasks {
		l.PrimeEntry(ctx, t)
	}
	return page, nil
}

// Occurrence returns an occurrence of a series on a calendar the viewer is a
// member of, cancelled or not.
func (l *Loaders) Occurrence(ctx context.Context, key calendar.OccurrenceKey) (*calendar.Entry, error) {
	notFound := calendar.Errorf(calendar.CodeNotFound, "entry not found")
	if calendar.ValidateID("id", key.SeriesID) != nil || calendar.ValidateID("id", key.CalendarID) != nil {
		return nil, notFound
	}
	l.loadCalendar(ctx, key.CalendarID) // same batch, for the entry's calendar field
	if _, err := l.viewerCan(ctx, key.CalendarID, calendar.ActionRead); err != nil {
		return nil, err
	}
	s, err := l.reader.Series(ctx, calendar.EntryKey{CalendarID: key.CalendarID, EntryID: key.SeriesID})
	if err != nil {
		return nil, err
	}
	l.PrimeEntry(ctx, s.Master)
	occ, ok := s.Occurrence(l.engine, key.OriginalStart)
	if !ok {
		return nil, notFound
	}
	return occ, nil
}

// SeriesOf returns the series of an occurrence the viewer was shown.
func (l *Loaders) SeriesOf(ctx context.Context, occ *calendar.Entry) (*calendar.Entry, error) {
	m, err := l.loadEntry(ctx, calendar.EntryKey{CalendarID: occ.CalendarID, EntryID: occ.SeriesID})()
	if err == nil && m == nil {
		err = calendar.Errorf(calendar.CodeNotFound, "series not found")
	}
	return m, err
}

// expand expands the series among a view's candidates within what is left of
// the request's budget of occurrences (calendar.MaxOccurrencesPerRequest),
// which the views of one request share.
func (l *Loaders) expand(candidates []*calendar.Entry, r calendar.Range, includeCancelled bool) (*calendar.Expansion, error) {
	l.mu.Lock()
	left := calendar.MaxOccurrencesPerRequest - l.expanded
	l.mu.Unlock()
	x, err := calendar.Expand(l.engine, candidates, r, includeCancelled, left)
	if err != nil {
		return nil, err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.expanded += x.Expanded; l.expanded > calendar.MaxOccurrencesPerRequest {
		return nil, calendar.TooManyOccurrences()
	}
	return x, nil
}
