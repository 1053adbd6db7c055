package dynamo_test

import (
	"context"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/calgraph/calgraph/internal/calendar"
	"github.com/calgraph/calgraph/internal/dynamo"
	"github.com/calgraph/calgraph/internal/dynamotest"
	"github.com/calgraph/calgraph/internal/recurrence"
)

// TestSearchFindsAttendees: an attendee's display name and the local part
// of their email find their entries and series right after they are
// invited, on the writing instance, on a second one whose index was built
// before, and on a third that builds its index then; an answer keeps them found; removed, they no longer find
// it. Whoever may not see the entry's attendees does not find it by them.
func TestSearchFindsAttendees(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	other := dynamo.New(f.db, f.store.Table(), recurrence.Engine{})
	ada, bob, cy := f.user("ada@example.com"), f.user("bob@example.com"), f.user("cy@example.com")
	di := f.user("di.okafor@example.com")
	cal := f.calendarOf(ada, "Team")
	f.share(ada, cal, bob, "bob@example.com", calendar.RoleReader)
	f.share(ada, cal, cy, "cy@example.com", calendar.RoleFreeBusy)
	review, _, err := f.store.CreateEntry(ada, calendar.NewEntry{CalendarID: cal.ID, Title: "Quarterly review", Timing: soon(2)})
	f.mustDo(err)
	standup, _, err := f.store.CreateEntry(ada, calendar.NewEntry{CalendarID: cal.ID, Title: "Standup", Timing: soon(1),
		Recurrence: &calendar.Recurrence{Rule: "FREQ=DAILY;COUNT=30"}})
	f.mustDo(err)
	secret, _, err := f.store.CreateEntry(ada, calendar.NewEntry{CalendarID: cal.ID, Title: "Hiring plan", Timing: soon(3),
		Visibility: calendar.VisibilityPrivate})
	f.mustDo(err)
	want := func(step string, who context.Context, q string, titles ...string) {
		t.Helper()
		fresh := dynamo.New(f.db, f.store.Table(), recurrence.Engine{}) // builds its index now
		for i, s := range []*dynamo.Store{f.store, other, fresh} {
			got := found(t, s, who, text(q))
			slices.Sort(got)
			if !slices.Equal(got, titles) {
				t.Errorf("%s: store %d finds %q for %q, want %q", step, i, got, q, titles)
			}
		}
	}
	want("before", ada, "scully") // both indexes built before the invitations

	add := func(key calendar.EntryKey, people ...calendar.NewAttendee) {
		t.Helper()
		_, err := f.store.ChangeAttendees(ada, calendar.AttendeeDelta{Key: key, Add: people})
		f.mustDo(err)
	}
	dana := calendar.NewAttendee{Email: "dana.scully@fbi.example", DisplayName: "Dana Scully"}
	add(review.Key(), dana, calendar.NewAttendee{Email: "di.okafor@example.com"})
	add(standup.Key(), calendar.NewAttendee{Email: "fox.mulder@fbi.example", DisplayName: "Fox Mülder"})
	add(secret.Key(), dana)
	want("invited", ada, "scully", "Hiring plan", "Quarterly review")
	want("invited", ada, "dana", "Hiring plan", "Quarterly review") // name and email alike
	want("invited", ada, "okafor", "Quarterly review")              // an email's local part, without a name
	want("invited", ada, "MULDER", "Standup")                       // a series, folded
	want("invited", ada, "fbi")                                     // not by an email's domain
	want("invited", ada, "quarterly scully", "Quarterly review")    // text and people together
	want("a reader", bob, "scully", "Quarterly review")             // not the PRIVATE entry's people
	want("free/busy", cy, "scully")
	want("invited elsewhere", di, "scully") // an invitee who is no member searches no calendar of it

	p, err := other.Search(ada, text("quarterly scully"))
	f.mustDo(err)
	wantHL := []calendar.SearchHighlight{
		{Field: calendar.SearchTitle, Start: 0, Length: 9},
		{Field: calendar.SearchAttendeeName, AttendeeEmail: "dana.scully@fbi.example", Start: 5, Length: 6},
		{Field: calendar.SearchAttendeeEmail, AttendeeEmail: "dana.scully@fbi.example", Start: 5, Length: 6},
	}
	if len(p.Hits) != 1 {
		t.Fatalf("got %d hits, want 1", len(p.Hits))
	}
	if diff := cmp.Diff(wantHL, p.Hits[0].Highlights); diff != "" {
		t.Errorf("highlights (-want +got):\n%s", diff)
	}
	if got, want := p.Hits[0].Score, 9+2; got != want { // title, whole word; attendee, whole word
		t.Errorf("score %d, want %d", got, want)
	}
	p, err = f.store.Search(ada, text("mulder"))
	f.mustDo(err)
	if len(p.Hits) != 1 || len(p.Hits[0].Highlights) != 2 || p.Hits[0].Highlights[0].AttendeeEmail != "fox.mulder@fbi.example" {
		t.Errorf("the series' highlights: %+v", p.Hits)
	}

	// An answer rewrites the entry's summary: its people are read again, the same.
	own, err := f.store.Attendance(di, review.Key())
	f.mustDo(err)
	_, err = f.store.Respond(di, calendar.RSVP{Key: review.Key(), ExpectedVersion: own.Version, Response: calendar.ResponseAccepted})
	f.mustDo(err)
	want("answered", ada, "okafor", "Quarterly review")

	for _, key := range []calendar.EntryKey{review.Key(), secret.Key()} {
		_, err = f.store.ChangeAttendees(ada, calendar.AttendeeDelta{Key: key, Remove: []string{"dana.scully@fbi.example"}})
		f.mustDo(err)
	}
	want("removed", ada, "scully")
	want("removed", ada, "okafor", "Quarterly review")
}

