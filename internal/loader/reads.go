package loader

import (
	"context"

	"github.com/calgraph/calgraph/internal/calendar"
)

// The authorized reads. Each says who may see what.

// Viewer returns the signed-in user.
func (l *Loaders) Viewer(ctx context.Context) (*calendar.User, error) {
	id, err := calendar.ViewerID(ctx)
	if err != nil {
		return nil, err
	}
	return l.User(ctx, id)
}

// User returns a user the viewer may see: through node(id) only themself, since
// other users are reached through memberships (UserOf).
func (l *Loaders) User(ctx context.Context, id string) (*calendar.User, error) {
	viewer, err := calendar.ViewerID(ctx)
	if err != nil {
		return nil, err
	}
	if id != viewer {
		return nil, calendar.Errorf(calendar.CodeNotFound, "user not found")
	}
	u, err := l.loadUser(ctx, id)()
	if err == nil && u == nil {
		err = calendar.Errorf(calendar.CodeUnauthenticated, "your account no longer exists")
	}
	return u, err
}

// batchGetLimit is how many keys one BatchGetItem call reads.
const batchGetLimit = 100

// ViewerRole returns the viewer's role on a calendar: RoleInvited when they
// are no member but this request showed them an entry of it they are
// invited to (reach), else CodeNotFound for a non-member (existence is not
// revealed).
func (l *Loaders) ViewerRole(ctx context.Context, calendarID string) (calendar.Role, error) {
	m, err := l.viewerMembership(ctx, calendarID)
	if calendar.ErrorCode(err) == calendar.CodeNotFound && l.reachedByInvitation(calendarID) {
		return calendar.RoleInvited, nil
	}
	if err != nil {
		return "", err
	}
	return m.Role, nil
}

// ViewerDefaultReminders returns the viewer's default reminders on a
// calendar (their calendar settings): none when they are no member (an
// invited viewer has their own reminders only). The membership is the one
// a view reads to authorize it: no read of its own.
func (l *Loaders) ViewerDefaultReminders(ctx context.Context, calendarID string) ([]calendar.Reminder, error) {
	m, err := l.viewerMembership(ctx, calendarID)
	if calendar.ErrorCode(err) == calendar.CodeNotFound {
		return nil, nil
	}
	if err != nil || m.Settings == nil {
		return nil, err
	}
	return m.Settings.DefaultReminders, nil
}

func (l *Loaders) viewerMembership(ctx context.Context, calendarID string) (*calendar.Membership, error) {
	viewer, err := calendar.ViewerID(ctx)
	if err != nil {
		return nil, err
	}
	if err := calendar.ValidateID("id", calendarID); err != nil {
		return nil, calendar.Errorf(calendar.CodeNotFound, "calendar not found")
	}
	m, err := l.loadMembership(ctx, calendar.MembershipKey{CalendarID: calendarID, UserID: viewer})()
	if err != nil {
		return nil, err
	}
	if m == nil {
		return nil, calendar.Errorf(calendar.CodeNotFound, "calendar not found")
	}
	return m, nil
}

// viewerCan returns the viewer's membership of a calendar when their role
// allows a: CodeNotFound for a non-member, CodeForbidden for a member whose
// role does not allow it (a FREE_BUSY member reading entries, say).
func (l *Loaders) viewerCan(ctx context.Context, calendarID string, a calendar.Action) (*calendar.Membership, error) {
	m, err := l.viewerMembership(ctx, calendarID)
	if err != nil {
		return nil, err
	}
	if !m.Role.Can(a) {
		return nil, calendar.Errorf(calendar.CodeForbidden, "your role on this calendar (%s) cannot %s", m.Role, a)
	}
	return m, nil
}

// viewerCanAll checks that the viewer's role allows a on every calendar of
// ids, with all the memberships read in one batch.
func (l *Loaders) viewerCanAll(ctx context.Context, ids []string, a calendar.Action) error {
	viewer, err := calendar.ViewerID(ctx)
	if err != nil {
		return err
	}
	checks := make([]func() (*calendar.Membership, error), len(ids))
	for i, id := range ids {
		checks[i] = l.loadMembership(ctx, calendar.MembershipKey{CalendarID: id, UserID: viewer})
	}
	for _, check := range checks {
		m, err := check()
		if err != nil || m == nil {
			return calendar.ErrorOr(err, calendar.Errorf(calendar.CodeNotFound, "calendar not found"))
		}
		if !m.Role.Can(a) {
			return calendar.Errorf(calendar.CodeForbidden, "your role on calendar %s (%s) cannot %s", m.CalendarID, m.Role, a)
		}
	}
	return nil
}

// Calendar returns a calendar the viewer is a member of, in any role: its
// name, color and zone, not what it holds. The membership and the
// calendar are loaded concurrently, in one round trip.
func (l *Loaders) Calendar(ctx context.Context, id string) (*calendar.Calendar, error) {
	if err := calendar.ValidateID("id", id); err != nil {
		return nil, calendar.Errorf(calendar.CodeNotFound, "calendar not found")
	}
	calThunk := l.loadCalendar(ctx, id)
	if _, err := l.viewerMembership(ctx, id); err != nil {
		return nil, err
	}
	c, err := calThunk()
	if err == nil && c == nil {
		err = calendar.Errorf(calendar.CodeNotFound, "calendar not found")
	}
	return c, err
}

