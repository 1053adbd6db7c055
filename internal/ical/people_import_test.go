package ical_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/calgraph/calgraph/internal/calendar"
	"github.com/calgraph/calgraph/internal/ical"
)

// event is a VEVENT on 5 January 2026 with the given UID and extra lines.
func event(uid string, lines ...string) []string {
	out := []string{"BEGIN:VEVENT", "UID:" + uid, "DTSTAMP:20260101T000000Z", "DTSTART:20260105T090000Z",
		"DTEND:20260105T100000Z", "SUMMARY:" + uid}
	return append(append(out, lines...), "END:VEVENT")
}

// attendeeLines returns n ATTENDEE lines of people p0@x.test, p1@x.test….
func attendeeLines(n int) []string {
	var out []string
	for i := range n {
		out = append(out, fmt.Sprintf("ATTENDEE:mailto:p%d@x.test", i))
	}
	return out
}

// TestImportPeople: a single event's ORGANIZER and ATTENDEEs are kept with
// their answers (PARTSTAT), names (CN, RFC 6868 escapes undone), roles and
// guests; what calgraph cannot keep is noted; a series keeps them too (its
// answers answer all of it), its exception's answers to one occurrence are
// not kept (noted); more than MaxAttendees is an error for that event alone.
func TestImportPeople(t *testing.T) {
	var doc []string
	doc = append(doc, event("meet",
		`ORGANIZER;CN="Boss: ^'the^' one":mailto:Boss@Calgraph.test`,
		`ATTENDEE;CN="Doe, Ann";PARTSTAT=ACCEPTED;X-NUM-GUESTS=2:MAILTO:ann@x.test`,
		`ATTENDEE;ROLE=OPT-PARTICIPANT;PARTSTAT=TENTATIVE;RSVP=TRUE:mailto:bob@x.test`,
		`ATTENDEE;PARTSTAT=DELEGATED;DELEGATED-TO="mailto:di@x.test":mailto:cy@x.test`,
		`ATTENDEE;PARTSTAT=DECLINED:mailto:di@x.test`,
		`ATTENDEE;PARTSTAT=ACCEPTED:mailto:ANN@x.test`,
		`ATTENDEE;CN=Room:urn:uuid:1234`,
		`ATTENDEE;X-NUM-GUESTS=99:mailto:ed@x.test`,
		`ATTENDEE;PARTSTAT=TENTATIVE;X-NUM-GUESTS=1:mailto:fay@x.test`,
		`ATTENDEE;PARTSTAT=DECLINED;X-NUM-GUESTS=0:mailto:gus@x.test`)...)
	doc = append(doc, event("outsider", "ORGANIZER:mailto:someone@elsewhere.org", "ATTENDEE:mailto:ann@x.test")...)
	doc = append(doc, event("crowd", attendeeLines(calendar.MaxAttendees+1)...)...)
	doc = append(doc, event("big", attendeeLines(30)...)...)
	doc = append(doc, event("series", "RRULE:FREQ=DAILY;COUNT=3", "ORGANIZER:mailto:boss@elsewhere.org", "ATTENDEE;PARTSTAT=ACCEPTED:mailto:ann@x.test")...)
	doc = append(doc, "BEGIN:VEVENT", "UID:series", "DTSTAMP:20260101T000000Z", "RECURRENCE-ID:20260106T090000Z", "DTSTART:20260106T110000Z",
		"DTEND:20260106T120000Z", "SUMMARY:series (moved)", "ORGANIZER:mailto:boss@elsewhere.org", "ATTENDEE;PARTSTAT=DECLINED:mailto:ann@x.test", "ATTENDEE:mailto:zed@x.test", "END:VEVENT")
	doc = append(doc, "BEGIN:VEVENT", "UID:series", "DTSTAMP:20260101T000000Z", "RECURRENCE-ID:20260107T090000Z", "DTSTART:20260107T090000Z",
		"DTEND:20260107T100000Z", "SUMMARY:series", "ORGANIZER:mailto:other@elsewhere.org", "ATTENDEE;PARTSTAT=ACCEPTED:mailto:ann@x.test", "END:VEVENT")
	imp := decode(t, document(doc...))
	svc := &service{}
	rep, err := ical.Apply(context.Background(), svc, "cal", imp)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := svc.created, []string{"meet", "outsider", "big", "series"}; !slices.Equal(got, want) {
		t.Errorf("created %q, want %q (not crowd)", got, want)
	}
	var big []string
	for i := range 30 {
		big = append(big, fmt.Sprintf(` p%d@x.test:NEEDS_ACTION:"":false:0`, i))
	}
	want := []string{
		`invite meet ann@x.test:ACCEPTED:"Doe, Ann":false:2 bob@x.test:TENTATIVE:"":true:0 cy@x.test:NEEDS_ACTION:"":false:0` +
			` di@x.test:DECLINED:"":false:0 ed@x.test:NEEDS_ACTION:"":false:0 fay@x.test:TENTATIVE:"":false:0 gus@x.test:DECLINED:"":false:0`,
		"organizer meet boss@calgraph.test",
		`invite outsider ann@x.test:NEEDS_ACTION:"":false:0`,
		"invite big" + strings.Join(big[:calendar.MaxAttendeeDelta], ""),
		"invite big" + strings.Join(big[calendar.MaxAttendeeDelta:], ""),
		"change series 2026-01-06",
		"change series 2026-01-07",
		`invite series ann@x.test:ACCEPTED:"":false:0+2026-01-06T09:00:00Z=DECLINED`,
	}
	if !slices.Equal(svc.writes, want) {
		t.Errorf("writes\n%s\nwant\n%s", strings.Join(svc.writes, "\n"), strings.Join(want, "\n"))
	}
	var notes []string
	for _, e := range rep.Errors {
		notes = append(notes, fmt.Sprintf("%d %v %s", e.Index, e.Imported, e.Message))
	}
	wantNotes := []string{
		"0 true ATTENDEE cy@x.test has PARTSTAT=DELEGATED, read as NEEDS_ACTION; ATTENDEE ann@x.test is listed twice; the first is kept; " +
			`ATTENDEE "urn:uuid:1234" is not an email address; left out; ATTENDEE ed@x.test has X-NUM-GUESTS=99; calgraph keeps 0 to 10 additional guests; ` +
			"ATTENDEE fay@x.test brings 1 guest(s) without accepting; left out",
		"1 true ORGANIZER someone@elsewhere.org is not a calgraph user: you organize the entry",
		"2 false the event has 101 attendees; an entry has at most 100",
		"4 true ORGANIZER boss@elsewhere.org is not a calgraph user: you organize the entry",
		"5 true ATTENDEE zed@x.test is on one occurrence only; left out: calgraph keeps one list per series",
		"6 true ORGANIZER other@elsewhere.org of one occurrence left out: a series has one organizer",
	}
	if !slices.Equal(notes, wantNotes) {
		t.Errorf("notes\n%s\nwant\n%s", strings.Join(notes, "\n"), strings.Join(wantNotes, "\n"))
	}
}