// TestSearchInvitedReader: a READER invited to a PRIVATE entry finds it by
// its words (and its people) as Entry shows it to them, whole; not before
// the invitation, not after it is withdrawn. A private series likewise.
func TestSearchInvitedReader(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	other := dynamo.New(f.db, f.store.Table(), recurrence.Engine{})
	ada, bob := f.user("ada@example.com"), f.user("bob@example.com")
	cal := f.calendarOf(ada, "Team")
	f.share(ada, cal, bob, "bob@example.com", calendar.RoleReader)
	talk, _, err := f.store.CreateEntry(ada, calendar.NewEntry{CalendarID: cal.ID, Title: "Salary talk", Timing: soon(2),
		Visibility: calendar.VisibilityPrivate})
	f.mustDo(err)
	oneOnOne, _, err := f.store.CreateEntry(ada, calendar.NewEntry{CalendarID: cal.ID, Title: "Mentoring", Timing: soon(1),
		Visibility: calendar.VisibilityPrivate, Recurrence: &calendar.Recurrence{Rule: "FREQ=WEEKLY;COUNT=10"}})
	f.mustDo(err)
	want := func(step, q string, titles ...string) {
		t.Helper()
		fresh := dynamo.New(f.db, f.store.Table(), recurrence.Engine{}) // builds its index now
		for i, s := range []*dynamo.Store{f.store, other, fresh} {
			got := found(t, s, bob, text(q))
			slices.Sort(got)
			if !slices.Equal(got, titles) {
				t.Errorf("%s: store %d finds %q for %q, want %q", step, i, got, q, titles)
			}
		}
	}
	want("not invited", "salary")
	want("not invited", "mentoring")
	for _, key := range []calendar.EntryKey{talk.Key(), oneOnOne.Key()} {
		_, err = f.store.ChangeAttendees(ada, calendar.AttendeeDelta{Key: key, Add: []calendar.NewAttendee{{Email: "bob@example.com", DisplayName: "Bob"}}})
		f.mustDo(err)
	}
	want("invited", "salary", "Salary talk")
	want("invited", "mentoring", "Mentoring")
	want("invited", "bob", "Mentoring", "Salary talk")
	_, err = f.store.ChangeAttendees(ada, calendar.AttendeeDelta{Key: talk.Key(), Remove: []string{"bob@example.com"}})
	f.mustDo(err)
	want("withdrawn", "salary")
	want("withdrawn", "mentoring", "Mentoring") // the series' invitation stands
}

// TestSearchReadsOnlyChangedAttendees: a catch-up reads the attendees of a
// changed entry only when they changed (its attendance revision rose), not
// for an edit of its text, nor for records the log returns again within
// its 30 s window.
func TestSearchReadsOnlyChangedAttendees(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	rec := &dynamo.Recorder{}
	s := dynamo.New(dynamotest.Client(t, dynamo.WithRecorder(rec)), f.store.Table(), recurrence.Engine{})
	ada := f.user("ada@example.com")
	cal := f.calendarOf(ada, "Team")
	e, _, err := f.store.CreateEntry(ada, calendar.NewEntry{CalendarID: cal.ID, Title: "Review", Timing: soon(2)})
	f.mustDo(err)
	e, err = f.store.ChangeAttendees(ada, calendar.AttendeeDelta{Key: e.Key(), Add: []calendar.NewAttendee{{Email: "dana.scully@fbi.example"}}})
	f.mustDo(err)
	queries := func(step, q string, want int) {
		t.Helper()
		rec.Reset()
		if got := found(t, s, ada, text(q)); len(got) != 1 {
			t.Errorf("%s: %q finds %q", step, q, got)
		}
		n := 0
		for _, c := range rec.Calls() {
			if c.Op == "Query" && c.Index == "" {
				n++
			}
		}
		if n != want {
			t.Errorf("%s: %d Queries of the table, want %d", step, n, want)
		}
	}
	queries("build", "scully", 3) // the entries, the attendees, and the log
	_, _, err = f.store.UpdateEntry(ada, calendar.EntryUpdate{Key: e.Key(), ExpectedVersion: e.Version, Title: calendar.Set("Retro")})
	f.mustDo(err)
	queries("a new title", "retro scully", 1) // the log
	queries("nothing new", "retro scully", 1) // the log, the records again
	_, err = f.store.ChangeAttendees(ada, calendar.AttendeeDelta{Key: e.Key(), Add: []calendar.NewAttendee{{Email: "fox.mulder@fbi.example"}}})
	f.mustDo(err)
	queries("an attendee more", "retro mulder", 2) // the log and the entry's attendees
	queries("nothing new", "retro mulder", 1)
}
