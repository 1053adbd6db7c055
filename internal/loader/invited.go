package loader

import (
	"context"

	"github.com/calgraph/calgraph/internal/calendar"
)

// What an invitation to an entry opens to a viewer who is no member of its
// calendar: that entry, and the calendar as a FREE_BUSY member sees it, with
// the role calendar.RoleInvited. Nothing else of the calendar: every other
// read here checks a membership.

// invited reports whether the viewer is invited to an entry, which lets
// them read that entry (and only it) without reading its calendar: a read
// of its own, made only when the viewer's role does not allow the entry.
func (l *Loaders) invited(ctx context.Context, key calendar.EntryKey) bool {
	viewer, err := calendar.ViewerID(ctx)
	if err != nil {
		return false
	}
	a, err := l.loadAttendee(ctx, calendar.AttendeeKey{Entry: key, UserID: viewer})()
	return err == nil && a != nil
}

// reach records that this request showed the viewer an entry of a calendar
// by invitation: ViewerRole then answers RoleInvited for it instead of
// NOT_FOUND. The calendar's existence is no secret to whoever read one of
// its entries; the record lives as long as the request's loaders.
func (l *Loaders) reach(calendarID string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.reached == nil {
		l.reached = map[string]bool{}
	}
	l.reached[calendarID] = true
}

// reachedByInvitation reports whether reach recorded the calendar.
func (l *Loaders) reachedByInvitation(calendarID string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.reached[calendarID]
}
