package graph_test

import (
	"fmt"
	"maps"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"testing"
)

const peopleOf = `query($id: ID!) { node(id: $id) { ... on Entry { organizer { email }
	attendees { edges { node { email displayName optional response additionalGuests user { email } } } } } } }`

// TestFeedAttendeesRoundTrip: a feed shows an entry's organizer and
// attendees with their answers, and importing it into another calendar
// gives the copy the same organizer and attendees, calgraph users as
// themselves and external addresses as such, with the same answers; the
// copy's summary counts them (and Store.Check agrees when the test ends).
// The importer organizing the source, the copy is not handed over.
func TestFeedAttendeesRoundTrip(t *testing.T) {
	e := newEnv(t)
	p := e.party("fp", 2, 0, false)
	e.must(p.guests[0], `mutation($id: ID!) { respondToEntry(input: {entryId: $id, expectedVersion: 1, response: ACCEPTED, additionalGuests: 2}) { attendee { version } } }`,
		map[string]any{"id": p.entryID})
	e.must(p.guests[1], respond, map[string]any{"id": p.entryID, "v": 1, "r": "DECLINED"})
	e.must(p.owner, `mutation($id: ID!) { changeAttendees(input: {entryId: $id, add: [{email: "jo@elsewhere.org", displayName: "Doe, \"Jo\": ops", optional: true}]}) { entry { id } } }`,
		map[string]any{"id": p.entryID})
	d := e.must(p.owner, `query($id: ID!) { node(id: $id) { ... on Entry { calendar { id } } } }`, map[string]any{"id": p.entryID})
	calID := str(d, "node.calendar.id")

	d = e.must(p.owner, rotate, map[string]any{"c": calID})
	status, ics, _ := e.getFeed(str(d, "rotateCalendarFeed.path"), "")
	unfolded := strings.ReplaceAll(ics, "\r\n ", "")
	if status != http.StatusOK || strings.Count(unfolded, "\r\nATTENDEE;") != 4 ||
		!strings.Contains(unfolded, "\r\nORGANIZER:mailto:owner-fp@example.com\r\n") && !strings.Contains(unfolded, "\r\nORGANIZER;CN=") ||
		!strings.Contains(unfolded, `CN="Doe, ^'Jo^': ops"`) {
		t.Fatalf("feed: %d\n%s", status, ics)
	}

	d = e.must(p.owner, `mutation { createCalendar(input: {name: "Copy"}) { calendar { id } } }`, nil)
	d = e.must(p.owner, importDoc, map[string]any{"c": str(d, "createCalendar.calendar.id"), "ics": ics})
	if errs := get(d, "importCalendar.errors").([]any); len(errs) != 0 {
		t.Fatalf("import errors: %v", errs)
	}
	copyID := str(d, "importCalendar.entries.0.id")
	original := e.must(p.owner, peopleOf, map[string]any{"id": p.entryID})
	copied := e.must(p.owner, peopleOf, map[string]any{"id": copyID})
	if !reflect.DeepEqual(original, copied) || len(asList(get(original, "node.attendees.edges"))) != 4 {
		t.Errorf("the import's people differ from the feed's source:\n%v\n%v", original, copied)
	}
	// The importer organizes the source: the copy needs no handover write.
	if d := e.must(p.owner, `query($id: ID!) { node(id: $id) { ... on Entry { version } } }`, map[string]any{"id": copyID}); num(d, "node.version") != 1 {
		t.Errorf("the copy's version: %v, want 1 (its organizer is the importer, nothing to hand over)", get(d, "node.version"))
	}
	d = e.must(p.owner, summaryOf, map[string]any{"id": copyID})
	if got := fmt.Sprint(get(d, "node.attendeeSummary")); got != "map[accepted:1 declined:1 headCount:3 needsAction:2 tentative:0 total:4 waitlisted:0]" {
		t.Errorf("the copy's summary: %s", got)
	}
}

