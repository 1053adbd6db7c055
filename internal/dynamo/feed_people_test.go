package dynamo_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/calgraph/calgraph/internal/calendar"
	"github.com/calgraph/calgraph/internal/dynamo"
	"github.com/calgraph/calgraph/internal/dynamotest"
)

// TestFeedPeople: a feed holds the attendees of its single entries, with
// their answers, and their organizers; not those of an entry whose list is
// hidden. Reading them is one Query of the calendar's attendee items beside
// one BatchGetItem of organizers, whatever the number of entries: the
// feed's reads are pinned.
func TestFeedPeople(t *testing.T) {
	f := newFixture(t)
	m := f.meeting(3, 0, false)
	f.mustDo(f.respond(m, 0, calendar.ResponseAccepted))
	f.mustDo(f.respond(m, 1, calendar.ResponseDeclined))
	_, err := f.store.ChangeAttendees(m.organizer, calendar.AttendeeDelta{Key: m.entry.Key(),
		Add: []calendar.NewAttendee{{Email: "out@elsewhere.org", DisplayName: "Out, Side", Optional: true}}})
	f.mustDo(err)
	start := time.Date(2026, 12, 2, 18, 0, 0, 0, time.UTC)
	var hidden, second *calendar.Entry
	for i, e := range []**calendar.Entry{&hidden, &second} {
		*e, _, err = f.store.CreateEntry(m.organizer, calendar.NewEntry{CalendarID: m.cal.ID, Title: fmt.Sprint("More ", i),
			Timing: calendar.Timing{Timed: &calendar.TimedTiming{Start: start, End: start.Add(time.Hour), TimeZone: "UTC"}}})
		f.mustDo(err)
		_, err = f.store.ChangeAttendees(m.organizer, calendar.AttendeeDelta{Key: (*e).Key(), Add: []calendar.NewAttendee{{Email: "guest02@example.com"}}})
		f.mustDo(err)
	}
	_, _, err = f.store.UpdateEntry(m.organizer, calendar.EntryUpdate{Key: hidden.Key(), ExpectedVersion: hidden.Version, HideAttendees: calendar.Set(true)})
	f.mustDo(err)
	token, err := f.store.RotateFeed(m.organizer, m.cal.ID)
	f.mustDo(err)

	rec := &dynamo.Recorder{}
	s := dynamo.New(dynamotest.Client(t, dynamo.WithRecorder(rec)), f.store.Table(), engine)
	feed, err := s.Feed(context.Background(), token)
	f.mustDo(err)
	var got []string
	for _, id := range []string{m.entry.ID, hidden.ID, second.ID} {
		for _, a := range feed.Attendees[id] {
			got = append(got, fmt.Sprintf("%s %s %s %q %v", id, a.Email, a.Response, a.DisplayName, a.Optional))
		}
	}
	want := []string{
		m.entry.ID + ` guest00@example.com ACCEPTED "" false`,
		m.entry.ID + ` guest01@example.com DECLINED "" false`,
		m.entry.ID + ` guest02@example.com NEEDS_ACTION "" false`,
		m.entry.ID + ` out@elsewhere.org NEEDS_ACTION "Out, Side" true`,
		second.ID + ` guest02@example.com NEEDS_ACTION "" false`,
	}
	if !slices.Equal(got, want) {
		t.Errorf("feed attendees:\n%q\nwant (the hidden list left out)\n%q", got, want)
	}
	org := feed.Organizers[calendar.OrganizerOf(m.entry)]
	if len(feed.Organizers) != 1 || org == nil || org.Email != "org@example.com" {
		t.Errorf("feed organizers %+v, want org@example.com alone", feed.Organizers)
	}
	if ops := fmt.Sprint(opsOf(rec.Calls())); ops != "[GetItem BatchGetItem Query Query BatchGetItem]" && ops != "[GetItem Query BatchGetItem Query BatchGetItem]" &&
		ops != "[GetItem BatchGetItem Query BatchGetItem Query]" && ops != "[GetItem Query BatchGetItem BatchGetItem Query]" {
		t.Errorf("the feed's reads: %s, want the token's GetItem, the calendar's BatchGetItem and Query, then one Query of attendees and one BatchGetItem of organizers", ops)
	}
}

func (f *fixture) respond(m meeting, guest int, r calendar.Response) error {
	f.t.Helper()
	_, err := f.store.Respond(m.guests[guest], calendar.RSVP{Key: m.entry.Key(), ExpectedVersion: 1, Response: r})
	return err
}

// TestAddedWithAnAnswer: an import adds attendees with the answers its
// document gives: counted in the summary as answers are (Store.Check
// agrees when the test ends), refused on an entry with a capacity, whose
// seating only answers go through; a response that is none, or guests
// without an acceptance, are refused.
func TestAddedWithAnAnswer(t *testing.T) {
	f := newFixture(t)
	m := f.meeting(0, 0, false)
	e, err := f.store.ChangeAttendees(m.organizer, calendar.AttendeeDelta{Key: m.entry.Key(), Add: []calendar.NewAttendee{
		{Email: "ann@x.test", Response: calendar.ResponseAccepted, AdditionalGuests: 2}, {Email: "bob@x.test", Response: calendar.ResponseDeclined}, {Email: "cy@x.test"}}})
	f.mustDo(err)
	if got, want := e.Attendance.Summary, (calendar.AttendeeSummary{Accepted: 1, AcceptedGuests: 2, Declined: 1, NeedsAction: 1}); got != want {
		t.Errorf("summary %+v, want %+v", got, want)
	}
	m.entry = e
	for _, a := range f.answers(m) {
		if answered := a.Response != calendar.ResponseNeedsAction; answered == a.RespondedAt.IsZero() {
			t.Errorf("%s: %s answered at %v", a.Email, a.Response, a.RespondedAt)
		}
	}
	full := f.meeting(0, 5, true)
	for _, tc := range []struct {
		m meeting
		a calendar.NewAttendee
	}{
		{full, calendar.NewAttendee{Response: calendar.ResponseAccepted}},
		{m, calendar.NewAttendee{Response: "MAYBE"}},
		{m, calendar.NewAttendee{Response: calendar.ResponseTentative, AdditionalGuests: 1}},
	} {
		tc.a.Email = "dan@x.test"
		_, err = f.store.ChangeAttendees(tc.m.organizer, calendar.AttendeeDelta{Key: tc.m.entry.Key(), Add: []calendar.NewAttendee{tc.a}})
		wantCode(t, err, calendar.CodeInvalid)
	}
	if n := f.entryNow(full).Attendance.Summary.Total(); n != 0 {
		t.Errorf("%d attendees after refused additions, want none", n)
	}
	if n := f.entryNow(m).Attendance.Summary.Total(); n != 3 {
		t.Errorf("%d attendees after refused additions, want the 3 added before", n)
	}
}
