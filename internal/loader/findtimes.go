package loader

import (
	"context"
	"errors"
	"slices"
	"sync"

	"github.com/calgraph/calgraph/internal/calendar"
)

// TimesRead is what findTimes reads of its participants: each calendar's
// busy time, the calendars each user participant is counted by, and the
// viewer's invitations as busy time (only when the viewer is a participant).
type TimesRead struct {
	Range calendar.Range
	Busy  map[string][]calendar.BusyInterval // by calendar ID
	Owned map[string][]string                // by user ID: the calendars counted
	// Calendars are the calendars read, by ID.
	Calendars map[string]*calendar.Calendar
	// Invited is the viewer's busy time from their invitations in calendars
	// Busy does not hold: accepted as the entry's transparency, tentative and
	// not yet answered as TENTATIVE, declined not at all.
	Invited []calendar.BusyInterval
}

// maxOwnedLooked bounds the memberships read of one user participant.
const maxOwnedLooked = maxAgendaCalendars

// TimesOf reads the busy time findTimes needs, with freeBusy's consistency
// and rights: each of calendarIDs must allow the viewer FREE_BUSY (else
// CodeNotFound, as freeBusy); each user of userIDs counts the calendars they
// own that the viewer reaches at FREE_BUSY or more (none: CodeNotFound,
// saying nothing of which). Waves: the users' and the viewer's memberships
// (GSI1, side by side, with the viewer's invitations when the viewer is
// among the users), of which only the calendars on both sides are read on;
// the viewer's memberships and the calendars in one batch; their range
// Queries (calendarsBusy) with the invitations' entries.
func (l *Loaders) TimesOf(ctx context.Context, calendarIDs, userIDs []string, spec calendar.RangeSpec, zone string) (*TimesRead, error) {
	viewer, err := calendar.ViewerID(ctx)
	if err != nil {
		return nil, err
	}
	invited := func() ([]calendar.EntryKey, error) { return nil, nil }
	if slices.Contains(userIDs, viewer) {
		invited = l.invitedEntries(ctx)
	}
	owned := make([][]*calendar.Membership, len(userIDs))
	errs := make([]error, len(userIDs)+1)
	var mine []*calendar.Membership
	var wg sync.WaitGroup
	if len(userIDs) > 0 {
		wg.Go(func() { mine, errs[len(userIDs)] = l.reader.AllMembershipsOfUser(ctx, viewer, maxAgendaCalendars) })
	}
	for i, u := range userIDs {
		wg.Go(func() { owned[i], errs[i] = l.reader.AllMembershipsOfUser(ctx, u, maxOwnedLooked) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	// Only the calendars both lists hold are read (their memberships again,
	// strongly): at most the viewer's 500, however many the users own.
	reached := map[string]bool{}
	for _, m := range mine {
		reached[m.CalendarID] = m.Role.Can(calendar.ActionFreeBusy)
	}
	ids := slices.Clone(calendarIDs)
	for _, ms := range owned {
		for _, m := range ms {
			if m.Role == calendar.RoleOwner && reached[m.CalendarID] {
				ids = append(ids, m.CalendarID)
			}
		}
	}
	ids = slices.Compact(slices.Sorted(slices.Values(ids)))
	keys, err := invited()
	if err != nil {
		return nil, err
	}
	roles := make(map[string]func() (*calendar.Membership, error), len(ids))
	cals := make(map[string]func() (*calendar.Calendar, error), len(ids))
	for _, id := range ids {
		roles[id] = l.loadMembership(ctx, calendar.MembershipKey{CalendarID: id, UserID: viewer})
		cals[id] = l.loadCalendar(ctx, id)
	}
	inv := l.loadInvited(ctx, viewer, keys) // same batch
	byID := map[string]*calendar.Calendar{}
	var list []*calendar.Calendar
	for _, id := range ids {
		m, err := roles[id]()
		if err != nil {
			return nil, err
		}
		c, err := cals[id]()
		if err != nil {
			return nil, err
		}
		if m == nil || !m.Role.Can(calendar.ActionFreeBusy) || c == nil {
			if slices.Contains(calendarIDs, id) {
				return nil, calendar.Errorf(calendar.CodeNotFound, "calendar not found")
			}
			continue // a user's calendar the viewer does not reach: not counted
		}
		byID[id] = c
		list = append(list, c)
	}
	out := &TimesRead{Busy: map[string][]calendar.BusyInterval{}, Owned: map[string][]string{}, Calendars: byID}
	for i, u := range userIDs {
		for _, m := range owned[i] {
			if m.Role == calendar.RoleOwner && byID[m.CalendarID] != nil {
				out.Owned[u] = append(out.Owned[u], m.CalendarID)
			}
		}
		if len(out.Owned[u]) == 0 {
			return nil, calendar.Errorf(calendar.CodeNotFound, "a user participant was not found (or has no calendar you can see)")
		}
	}
	v, busy, err := l.calendarsBusy(ctx, list, spec, zone)
	if err != nil {
		return nil, err
	}
	if len(v.Partial) > 0 {
		return nil, v.Partial[0] // a slot must not be proposed over time a view cannot show
	}
	out.Range = v.Range
	for _, b := range busy {
		out.Busy[b.Calendar.ID] = b.Busy
	}
	if len(keys) > 0 {
		if out.Invited, err = l.invitedBusy(ctx, viewer, inv, byID, v.Range); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// invitedBusy is the viewer's busy time in r from the invitations of in,
// in calendars not among read (whose busy time is counted whole already),
// as the agenda shows them (declined ones not at all), each accepted one as
// busy as its entry's transparency, others (tentative, not yet answered) as
// TENTATIVE.
func (l *Loaders) invitedBusy(ctx context.Context, viewer string, in *invitedLoads, read map[string]*calendar.Calendar, r calendar.Range) ([]calendar.BusyInterval, error) {
	opened := map[string]*calendar.Calendar{}
	for id, c := range read {
		opened[id] = c
	}
	entries, err := in.shown(ctx, l, opened)
	if err != nil || len(entries) == 0 {
		return nil, err
	}
	x, err := l.expand(entries, r, false)
	if err != nil {
		return nil, err
	}
	answers := map[calendar.EntryKey]calendar.Response{}
	for i, k := range in.keys {
		if a, err := in.attendees[i](); err == nil && a != nil {
			if e, err := in.entries[i](); err == nil && e != nil {
				answers[k] = a.At(e.Attendance.Epoch).Response
			}
		}
	}
	var marked []*calendar.Entry
	for _, occ := range x.Entries {
		if read[occ.CalendarID] != nil {
			continue
		}
		k := occ.Key()
		if occ.SeriesID != "" {
			k.EntryID = occ.SeriesID // an occurrence counts as its series was answered
		}
		resp := answers[k]
		if resp != calendar.ResponseAccepted && occ.Transparency() != calendar.TransparencyFree {
			c := *occ
			c.TransparencySet = calendar.TransparencyTentative
			occ = &c
		}
		marked = append(marked, occ)
	}
	return calendar.Busy(marked, r), nil
}
