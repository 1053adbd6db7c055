package dynamo_test

import (
	"fmt"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/calgraph/calgraph/internal/calendar"
)

// TestInvitedEntriesReadsAtMostMax: the agenda's read of a user's
// invitations reads at most max of them, newest first, declined ones
// included (whether a decline stands is the entry's answer epoch's to say,
// which the agenda reads with the entries), so that a user who declined
// thousands reads no more than max.
func TestInvitedEntriesReadsAtMostMax(t *testing.T) {
	f := newFixture(t)
	org, guest := f.user("org@example.com"), f.user("guest@example.com")
	cal := f.calendarOf(org, "Events")
	guestID, _ := calendar.ViewerID(guest)
	var ids []string // oldest invitation first
	for i := range 5 {
		start := time.Date(2026, 12, 1+i, 18, 0, 0, 0, time.UTC)
		e, _, err := f.store.CreateEntry(org, calendar.NewEntry{CalendarID: cal.ID, Title: "Talk",
			Timing: calendar.Timing{Timed: &calendar.TimedTiming{Start: start, End: start.Add(time.Hour), TimeZone: "UTC"}}})
		f.mustDo(err)
		_, err = f.store.ChangeAttendees(org, calendar.AttendeeDelta{Key: e.Key(), Add: []calendar.NewAttendee{{Email: "guest@example.com"}}})
		f.mustDo(err)
		ids = append(ids, e.ID)
		time.Sleep(2 * time.Millisecond) // invitations are keyed by the millisecond they were made
	}
	for _, i := range []int{2, 4} { // the newest and the middle one
		_, err := f.store.Respond(guest, calendar.RSVP{Key: calendar.EntryKey{CalendarID: cal.ID, EntryID: ids[i]}, ExpectedVersion: 1, Response: calendar.ResponseDeclined})
		f.mustDo(err)
	}
	for _, tc := range []struct {
		max  int
		want []string
	}{
		{10, []string{ids[4], ids[3], ids[2], ids[1], ids[0]}}, // declined ones too: the entry's epoch says whether a decline stands
		{3, []string{ids[4], ids[3], ids[2]}},
		{1, []string{ids[4]}},
	} {
		keys, err := f.store.InvitedEntries(guest, guestID, tc.max)
		f.mustDo(err)
		var got []string
		for _, k := range keys {
			got = append(got, k.EntryID)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("max %d: got %v, want %v", tc.max, got, tc.want)
		}
	}
}

// TestDeletingAnEntryOfMaxAttendees: an entry of calendar.MaxAttendees
// calgraph users is deleted in more than one transaction (each removal
// costs the attendee item and a record in the user's own log), and every
// attendee learns of it from their invitation changes.
func TestDeletingAnEntryOfMaxAttendees(t *testing.T) {
	f := newFixture(t)
	m := f.meeting(calendar.MaxAttendees, 0, false)
	tokens := make([]string, len(m.guests))
	for i, g := range m.guests {
		p, err := f.store.InvitationChanges(g, "", calendar.MaxChangePage)
		f.mustDo(err)
		if len(p.Changes) != 1 || p.More {
			t.Fatalf("guest %d's full read: got %+v, want their one invitation", i, p)
		}
		tokens[i] = p.Token
	}
	f.mustDo(f.store.DeleteEntry(m.organizer, m.entry.Key(), m.entry.Version))
	for i, g := range m.guests {
		p, err := f.store.InvitationChanges(g, tokens[i], calendar.MaxChangePage)
		f.mustDo(err)
		gone := false
		for _, c := range p.Changes {
			gone = gone || (c.Entry == m.entry.Key() && c.Removed)
		}
		if !gone {
			t.Errorf("guest %d: got %+v, want their invitation removed", i, p.Changes)
		}
	}
	f.consistent()
}

// TestRemovalsPastOneTransactionAreRefused: removing 25 seated attendees
// who each seat one waiting would take 104 actions with the attendees'
// own records: BAD_USER_INPUT, nothing written; fewer at a time pass.
func TestRemovalsPastOneTransactionAreRefused(t *testing.T) {
	f := newFixture(t)
	m := f.meeting(2*calendar.MaxAttendeeDelta, calendar.MaxAttendeeDelta, true)
	var seated []string
	for i, g := range m.guests {
		_, err := f.store.Respond(g, calendar.RSVP{Key: m.entry.Key(), ExpectedVersion: 1, Response: calendar.ResponseAccepted})
		f.mustDo(err)
		if i < calendar.MaxAttendeeDelta {
			seated = append(seated, fmt.Sprintf("guest%02d@example.com", i))
		}
	}
	before := f.items()
	_, err := f.store.ChangeAttendees(m.organizer, calendar.AttendeeDelta{Key: m.entry.Key(), Remove: seated})
	if calendar.ErrorCode(err) != calendar.CodeInvalid {
		t.Fatalf("25 removals seating 25: got %v, want BAD_USER_INPUT", err)
	}
	if after := f.items(); !reflect.DeepEqual(before, after) {
		t.Errorf("a refused change wrote %d items, had %d", len(after), len(before))
	}
	_, err = f.store.ChangeAttendees(m.organizer, calendar.AttendeeDelta{Key: m.entry.Key(), Remove: seated[:20]})
	f.mustDo(err)
	if s := f.entryNow(m).Attendance.Summary; s.Accepted != calendar.MaxAttendeeDelta || s.Waitlisted != 5 {
		t.Errorf("after 20 removals: got %+v, want 25 seated and 5 waiting", s)
	}
	f.consistent()
}
