package ical_test

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/calgraph/calgraph/internal/calendar"
)

// peopleRecord is what testdata/people-parsers.json holds: the feed the
// readers read, and what each read of its people and wrote back.
type peopleRecord struct {
	ICS     string                   `json:"ics"`
	Readers map[string]peopleReading `json:"readers"`
}

type peopleReading struct {
	People []string `json:"people"`
	ICS    string   `json:"ics"`
}

// TestPeopleReadAlike: ical.js (parsers.js) and python-icalendar
// (parsers.py) read a feed's organizer and attendees as calgraph wrote
// them — emails, names with a comma, a colon, a semicolon, a quote and a
// caret, answers, roles, RSVP and guests — and what each writes back
// imports with the same attendees and answers. As for
// TestOffRuleStartsReadAlike, testdata/people-parsers.json records their
// reading, so that a plain `go test` checks the feed is still written as
// they read it; with CALGRAPH_PARSERS_DIR (and CALGRAPH_PYTHON with
// icalendar) they read it again, and -update-parsers rewrites the record.
func TestPeopleReadAlike(t *testing.T) {
	f := newFixture(t)
	people(&f)
	f.feed.Entries, f.feed.Exceptions = []*calendar.Entry{f.timed}, nil
	doc := string(encode(t, f.feed))
	uid := f.timed.ICalUID
	want := []string{
		uid + ` ATTENDEE ann@example.com CN=Doe, Ann PARTSTAT=ACCEPTED ROLE=REQ-PARTICIPANT RSVP= X-NUM-GUESTS=2`,
		uid + ` ATTENDEE bob@example.com CN=Bob; "the builder" PARTSTAT=NEEDS-ACTION ROLE=OPT-PARTICIPANT RSVP=TRUE X-NUM-GUESTS=`,
		uid + ` ATTENDEE cy@example.com CN= PARTSTAT=TENTATIVE ROLE=REQ-PARTICIPANT RSVP= X-NUM-GUESTS=`,
		uid + ` ATTENDEE di@example.com CN=Di ^ caret PARTSTAT=DECLINED ROLE=REQ-PARTICIPANT RSVP= X-NUM-GUESTS=`,
		uid + ` ATTENDEE ed@example.com CN=Ed PARTSTAT=TENTATIVE ROLE=REQ-PARTICIPANT RSVP= X-NUM-GUESTS=`,
		uid + ` ORGANIZER boss@example.com CN=Org: "Boss"`,
	}
	// Debian's python-icalendar 4.0.3 does not undo RFC 6868's escapes.
	raw := strings.NewReplacer(`"`, "^'", "^", "^^")
	var wantRaw []string
	for _, l := range want {
		head, cn, _ := strings.Cut(l, "CN=")
		name, rest, _ := strings.Cut(cn, " PARTSTAT=")
		if rest != "" {
			rest = " PARTSTAT=" + rest
		}
		wantRaw = append(wantRaw, head+"CN="+raw.Replace(name)+rest)
	}
	wants := map[string][]string{"ical.js": want, "python-icalendar": wantRaw}
	// What an import of what they write back must keep (a waitlisted
	// acceptance travels as TENTATIVE).
	imported := []calendar.NewAttendee{
		{Email: "ann@example.com", DisplayName: "Doe, Ann", Response: calendar.ResponseAccepted, AdditionalGuests: 2},
		{Email: "bob@example.com", DisplayName: `Bob; "the builder"`, Response: calendar.ResponseNeedsAction, Optional: true},
		{Email: "cy@example.com", Response: calendar.ResponseTentative},
		{Email: "di@example.com", DisplayName: "Di ^ caret", Response: calendar.ResponseDeclined},
		{Email: "ed@example.com", DisplayName: "Ed", Response: calendar.ResponseTentative},
	}

	const record = "testdata/people-parsers.json"
	rec := parsersReading(t, record, func(dir string) peopleRecord { return readPeopleWithParsers(t, dir, record, doc) })
	if rec.ICS != doc {
		t.Fatalf("the feed is not written as when the parsers read it: run with CALGRAPH_PARSERS_DIR and -update-parsers\nnow:\n%s", doc)
	}
	for _, reader := range []string{"ical.js", "python-icalendar"} {
		got, ok := rec.Readers[reader]
		if !ok {
			t.Errorf("%s: no reading", reader)
			continue
		}
		slices.Sort(got.People)
		if !slices.Equal(got.People, wants[reader]) {
			t.Errorf("%s reads\n%s\nwant\n%s", reader, strings.Join(got.People, "\n"), strings.Join(wants[reader], "\n"))
		}
		imp := decode(t, got.ICS)
		if len(imp.Items) != 1 || len(imp.Errors) != 0 {
			t.Errorf("%s's document imports as %d items, notes %+v", reader, len(imp.Items), imp.Errors)
			continue
		}
		it := imp.Items[0]
		if org := it.Organizer; org == nil || !reflect.DeepEqual(*org, calendar.NewAttendee{Email: "boss@example.com", DisplayName: `Org: "Boss"`}) {
			t.Errorf("%s's document imports with organizer %+v", reader, org)
		}
		if !reflect.DeepEqual(it.Attendees, imported) {
			t.Errorf("%s's document imports with attendees\n%+v\nwant\n%+v", reader, it.Attendees, imported)
		}
	}
}

// readPeopleWithParsers has parsers.js and parsers.py read a feed's people.
// Without a python that has icalendar, its reading comes from the record
// (a file in testdata).
func readPeopleWithParsers(t *testing.T, dir, record, doc string) peopleRecord {
	t.Helper()
	stdin, _ := json.Marshal([]map[string]string{{"name": "feed", "ics": doc}})
	rec := peopleRecord{ICS: doc, Readers: map[string]peopleReading{}}
	run := func(cmd *exec.Cmd) {
		t.Helper()
		cmd.Stdin, cmd.Stderr = bytes.NewReader(stdin), os.Stderr
		b, err := cmd.Output()
		if err != nil {
			t.Fatalf("%s: %v", strings.Join(cmd.Args, " "), err)
		}
		var read map[string]map[string]peopleReading
		if err := json.Unmarshal(b, &read); err != nil {
			t.Fatalf("%s: %v\n%s", strings.Join(cmd.Args, " "), err, b)
		}
		for reader, r := range read["feed"] {
			rec.Readers[reader] = r
		}
	}
	run(nodeParsers(dir, "people"))
	python, ok := pythonWith(t, "icalendar", "python3-icalendar")
	if !ok {
		b, err := os.ReadFile(record)
		if err != nil {
			t.Fatal(err)
		}
		var old peopleRecord
		if err := json.Unmarshal(b, &old); err != nil {
			t.Fatal(err)
		}
		if old.ICS == doc {
			rec.Readers["python-icalendar"] = old.Readers["python-icalendar"]
		}
		return rec
	}
	run(exec.Command(python, "testdata/parsers.py", "people"))
	return rec
}