// Membership returns a membership of a calendar the viewer reads, or the
// viewer's own; the calendar must still exist.
func (l *Loaders) Membership(ctx context.Context, key calendar.MembershipKey) (*calendar.Membership, error) {
	if err := calendar.ValidateID("id", key.UserID); err != nil {
		return nil, calendar.Errorf(calendar.CodeNotFound, "membership not found")
	}
	thunk := l.loadMembership(ctx, key)
	if _, err := l.Calendar(ctx, key.CalendarID); err != nil {
		return nil, err
	}
	if viewer, _ := calendar.ViewerID(ctx); key.UserID != viewer {
		if _, err := l.viewerCan(ctx, key.CalendarID, calendar.ActionRead); err != nil {
			return nil, err
		}
	}
	m, err := thunk()
	if err == nil && m == nil {
		err = calendar.Errorf(calendar.CodeNotFound, "membership not found")
	}
	return m, err
}

// ViewerCalendars returns a page of the viewer's memberships in their list's
// order (calendar.ListPage), hidden ones only when includeHidden. GSI1 lists
// them all (at most maxListed, with their settings: one Query, as a page of
// them was), eventually consistently; the page's memberships are then read
// again, strongly, with their calendars, in ⌈2n/100⌉ BatchGetItem calls of
// one wave, so that a role changed or a membership removed or hidden a
// moment ago is not taken for the current one (the page's checks use it),
// and the page's calendar fields cost no read of their own; the viewer
// (whose preferences entry views default to) rides along when the last call
// has room. It leaves out memberships gone meanwhile, and those whose
// calendar was deleted and not yet cleaned up.
func (l *Loaders) ViewerCalendars(ctx context.Context, p calendar.Page, includeHidden bool) (*calendar.MembershipPage, error) {
	viewer, err := calendar.ViewerID(ctx)
	if err != nil {
		return nil, err
	}
	if err := p.Validate(); err != nil {
		return nil, err
	}
	all, err := l.reader.AllMembershipsOfUser(ctx, viewer, maxListed)
	if err != nil {
		return nil, err
	}
	page, err := calendar.ListPage(all, includeHidden, p)
	if err != nil {
		return nil, err
	}
	var k calendar.Keys
	for _, m := range page.Memberships {
		k.Calendars = append(k.Calendars, m.CalendarID)
		k.Memberships = append(k.Memberships, m.Key())
	}
	if (len(k.Calendars)+len(k.Memberships))%batchGetLimit != 0 {
		k.Users = []string{viewer}
	}
	found, err := l.read(ctx, k)
	if err != nil {
		return nil, err
	}
	if u := found.Users[viewer]; u != nil {
		l.PrimeUser(ctx, u)
	}
	kept := &calendar.MembershipPage{HasNextPage: page.HasNextPage, EndCursor: page.EndCursor}
	for i, listed := range page.Memberships {
		m, c := found.Memberships[listed.Key()], found.Calendars[listed.CalendarID]
		if m == nil || c == nil || (m.Settings != nil && m.Settings.Hidden && !includeHidden) {
			continue
		}
		l.PrimeMembership(ctx, m)
		l.PrimeCalendar(ctx, c)
		kept.Memberships = append(kept.Memberships, m)
		kept.Cursors = append(kept.Cursors, page.Cursors[i])
	}
	return kept, nil
}

// Members returns a page of a calendar's memberships, to members who read it.
// Their users are requested at once, so the page's user fields share one batch.
func (l *Loaders) Members(ctx context.Context, cal *calendar.Calendar, p calendar.Page) (*calendar.MembershipPage, error) {
	if _, err := l.viewerCan(ctx, cal.ID, calendar.ActionRead); err != nil {
		return nil, err
	}
	page, err := l.reader.MembershipsOfCalendar(ctx, l.scope, cal, p)
	if err != nil {
		return nil, err
	}
	viewer, _ := calendar.ViewerID(ctx)
	for _, m := range page.Memberships {
		if m.UserID != viewer { // the page leaves settings out: the viewer's own is read with them
			l.PrimeMembership(ctx, m)
		}
		l.loadUser(ctx, m.UserID) // start the batch; UserOf waits
	}
	return page, nil
}

// maxListed bounds the memberships the viewer's list orders: the calendars
// one user can be a member of and see in their list.
const maxListed = 5 * calendar.MaxPageSize

// CalendarOf returns the calendar of a membership the viewer was shown.
func (l *Loaders) CalendarOf(ctx context.Context, m *calendar.Membership) (*calendar.Calendar, error) {
	c, err := l.loadCalendar(ctx, m.CalendarID)()
	if err == nil && c == nil {
		err = calendar.Errorf(calendar.CodeNotFound, "calendar not found")
	}
	return c, err
}

// UserOf returns the user of a membership the viewer was shown: members of a
// calendar see each other.
func (l *Loaders) UserOf(ctx context.Context, m *calendar.Membership) (*calendar.User, error) {
	u, err := l.loadUser(ctx, m.UserID)()
	if err == nil && u == nil {
		err = calendar.Errorf(calendar.CodeNotFound, "user not found")
	}
	return u, err
}

// UserOnEntry returns a user an entry names (its organizer, its creator, an
// attendee), batched with the request's other user reads. The caller holds
// the entry, so the viewer may read it and see who is on it; a user since
// deleted is nil.
func (l *Loaders) UserOnEntry(ctx context.Context, id string) (*calendar.User, error) {
	return l.loadUser(ctx, id)()
}

// Invitations returns a page of a calendar's invitations, to its owners.
func (l *Loaders) Invitations(ctx context.Context, calendarID string, p calendar.Page) (*calendar.InvitationPage, error) {
	if _, err := l.viewerCan(ctx, calendarID, calendar.ActionManage); err != nil {
		return nil, err
	}
	return l.reader.InvitationsOfCalendar(ctx, calendarID, p)
}
