package ical_test

import (
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/calgraph/calgraph/internal/calendar"
)

// TestSeriesPeopleReadAlike: ical.js and python-icalendar read a series'
// answers to single occurrences as calgraph writes them — the series'
// VEVENT with the answers to all of it, and an override (RECURRENCE-ID) of
// each occurrence answered apart, whether it has an exception or not — and
// what each writes back imports with the same answers to each occurrence.
// The reading is recorded in testdata/series-people-parsers.json, as for
// TestPeopleReadAlike.
func TestSeriesPeopleReadAlike(t *testing.T) {
	f := newFixture(t)
	f.weekly.CreatedBy = "u-org"
	f.feed.Organizers = map[string]*calendar.User{"u-org": {ID: "u-org", Name: "Org", Email: "boss@example.com"}}
	at := func(s string) time.Time { return utc(t, s) }
	f.feed.Attendees = map[string][]*calendar.Attendee{f.weekly.ID: {
		{Email: "ann@example.com", Response: calendar.ResponseAccepted, Occurrences: []calendar.OccurrenceAnswer{
			{Key: calendar.AnswerKey{From: at("2026-03-09T13:00:00Z")}, Response: calendar.ResponseDeclined},
		}},
		{Email: "bob@example.com", Response: calendar.ResponseTentative, Occurrences: []calendar.OccurrenceAnswer{
			{Key: calendar.AnswerKey{From: at("2026-03-23T13:00:00Z")}, Response: calendar.ResponseAccepted},
		}},
	}}
	f.feed.Entries, f.feed.Exceptions = []*calendar.Entry{f.weekly}, []*calendar.Entry{f.moved, f.cancelled}
	doc := string(encode(t, f.feed))
	uid := f.weekly.ICalUID
	want := []string{
		uid + ` ATTENDEE ann@example.com CN= PARTSTAT=ACCEPTED ROLE=REQ-PARTICIPANT RSVP= X-NUM-GUESTS=`,
		uid + ` ATTENDEE bob@example.com CN= PARTSTAT=TENTATIVE ROLE=REQ-PARTICIPANT RSVP= X-NUM-GUESTS=`,
		uid + ` ORGANIZER boss@example.com CN=Org`,
		uid + `@20260309T090000 ATTENDEE ann@example.com CN= PARTSTAT=DECLINED ROLE=REQ-PARTICIPANT RSVP= X-NUM-GUESTS=`,
		uid + `@20260309T090000 ATTENDEE bob@example.com CN= PARTSTAT=TENTATIVE ROLE=REQ-PARTICIPANT RSVP= X-NUM-GUESTS=`,
		uid + `@20260309T090000 ORGANIZER boss@example.com CN=Org`,
		uid + `@20260323T090000 ATTENDEE ann@example.com CN= PARTSTAT=ACCEPTED ROLE=REQ-PARTICIPANT RSVP= X-NUM-GUESTS=`,
		uid + `@20260323T090000 ATTENDEE bob@example.com CN= PARTSTAT=ACCEPTED ROLE=REQ-PARTICIPANT RSVP= X-NUM-GUESTS=`,
		uid + `@20260323T090000 ORGANIZER boss@example.com CN=Org`,
	}
	slices.Sort(want)
	const record = "testdata/series-people-parsers.json"
	rec := parsersReading(t, record, func(dir string) peopleRecord { return readPeopleWithParsers(t, dir, record, doc) })
	if rec.ICS != doc {
		t.Fatalf("the feed is not written as when the parsers read it: run with CALGRAPH_PARSERS_DIR and -update-parsers\nnow:\n%s", doc)
	}
	imported := []calendar.NewAttendee{
		{Email: "ann@example.com", Response: calendar.ResponseAccepted, Occurrences: []calendar.OccurrenceAnswer{
			{Key: calendar.AnswerKey{From: at("2026-03-09T13:00:00Z")}, Response: calendar.ResponseDeclined}}},
		{Email: "bob@example.com", Response: calendar.ResponseTentative, Occurrences: []calendar.OccurrenceAnswer{
			{Key: calendar.AnswerKey{From: at("2026-03-23T13:00:00Z")}, Response: calendar.ResponseAccepted}}},
	}
	for _, reader := range []string{"ical.js", "python-icalendar"} {
		got, ok := rec.Readers[reader]
		if !ok {
			t.Errorf("%s: no reading", reader)
			continue
		}
		slices.Sort(got.People)
		if !slices.Equal(got.People, want) {
			t.Errorf("%s reads\n%s\nwant\n%s", reader, strings.Join(got.People, "\n"), strings.Join(want, "\n"))
		}
		imp := decode(t, got.ICS)
		if len(imp.Items) != 1 || len(imp.Errors) != 0 {
			t.Errorf("%s's document imports as %d items, notes %+v", reader, len(imp.Items), imp.Errors)
			continue
		}
		if as := imp.Items[0].Attendees; !reflect.DeepEqual(as, imported) {
			t.Errorf("%s's document imports with attendees\n%+v\nwant\n%+v", reader, as, imported)
		}
	}
}
