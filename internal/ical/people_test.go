package ical_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/calgraph/calgraph/internal/calendar"
)

// people puts an organizer and five attendees, one of each answer and one
// waitlisted, on the fixture's timed entry: names with a comma, a colon, a
// semicolon, a double quote and a caret, which RFC 5545 §3.2 makes a
// parameter value quote (a DQUOTE it cannot hold: RFC 6868 escapes it).
func people(f *fixture) {
	f.timed.CreatedBy = "u-org"
	f.feed.Organizers = map[string]*calendar.User{"u-org": {ID: "u-org", Name: "Org: \"Boss\"", Email: "boss@example.com"}}
	f.feed.Attendees = map[string][]*calendar.Attendee{f.timed.ID: {
		{Email: "ann@example.com", DisplayName: "Doe, Ann", Response: calendar.ResponseAccepted, AdditionalGuests: 2},
		{Email: "bob@example.com", DisplayName: "Bob; \"the builder\"", Response: calendar.ResponseNeedsAction, Optional: true},
		{Email: "cy@example.com", Response: calendar.ResponseTentative},
		{Email: "di@example.com", DisplayName: "Di ^ caret", Response: calendar.ResponseDeclined},
		{Email: "ed@example.com", DisplayName: "Ed", Response: calendar.ResponseAccepted, Waitlisted: true, Ticket: 1},
	}}
}

// contentLines returns the unfolded lines of a document that start with one
// of the prefixes.
func contentLines(doc []byte, prefixes ...string) []string {
	var out []string
	for _, l := range strings.Split(strings.ReplaceAll(string(doc), "\r\n ", ""), "\r\n") {
		if slices.ContainsFunc(prefixes, func(p string) bool { return strings.HasPrefix(l, p) }) {
			out = append(out, l)
		}
	}
	return out
}

func TestEncodePeople(t *testing.T) {
	f := newFixture(t)
	people(&f)
	got := contentLines(encode(t, f.feed), "ORGANIZER", "ATTENDEE")
	want := []string{ // go-ical writes properties by name
		`ATTENDEE;CN="Doe, Ann";CUTYPE=INDIVIDUAL;PARTSTAT=ACCEPTED;ROLE=REQ-PARTICIPANT;X-NUM-GUESTS=2:mailto:ann@example.com`,
		`ATTENDEE;CN="Bob; ^'the builder^'";CUTYPE=INDIVIDUAL;PARTSTAT=NEEDS-ACTION;ROLE=OPT-PARTICIPANT;RSVP=TRUE:mailto:bob@example.com`,
		`ATTENDEE;CUTYPE=INDIVIDUAL;PARTSTAT=TENTATIVE;ROLE=REQ-PARTICIPANT:mailto:cy@example.com`,
		`ATTENDEE;CN=Di ^^ caret;CUTYPE=INDIVIDUAL;PARTSTAT=DECLINED;ROLE=REQ-PARTICIPANT:mailto:di@example.com`,
		`ATTENDEE;CN=Ed;CUTYPE=INDIVIDUAL;PARTSTAT=TENTATIVE;ROLE=REQ-PARTICIPANT;X-CALGRAPH-WAITLISTED=TRUE:mailto:ed@example.com`,
		`ORGANIZER;CN="Org: ^'Boss^'":mailto:boss@example.com`,
	}
	if !slices.Equal(got, want) {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// An organizer who is no longer a user (missing from Organizers) is left
// out; the attendees are still written.
func TestEncodePeopleWithoutOrganizer(t *testing.T) {
	f := newFixture(t)
	people(&f)
	f.feed.Organizers = nil
	got := contentLines(encode(t, f.feed), "ORGANIZER", "ATTENDEE")
	if len(got) != 5 || slices.ContainsFunc(got, func(l string) bool { return strings.HasPrefix(l, "ORGANIZER") }) {
		t.Errorf("got %q, want the 5 ATTENDEEs alone", got)
	}
}

// An entry without attendees has no ORGANIZER: apps would show it as an
// invitation.
func TestEncodeNoPeople(t *testing.T) {
	f := newFixture(t)
	f.feed.Organizers = map[string]*calendar.User{"": {Name: "Nobody", Email: "x@example.com"}}
	if got := contentLines(encode(t, f.feed), "ORGANIZER", "ATTENDEE"); len(got) != 0 {
		t.Errorf("got %q in a feed without attendees, want none", got)
	}
}
