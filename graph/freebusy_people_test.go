package graph_test

import (
	"fmt"
	"strings"
	"testing"
)

const peopleBusy = `query($c: [ID!]!, $p: [String!]) { freeBusy(calendarIds: $c, people: $p, timeZone: "UTC",
	range: {instants: {start: "2027-02-01T08:00:00Z", end: "2027-02-01T18:00:00Z"}}) {
	start end calendars { calendar { name } busy { start end status } }
	people { email busy { start end status } outsideWorkingHours { start end } } } }`

// TestFreeBusyPeople: freeBusy(people:) gives a person's busy time over the
// calendars they own that the viewer reaches (FREE_BUSY is enough, no title
// reaches the viewer), merged with out of office winning, the viewer's own
// invitations for the viewer, and the stretches outside their working
// hours; a person the viewer reaches nothing of reads as an unknown email,
// and bad lists are BAD_USER_INPUT before anything is read.
func TestFreeBusyPeople(t *testing.T) {
	e := newEnv(t)
	viewer, peer, stranger := e.token("fbv@example.com"), e.token("fbp@example.com"), e.token("fbs@example.com")
	for _, tok := range []string{viewer, peer, stranger} {
		e.must(tok, provision, nil)
	}
	mine := str(e.must(viewer, `mutation { createCalendar(input: {name: "Mine"}) { calendar { id } } }`, nil), "createCalendar.calendar.id")
	hidden := str(e.must(stranger, `mutation { createCalendar(input: {name: "Hidden"}) { calendar { id } } }`, nil), "createCalendar.calendar.id")
	create := func(tok, cal, title, start, end, extra string) string {
		d := e.must(tok, fmt.Sprintf(`mutation($c: ID!) { createEntry(input: {calendarId: $c, title: %q,
			timing: {timed: {start: %q, end: %q}}%s}) { entry { id } } }`, title, start, end, extra), map[string]any{"c": cal})
		return str(d, "createEntry.entry.id")
	}
	var peerCals []string
	for _, name := range []string{"Work", "Home"} {
		c := str(e.must(peer, `mutation($n: String!) { createCalendar(input: {name: $n}) { calendar { id } } }`, map[string]any{"n": name}), "createCalendar.calendar.id")
		e.must(peer, `mutation($c: ID!) { addMember(input: {calendarId: $c, email: "fbv@example.com", role: FREE_BUSY}) { membership { id } } }`, map[string]any{"c": c})
		peerCals = append(peerCals, c)
	}
	create(peer, peerCals[0], "Secret merger", "2027-02-01T10:00:00Z", "2027-02-01T11:00:00Z", "")
	create(peer, peerCals[1], "Secret doctor", "2027-02-01T10:30:00Z", "2027-02-01T12:00:00Z", ", transparency: OUT_OF_OFFICE")
	create(peer, peerCals[1], "Secret lunch", "2027-02-01T12:00:00Z", "2027-02-01T13:00:00Z", ", transparency: FREE")
	v := num(e.must(peer, `{ viewer { user { version } } }`, nil), "viewer.user.version")
	e.must(peer, `mutation($h: WorkingHoursInput, $v: Int!) { updatePreferences(input: {expectedVersion: $v, workingHours: $h}) { user { version } } }`,
		map[string]any{"v": v, "h": map[string]any{"timeZone": "Europe/Paris", "days": []any{
			map[string]any{"day": "MONDAY", "windows": []any{map[string]any{"start": "10:00", "end": "12:00"}, map[string]any{"start": "13:00", "end": "17:00"}}}}}})
	// The viewer is invited to an entry of the stranger's, not yet answered: tentative for the viewer.
	talk := create(stranger, hidden, "Secret talk", "2027-02-01T15:00:00Z", "2027-02-01T16:00:00Z", "")
	e.must(stranger, `mutation($id: ID!) { changeAttendees(input: {entryId: $id, add: [{email: "fbv@example.com"}]}) { entry { id } } }`, map[string]any{"id": talk})
	create(viewer, mine, "Own", "2027-02-01T09:00:00Z", "2027-02-01T09:30:00Z", "")

	r := e.do(viewer, peopleBusy, map[string]any{"c": []any{mine}, "p": []any{"FBP@example.com", "fbv@example.com"}})
	if len(r.Errors) > 0 || strings.Contains(r.Raw, "Secret") {
		t.Fatalf("freeBusy with people: %s", r.Raw)
	}
	busy := func(path string) string {
		var out []string
		for _, b := range get(r.Data, path).([]any) {
			out = append(out, fmt.Sprintf("%s-%s %v", str(b, "start")[11:16], str(b, "end")[11:16], get(b, "status")))
		}
		return strings.Join(out, ", ")
	}
	for path, want := range map[string]string{
		"freeBusy.people.0.busy":                "10:00-10:30 BUSY, 10:30-12:00 OUT_OF_OFFICE",
		"freeBusy.people.0.outsideWorkingHours": "08:00-09:00 <nil>, 11:00-12:00 <nil>, 16:00-18:00 <nil>",
		"freeBusy.people.1.busy":                "09:00-09:30 BUSY, 15:00-16:00 TENTATIVE",
		"freeBusy.calendars.0.busy":             "09:00-09:30 BUSY",
	} {
		if got := busy(path); got != want {
			t.Errorf("%s = %s, want %s", path, got, want)
		}
	}
	if got := get(r.Data, "freeBusy.people.1.outsideWorkingHours"); len(got.([]any)) != 0 {
		t.Errorf("the viewer set no working hours, yet %v", got)
	}
	if str(r.Data, "freeBusy.people.0.email") != "fbp@example.com" {
		t.Errorf("email %v", get(r.Data, "freeBusy.people.0.email"))
	}
	// People alone: no calendar needed.
	if d := e.must(viewer, peopleBusy, map[string]any{"c": []any{}, "p": []any{"fbp@example.com"}}); str(d, "freeBusy.start") != "2027-02-01T08:00:00Z" ||
		len(get(d, "freeBusy.calendars").([]any)) != 0 || len(get(d, "freeBusy.people.0.busy").([]any)) != 2 {
		t.Errorf("people alone: %v", d)
	}

	var many []any
	for i := range 51 {
		many = append(many, fmt.Sprintf("p%d@example.com", i))
	}
	for name, c := range map[string]struct {
		people []any
		code   string
	}{
		"51 people":     {many, "BAD_USER_INPUT"},
		"named twice":   {[]any{"fbp@example.com", "FBP@example.com"}, "BAD_USER_INPUT"},
		"not an email":  {[]any{"nobody"}, "BAD_USER_INPUT"},
		"unknown email": {[]any{"nobody@example.com"}, "NOT_FOUND"},
		"unreached":     {[]any{"fbs@example.com"}, "NOT_FOUND"},
	} {
		e.rec.Reset()
		r := e.do(viewer, peopleBusy, map[string]any{"c": []any{}, "p": c.people})
		if r.code() != c.code || strings.Contains(r.Raw, "Secret") {
			t.Errorf("%s: %s, want %s", name, r.Raw, c.code)
		}
		if calls := e.rec.Calls(); c.code == "BAD_USER_INPUT" && len(calls) > 0 {
			t.Errorf("%s: %d DynamoDB calls for bad input", name, len(calls))
		}
	}
	a := e.do(viewer, peopleBusy, map[string]any{"c": []any{}, "p": []any{"nobody@example.com"}})
	b := e.do(viewer, peopleBusy, map[string]any{"c": []any{}, "p": []any{"fbs@example.com"}})
	if a.Errors[0].Message != b.Errors[0].Message {
		t.Errorf("an unknown email %q and an unreached person %q differ", a.Errors[0].Message, b.Errors[0].Message)
	}
}