// TestImportPeopleNames: a CN written with RFC 6868's escapes reads back
// as the name the feed wrote, and a CN calgraph refuses as a name is left
// out (the attendee kept).
func TestImportPeopleNames(t *testing.T) {
	imp := decode(t, document(event("a",
		`ATTENDEE;CN="Bob; ^'the builder^' ^^":mailto:bob@x.test`,
		`ATTENDEE;CN="`+strings.Repeat("n", calendar.MaxNameLength+1)+`":mailto:cy@x.test`)...))
	got := imp.Items[0].Attendees
	want := []calendar.NewAttendee{{Email: "bob@x.test", DisplayName: `Bob; "the builder" ^`, Response: calendar.ResponseNeedsAction},
		{Email: "cy@x.test", Response: calendar.ResponseNeedsAction}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v, want %+v", got, want)
	}
}

// TestImportPeopleRefused: an attendee write the service refuses for that
// entry alone is noted and the import goes on; the store failing stops it,
// and the report still lists the entry created (or a retry would create it
// again).
func TestImportPeopleRefused(t *testing.T) {
	var doc []string
	doc = append(doc, event("gone", attendeeLines(30)...)...)
	doc = append(doc, event("next", "ATTENDEE:mailto:ann@x.test")...)
	imp := decode(t, document(doc...))
	svc := &service{refuse: map[string]error{"p25@x.test": calendar.Errorf(calendar.CodeNotFound, "entry not found")}}
	rep, err := ical.Apply(context.Background(), svc, "cal", imp)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Created) != 2 || len(rep.Errors) != 1 || rep.Errors[0].Message != "imported without 5 of its attendees: entry not found" || !rep.Errors[0].Imported {
		t.Errorf("created %d, errors %+v; want both, gone noted as imported without 5 attendees", len(rep.Created), rep.Errors)
	}
	svc = &service{refuse: map[string]error{"p25@x.test": errors.New("DynamoDB unreachable")}}
	if rep, err = ical.Apply(context.Background(), svc, "cal", imp); err == nil || len(rep.Created) != 1 {
		t.Errorf("a store failure: %v, created %d, want the failure and the entry it was adding attendees to", err, len(rep.Created))
	}
}
