package dynamo_test

import (
	"slices"
	"testing"
	"time"

	"github.com/calgraph/calgraph/internal/calendar"
)

// TestInvitedEntriesReadsAtMostMax: the agenda's read of a user's
// invitations leaves the declined ones out but counts them against its
// bound, newest first, so that a user who declined thousands reads no
// more than max.
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
		{10, []string{ids[3], ids[1], ids[0]}},
		{3, []string{ids[3]}}, // the newest three: 4 (declined), 3, 2 (declined)
		{1, nil},
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