// TestFeedSeriesAttendeesRoundTrip: a series' organizer and attendees are
// in its feed with their answers to the whole series, and an exception's
// override carries the answers at its occurrence; importing the feed into
// another calendar gives the series the same attendees and answers, those
// at the exception's occurrence included.
func TestFeedSeriesAttendeesRoundTrip(t *testing.T) {
	e := newEnv(t)
	p := e.party("fseries", 2, 0, false)
	cal := e.calendarOf(p.owner)
	d := e.must(p.owner, `mutation($c: ID!) { createEntry(input: {calendarId: $c, title: "Stand-up",
		timing: {timed: {start: "2026-11-23T09:00:00Z", end: "2026-11-23T09:15:00Z", timeZone: "UTC"}}, recurrence: {rule: "FREQ=DAILY;COUNT=5"}}) { entry { id } } }`,
		map[string]any{"c": cal})
	series := str(d, "createEntry.entry.id")
	e.must(p.owner, `mutation($id: ID!) { changeAttendees(input: {entryId: $id, add: [{email: "guest0-fseries@example.com"}, {email: "guest1-fseries@example.com"}]}) { entry { id } } }`,
		map[string]any{"id": series})
	const answer = `mutation($id: ID!, $v: Int!, $r: AttendeeResponse!, $s: EditScope) {
		respondToEntry(input: {entryId: $id, expectedVersion: $v, response: $r, scope: $s}) { attendee { version } } }`
	e.must(p.guests[0], answer, map[string]any{"id": series, "v": 1, "r": "ACCEPTED", "s": "ALL"})
	d = e.must(p.owner, `query($c: ID!) { calendar(id: $c) { entries(range: {dates: {start: "2026-11-23", end: "2026-11-30"}}, timeZone: "UTC") {
		entries { id title ... on TimedEntry { start } } } } }`, map[string]any{"c": cal})
	occ := map[string]string{}
	for _, x := range asList(get(d, "calendar.entries.entries")) {
		if str(x, "title") == "Stand-up" {
			occ[str(x, "start")[:10]] = str(x, "id")
		}
	}
	tuesday := occ["2026-11-24"]
	e.must(p.guests[0], answer, map[string]any{"id": tuesday, "v": 2, "r": "DECLINED", "s": "THIS"})
	// Answers to occurrences without an exception: one (THIS), and from one on (THIS_AND_FOLLOWING).
	e.must(p.guests[1], answer, map[string]any{"id": occ["2026-11-25"], "v": 1, "r": "DECLINED", "s": "THIS"})
	e.must(p.guests[0], answer, map[string]any{"id": occ["2026-11-26"], "v": 3, "r": "TENTATIVE", "s": "THIS_AND_FOLLOWING"})
	e.must(p.owner, `mutation($id: ID!) { updateEntry(input: {id: $id, expectedVersion: 1, scope: THIS, title: "Stand-up (late)"}) { entry { id } } }`,
		map[string]any{"id": tuesday})

	d = e.must(p.owner, rotate, map[string]any{"c": cal})
	_, ics, _ := e.getFeed(str(d, "rotateCalendarFeed.path"), "")
	unfolded := strings.ReplaceAll(ics, "\r\n ", "")
	// The series' VEVENT and its exception's, by their SUMMARY.
	var masterEvent, exceptionEvent string
	for _, ev := range strings.Split(unfolded, "BEGIN:VEVENT")[1:] {
		switch {
		case strings.Contains(ev, "\r\nSUMMARY:Stand-up\r\n") && strings.Contains(ev, "\r\nRRULE:"):
			masterEvent = ev
		case strings.Contains(ev, "\r\nSUMMARY:Stand-up (late)\r\n"):
			exceptionEvent = ev
		}
	}
	// Each occurrence answered apart without an exception has an override
	// of its own, with the answers there; Monday, answered as the series, none.
	overrides := map[string]string{}
	for _, ev := range strings.Split(unfolded, "BEGIN:VEVENT")[1:] {
		if i := strings.Index(ev, "\r\nRECURRENCE-ID"); i >= 0 {
			line := ev[i+2:]
			line = line[:strings.Index(line, "\r\n")]
			overrides[line[strings.LastIndex(line, ":")+1:][:8]] = ev
		}
	}
	if len(overrides) != 4 || overrides["20261123"] != "" {
		t.Fatalf("overrides for %v, want Tuesday to Friday", slices.Collect(maps.Keys(overrides)))
	}
	for _, c := range []struct{ day, want string }{
		{"20261125", "PARTSTAT=DECLINED;ROLE=REQ-PARTICIPANT:mailto:guest1-fseries@example.com"},
		{"20261125", "PARTSTAT=ACCEPTED;ROLE=REQ-PARTICIPANT:mailto:guest0-fseries@example.com"},
		{"20261126", "PARTSTAT=TENTATIVE;ROLE=REQ-PARTICIPANT:mailto:guest0-fseries@example.com"},
		{"20261127", "PARTSTAT=TENTATIVE;ROLE=REQ-PARTICIPANT:mailto:guest0-fseries@example.com"},
		{"20261127", "SUMMARY:Stand-up\r\n"},
	} {
		if !strings.Contains(overrides[c.day], c.want) {
			t.Errorf("the override of %s lacks %s in:\n%s", c.day, c.want, overrides[c.day])
		}
	}
	for _, c := range []struct{ event, want string }{
		{masterEvent, "PARTSTAT=ACCEPTED;ROLE=REQ-PARTICIPANT:mailto:guest0-fseries@example.com"},
		{masterEvent, "ORGANIZER;CN=owner-fseries:mailto:owner-fseries@example.com"},
		{exceptionEvent, "PARTSTAT=DECLINED;ROLE=REQ-PARTICIPANT:mailto:guest0-fseries@example.com"},
		{exceptionEvent, "RSVP=TRUE:mailto:guest1-fseries@example.com"},
	} {
		if !strings.Contains(c.event, c.want) {
			t.Fatalf("the feed lacks %s in:\n%s", c.want, c.event)
		}
	}

	d = e.must(p.owner, `mutation { createCalendar(input: {name: "Copy"}) { calendar { id } } }`, nil)
	copyCal := str(d, "createCalendar.calendar.id")
	d = e.must(p.owner, importDoc, map[string]any{"c": copyCal, "ics": ics})
	var copyID string
	for _, x := range asList(get(d, "importCalendar.entries")) {
		if str(x, "title") == "Stand-up" {
			copyID = str(x, "id")
		}
	}
	if copyID == "" || len(asList(get(d, "importCalendar.errors"))) != 0 {
		t.Fatalf("import: %v", d)
	}
	original := e.must(p.owner, peopleOf, map[string]any{"id": series})
	copied := e.must(p.owner, peopleOf, map[string]any{"id": copyID})
	if !reflect.DeepEqual(get(original, "node.attendees"), get(copied, "node.attendees")) || len(asList(get(original, "node.attendees.edges"))) != 2 {
		t.Errorf("the import's series people differ from the source's:\n%v\n%v", original, copied)
	}
	// Every occurrence's answers are the copy's answers there.
	week := func(cal string) []string {
		d := e.must(p.owner, `query($c: ID!) { calendar(id: $c) { entries(range: {dates: {start: "2026-11-23", end: "2026-11-28"}}, timeZone: "UTC") {
			entries { title attendeeSummary { accepted declined tentative needsAction } attendees { edges { node { email response } } } } } } }`, map[string]any{"c": cal})
		var out []string
		for _, x := range asList(get(d, "calendar.entries.entries")) {
			if strings.HasPrefix(str(x, "title"), "Stand-up") {
				out = append(out, fmt.Sprint(get(x, "attendees"), get(x, "attendeeSummary")))
			}
		}
		return out
	}
	if a, b := week(cal), week(copyCal); !slices.Equal(a, b) || len(a) != 5 || !strings.Contains(a[1], "response:DECLINED") || !strings.Contains(a[4], "response:TENTATIVE") {
		t.Errorf("the week's answers:\nsource %s\ncopy   %s", a, b)
	}
	// Imported by someone else, the series is handed to its ORGANIZER, a
	// calgraph user, as an event is.
	d = e.must(p.guests[1], `mutation { createCalendar(input: {name: "Theirs"}) { calendar { id } } }`, nil)
	d = e.must(p.guests[1], importDoc, map[string]any{"c": str(d, "createCalendar.calendar.id"), "ics": ics})
	for _, x := range asList(get(d, "importCalendar.entries")) {
		if str(x, "title") == "Stand-up" {
			copyID = str(x, "id")
		}
	}
	if strings.Contains(fmt.Sprint(get(d, "importCalendar.errors")), "ORGANIZER owner-fseries") {
		t.Errorf("the import did not keep the series' organizer: %v", get(d, "importCalendar.errors"))
	}
	if got := str(e.must(p.guests[1], peopleOf, map[string]any{"id": copyID}), "node.organizer.email"); got != "owner-fseries@example.com" {
		t.Errorf("the series imported by a guest is organized by %s, want owner-fseries@example.com", got)
	}
}
