package dynamo_test

import (
	"context"
	"testing"
	"time"

	"github.com/calgraph/calgraph/internal/calendar"
	"github.com/calgraph/calgraph/internal/dynamo"
)

// TestDeletedAccountLeavesInvitations: deleting an account takes its user
// off the entries they were invited to, as a writer's removal would: their
// attendee item goes (it held their email and comment), the summary loses
// their answer, and the place their acceptance held seats the first
// waiting; other attendees keep their answers, and Store.Check agrees.
func TestDeletedAccountLeavesInvitations(t *testing.T) {
	f := newFixture(t)
	m := f.meeting(3, 1, true)
	seated, err := f.store.Respond(m.guests[0], accept(m, 0))
	f.mustDo(err)
	waiting, err := f.store.Respond(m.guests[1], accept(m, 1))
	f.mustDo(err)
	if seated.Waitlisted || !waiting.Waitlisted {
		t.Fatalf("before: seated %+v, waiting %+v", seated, waiting)
	}
	if _, _, err := f.store.DeleteAccount(m.guests[0], "guest00@example.com"); err != nil {
		t.Fatal(err)
	}
	// The deletion's last look, after the grace period, catches what GSI1
	// had not shown yet (here nothing is left for it).
	later := dynamo.New(f.db, f.store.Table(), engine, dynamo.WithClock(func() time.Time { return time.Now().Add(2 * time.Minute) }))
	if _, err := later.ResumeDeletions(context.Background()); err != nil {
		t.Fatal(err)
	}

	got := map[string]string{}
	for _, a := range f.answers(m) {
		state := string(a.Response)
		if a.Waitlisted {
			state += " waiting"
		}
		got[a.Email] = state
	}
	want := map[string]string{"guest01@example.com": "ACCEPTED", "guest02@example.com": "NEEDS_ACTION"}
	if len(got) != len(want) || got["guest01@example.com"] != want["guest01@example.com"] || got["guest02@example.com"] != want["guest02@example.com"] {
		t.Errorf("attendees after the account's deletion: %v, want %v", got, want)
	}
	if s := f.entryNow(m).Attendance.Summary; s != (calendar.AttendeeSummary{NeedsAction: 1, Accepted: 1}) {
		t.Errorf("summary after the account's deletion: %+v, want one accepted, one to answer", s)
	}
	if n := f.countEntities()["ATTENDEE"]; n != 2 {
		t.Errorf("%d attendee items left, want 2", n)
	}
}

// TestDeletedAccountLeavesASeries: a series attendee who answered the
// series and single occurrences apart leaves with their account: their
// item goes, and so do the counts their occurrence answers kept on the
// master (Store.Check recounts them).
func TestDeletedAccountLeavesASeries(t *testing.T) {
	f := newFixture(t)
	m := f.dailyMeeting(2)
	_, err := f.answer(m, m.guests[0], 0, calendar.ScopeAll, calendar.ResponseAccepted)
	f.mustDo(err)
	_, err = f.answer(m, m.guests[0], 9, calendar.ScopeThis, calendar.ResponseDeclined)
	f.mustDo(err)
	_, err = f.answer(m, m.guests[0], 12, calendar.ScopeThisAndFollowing, calendar.ResponseTentative)
	f.mustDo(err)
	if _, _, err := f.store.DeleteAccount(m.guests[0], "guest00@example.com"); err != nil {
		t.Fatal(err)
	}
	f.consistent()
	if n := f.countEntities()["ATTENDEE"]; n != 1 {
		t.Errorf("%d attendee items left, want guest01's", n)
	}
	att := f.entryNow(m).Attendance
	if att.Summary != (calendar.AttendeeSummary{NeedsAction: 1}) {
		t.Errorf("the series' summary: %+v, want guest01 alone", att.Summary)
	}
	for k, s := range att.Shares {
		if s != (calendar.AttendeeSummary{}) {
			t.Errorf("the share of %v is left: %+v", k, s)
		}
	}
}
