package graph_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

const occurrenceFields = `id title version isException status originalStart
	series { id ... on TimedEntry { recurrence { rule exdates } } }
	... on TimedEntry { start }`

// weekly creates the writer's weekly Monday 09:00 Paris stand-up from
// 5 January 2026 and returns its global ID.
func (e *env) weekly(w world) string {
	e.t.Helper()
	d := e.must(w.writer, `mutation($c: ID!) { createEntry(input: {calendarId: $c, title: "Stand-up",
		timing: {timed: {start: "2026-01-05T08:00:00Z", end: "2026-01-05T08:15:00Z", timeZone: "Europe/Paris"}},
		recurrence: {rule: "FREQ=WEEKLY;BYDAY=MO"}}) { entry { id ... on TimedEntry { recurrence { rule } } } } }`,
		map[string]any{"c": w.calendarID})
	if str(d, "createEntry.entry.recurrence.rule") != "FREQ=WEEKLY;BYDAY=MO" {
		e.t.Fatalf("created %v", d)
	}
	return str(d, "createEntry.entry.id")
}

// january returns the occurrences in January 2026 as the token sees them.
func (e *env) january(token, calendarID string, cancelled bool) []any {
	e.t.Helper()
	d := e.must(token, `query($c: ID!, $x: Boolean) { calendar(id: $c) { entries(range: {dates: {start: "2026-01-01", end: "2026-02-01"}},
		timeZone: "Europe/Paris", includeCancelled: $x) { entries { `+occurrenceFields+` } } } }`, map[string]any{"c": calendarID, "x": cancelled})
	return get(d, "calendar.entries.entries").([]any)
}

func titles(es []any) []string {
	var out []string
	for _, e := range es {
		s := str(e, "title") + " " + str(e, "start")
		if str(e, "status") == "CANCELLED" {
			s += " CANCELLED"
		}
		out = append(out, s)
	}
	return out
}

func TestSeriesThroughTheAPI(t *testing.T) {
	e := newEnv(t)
	w := e.world("s")
	seriesID := e.weekly(w)
	occ := e.january(w.reader, w.calendarID, false)
	if got := titles(occ); !slices.Equal(got, []string{"Stand-up 2026-01-05T08:00:00Z", "Stand-up 2026-01-12T08:00:00Z",
		"Stand-up 2026-01-19T08:00:00Z", "Stand-up 2026-01-26T08:00:00Z"}) {
		t.Fatalf("January: %q", got)
	}
	if str(occ[1], "series.id") != seriesID || str(occ[1], "originalStart") != "2026-01-12T08:00:00Z" || str(occ[1], "id") == seriesID {
		t.Fatalf("an occurrence: %v", occ[1])
	}
	// An occurrence's ID is the same in every view and through node.
	d := e.must(w.reader, `query($id: ID!) { node(id: $id) { ... on Entry { `+occurrenceFields+` } } }`, map[string]any{"id": str(occ[1], "id")})
	if str(d, "node.id") != str(occ[1], "id") || str(d, "node.title") != "Stand-up" {
		t.Fatalf("node of an occurrence: %v", d)
	}

	// THIS is the default scope of an occurrence.
	d = e.must(w.writer, `mutation($id: ID!, $v: Int!) { updateEntry(input: {id: $id, expectedVersion: $v, title: "Retro"}) {
		entry { `+occurrenceFields+` } } }`, map[string]any{"id": str(occ[1], "id"), "v": num(occ[1], "version")})
	if get(d, "updateEntry.entry.isException") != true || str(d, "updateEntry.entry.id") != str(occ[1], "id") {
		t.Fatalf("the changed occurrence: %v", d)
	}
	e.must(w.writer, `mutation($id: ID!, $v: Int!) { deleteEntry(input: {id: $id, expectedVersion: $v}) { deletedEntryId } }`,
		map[string]any{"id": str(occ[2], "id"), "v": num(occ[2], "version")})
	if got := titles(e.january(w.reader, w.calendarID, true)); !slices.Equal(got, []string{"Stand-up 2026-01-05T08:00:00Z",
		"Retro 2026-01-12T08:00:00Z", "Stand-up 2026-01-19T08:00:00Z CANCELLED", "Stand-up 2026-01-26T08:00:00Z"}) {
		t.Fatalf("with the cancelled one: %q", got)
	}
	if got := len(e.january(w.reader, w.calendarID, false)); got != 3 {
		t.Fatalf("%d occurrences without the cancelled one, want 3", got)
	}

	// THIS_AND_FOLLOWING returns the new series, linked to the old one.
	d = e.must(w.writer, `mutation($id: ID!, $v: Int!) { updateEntry(input: {id: $id, expectedVersion: $v, scope: THIS_AND_FOLLOWING, title: "Stand-up v2"}) {
		entry { id previousSeriesId icalUid ... on TimedEntry { recurrence { rule } } } } }`,
		map[string]any{"id": str(occ[3], "id"), "v": num(occ[3], "version")})
	if str(d, "updateEntry.entry.previousSeriesId") != seriesID || str(d, "updateEntry.entry.recurrence.rule") != "FREQ=WEEKLY;BYDAY=MO" {
		t.Fatalf("the split: %v", d)
	}
	after := e.january(w.reader, w.calendarID, false)
	if str(after[2], "title") != "Stand-up v2" || str(after[2], "series.id") != str(d, "updateEntry.entry.id") ||
		str(after[0], "series.recurrence.rule") != "FREQ=WEEKLY;UNTIL=20260126T075959Z;BYDAY=MO" {
		t.Fatalf("after the split: %v", after)
	}

	// The series itself takes only ALL; deleting it removes its exceptions.
	r := e.do(w.writer, `mutation($id: ID!) { updateEntry(input: {id: $id, expectedVersion: 2, scope: THIS, title: "x"}) { entry { id } } }`,
		map[string]any{"id": seriesID})
	if r.code() != "BAD_USER_INPUT" || r.Errors[0].Extensions.Field != "scope" {
		t.Fatalf("scope THIS on a series: %s", r.Raw)
	}
	d = e.must(w.reader, `query($id: ID!) { node(id: $id) { ... on Entry { version } } }`, map[string]any{"id": seriesID})
	e.must(w.writer, `mutation($id: ID!, $v: Int!) { deleteEntry(input: {id: $id, expectedVersion: $v}) { deletedEntryId } }`,
		map[string]any{"id": seriesID, "v": num(d, "node.version")})
	if got := titles(e.january(w.reader, w.calendarID, true)); !slices.Equal(got, []string{"Stand-up v2 2026-01-26T08:00:00Z"}) {
		t.Fatalf("after deleting the first series: %q", got)
	}
	r = e.do(w.reader, `query($id: ID!) { node(id: $id) { id } }`, map[string]any{"id": str(occ[1], "id")})
	if r.code() != "NOT_FOUND" {
		t.Fatalf("an occurrence of a deleted series: %s", r.Raw)
	}
}

func TestSeriesAuthorizationAndErrors(t *testing.T) {
	e := newEnv(t)
	w := e.world("se")
	e.weekly(w)
	occ := e.january(w.owner, w.calendarID, false)[0]
	id, v := str(occ, "id"), num(occ, "version")
	update := `mutation($id: ID!, $v: Int!) { updateEntry(input: {id: $id, expectedVersion: $v, title: "x"}) { entry { id } } }`
	for i, a := range actors {
		t.Run("THIS by "+a.name, func(t *testing.T) {
			r := e.do(a.token(w), `query($id: ID!) { node(id: $id) { id } }`, map[string]any{"id": id})
			if want := (want{ok, ok, ok, absent, unauth})[i]; r.code() != want {
				t.Fatalf("node: got %s, want %q", r.Raw, want)
			}
			if a.name == "owner" || a.name == "writer" {
				return // their change would make the others' versions stale
			}
			r = e.do(a.token(w), update, map[string]any{"id": id, "v": v})
			if want := (want{ok, ok, forbid, absent, unauth})[i]; r.code() != want {
				t.Fatalf("update: got %s, want %q", r.Raw, want)
			}
		})
	}
	tests := []struct {
		name, query string
		vars        map[string]any
		code, field string
	}{
		{"invalid rule", `mutation($c: ID!) { createEntry(input: {calendarId: $c, title: "x", timing: {timed: {start: "2026-01-05T08:00:00Z"}},
			recurrence: {rule: "FREQ=SOMETIMES"}}) { entry { id } } }`, map[string]any{"c": w.calendarID}, "BAD_USER_INPUT", "recurrence.rule"},
		{"UNTIL before start", `mutation($c: ID!) { createEntry(input: {calendarId: $c, title: "x", timing: {timed: {start: "2026-01-05T08:00:00Z"}},
			recurrence: {rule: "FREQ=DAILY;UNTIL=20250101T000000Z"}}) { entry { id } } }`, map[string]any{"c": w.calendarID}, "BAD_USER_INPUT", "recurrence.rule"},
		{"recurring task", `mutation($c: ID!) { createEntry(input: {calendarId: $c, title: "x", timing: {task: {dueDate: "2026-01-05"}},
			recurrence: {rule: "FREQ=DAILY"}}) { entry { id } } }`, map[string]any{"c": w.calendarID}, "BAD_USER_INPUT", "recurrence"},
		{"stale occurrence", update, map[string]any{"id": id, "v": v + 1}, "VERSION_CONFLICT", ""},
		{"null recurrence", `mutation($id: ID!, $v: Int!) { updateEntry(input: {id: $id, expectedVersion: $v, scope: ALL, recurrence: null}) { entry { id } } }`,
			map[string]any{"id": id, "v": v}, "BAD_USER_INPUT", "recurrence"},
		{"move an occurrence", `mutation($id: ID!, $c: ID!) { moveEntry(input: {id: $id, expectedVersion: 1, toCalendarId: $c}) { previousId } }`,
			map[string]any{"id": id, "c": w.calendarID}, "BAD_USER_INPUT", "id"},
		{"complete an occurrence", `mutation($id: ID!) { completeTask(input: {id: $id, expectedVersion: 1}) { task { id } } }`,
			map[string]any{"id": id}, "BAD_USER_INPUT", "id"},
		{"forged occurrence ID", `query { node(id: "T2NjdXJyZW5jZTp4OnkvMjAyNg") { id } }`, nil, "BAD_USER_INPUT", "id"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := e.do(w.owner, tt.query, tt.vars)
			if r.code() != tt.code || (tt.field != "" && r.Errors[0].Extensions.Field != tt.field) {
				t.Fatalf("got %s, want %s about %q", r.Raw, tt.code, tt.field)
			}
		})
	}
	if got := titles(e.january(w.owner, w.calendarID, true)); len(got) != 4 || got[0] != "Stand-up 2026-01-05T08:00:00Z" {
		t.Fatalf("the refused writes changed the series: %q", got)
	}
}

// TestExpansionIsCappedPerRequest asks for the same year of a series every
// two hours in many views of one request, filtered so that they return
// nothing: the views share one budget of occurrences expanded.
func TestExpansionIsCappedPerRequest(t *testing.T) {
	e := newEnv(t)
	w := e.world("cap")
	e.must(w.owner, `mutation($c: ID!) { createEntry(input: {calendarId: $c, title: "Every two hours",
		timing: {timed: {start: "2026-01-01T08:00:00Z", end: "2026-01-01T08:15:00Z", timeZone: "UTC"}},
		recurrence: {rule: "FREQ=HOURLY;INTERVAL=2"}}) { entry { id } } }`, map[string]any{"c": w.calendarID})
	query := func(views int) string {
		q := `query($c: ID!) { calendar(id: $c) {`
		for i := range views {
			q += fmt.Sprintf(` v%d: entries(range: {dates: {start: "2026-01-01", end: "2027-01-01"}}, filter: {kinds: [TASK]}) { timeZone }`, i)
		}
		return q + ` } }`
	}
	e.must(w.owner, query(11), map[string]any{"c": w.calendarID})    // 11 × 4,376 = 48,136 occurrences
	r := e.do(w.owner, query(12), map[string]any{"c": w.calendarID}) // 52,512
	if r.code() != "BAD_USER_INPUT" || !strings.Contains(r.Raw, "more than 50000 occurrences of series") {
		t.Fatalf("12 views of a year: %s", r.Raw)
	}
}

// TestOccurrencesInTheAgendaAndFilters checks that the agenda merges
// occurrences with single entries across calendars, and that filters apply
// to occurrences by their own fields.
func TestOccurrencesInTheAgendaAndFilters(t *testing.T) {
	e := newEnv(t)
	w := e.world("ag")
	e.weekly(w)
	d := e.must(w.writer, `mutation { createCalendar(input: {name: "Mine"}) { calendar { id } } }`, nil)
	mine := str(d, "createCalendar.calendar.id")
	e.must(w.writer, `mutation($c: ID!) { createEntry(input: {calendarId: $c, title: "Dentist", tags: ["health"],
		timing: {timed: {start: "2026-01-12T07:30:00Z", end: "2026-01-12T08:00:00Z", timeZone: "Europe/Paris"}}}) { entry { id } } }`,
		map[string]any{"c": mine})
	occ := e.january(w.writer, w.calendarID, false)[2]
	e.must(w.writer, `mutation($id: ID!, $v: Int!) { updateEntry(input: {id: $id, expectedVersion: $v, tags: ["health"]}) { entry { id } } }`,
		map[string]any{"id": str(occ, "id"), "v": num(occ, "version")})
	agenda := func(filter string) []string {
		d := e.must(w.writer, `{ viewer { agenda(range: {dates: {start: "2026-01-12", end: "2026-01-26"}}, timeZone: "Europe/Paris"`+filter+`) {
			entries { title calendar { name } ... on TimedEntry { start } } } } }`, nil)
		var out []string
		for _, x := range get(d, "viewer.agenda.entries").([]any) {
			out = append(out, str(x, "title")+" "+str(x, "calendar.name")+" "+str(x, "start"))
		}
		return out
	}
	if got, want := agenda(""), []string{"Dentist Mine 2026-01-12T07:30:00Z", "Stand-up Team 2026-01-12T08:00:00Z",
		"Stand-up Team 2026-01-19T08:00:00Z"}; !slices.Equal(got, want) {
		t.Fatalf("agenda %q, want %q", got, want)
	}
	if got, want := agenda(`, filter: {tags: ["health"]}`), []string{"Dentist Mine 2026-01-12T07:30:00Z", "Stand-up Team 2026-01-19T08:00:00Z"}; !slices.Equal(got, want) {
		t.Fatalf("agenda of health %q, want %q", got, want)
	}
	if got := agenda(`, filter: {kinds: [ALL_DAY]}`); len(got) != 0 {
		t.Fatalf("agenda of all-day entries %q, want none", got)
	}
}

// TestSeriesOfEveryRFC5545Shape: a series with its own times of day, a start
// its rule would not give, and an extra date before its start shows in
// views where each of them falls.
func TestSeriesOfEveryRFC5545Shape(t *testing.T) {
	e := newEnv(t)
	w := e.world("rfc")
	// Monday 5 January 2026 at 09:00 Paris, then Tuesdays and Thursdays at
	// 09:00 and 17:00, 6 occurrences in all; and 24 December 2025 at 18:00.
	e.must(w.writer, `mutation($c: ID!) { createEntry(input: {calendarId: $c, title: "Shifts",
		timing: {timed: {start: "2026-01-05T08:00:00Z", end: "2026-01-05T08:30:00Z", timeZone: "Europe/Paris"}},
		recurrence: {rule: "FREQ=WEEKLY;BYDAY=TU,TH;BYHOUR=9,17;COUNT=6", rdates: ["2025-12-24T17:00:00Z"]}}) { entry { id } } }`,
		map[string]any{"c": w.calendarID})
	view := func(from, to string) []string {
		d := e.must(w.reader, `query($c: ID!, $f: Date!, $t: Date!) { calendar(id: $c) { entries(range: {dates: {start: $f, end: $t}}, timeZone: "Europe/Paris") {
			entries { ... on TimedEntry { start } } } } }`, map[string]any{"c": w.calendarID, "f": from, "t": to})
		var out []string
		for _, x := range get(d, "calendar.entries.entries").([]any) {
			out = append(out, str(x, "start"))
		}
		return out
	}
	if got := view("2025-12-20", "2025-12-31"); !slices.Equal(got, []string{"2025-12-24T17:00:00Z"}) {
		t.Fatalf("December: %v, want the extra date before the start", got)
	}
	want := []string{"2026-01-05T08:00:00Z", "2026-01-06T08:00:00Z", "2026-01-06T16:00:00Z", "2026-01-08T08:00:00Z", "2026-01-08T16:00:00Z", "2026-01-13T08:00:00Z"}
	if got := view("2026-01-01", "2026-02-01"); !slices.Equal(got, want) {
		t.Fatalf("January: %v\nwant     %v", got, want)
	}
}

// TestSeriesStartingInADSTGap: a series given a local start that 9 March
// 2025 skips in New York starts at 03:30 that day and at 02:30 the next
// days; it says so (localStart), and its feed writes the wall clock.
func TestSeriesStartingInADSTGap(t *testing.T) {
	e := newEnv(t)
	w := e.world("gap")
	d := e.must(w.writer, `mutation($c: ID!) { createEntry(input: {calendarId: $c, title: "Night shift",
		timing: {timed: {localStart: "2025-03-09T02:30:00", timeZone: "America/New_York"}},
		recurrence: {rule: "FREQ=DAILY;COUNT=3"}}) { entry { ... on TimedEntry { start localStart } } } }`, map[string]any{"c": w.calendarID})
	if str(d, "createEntry.entry.start") != "2025-03-09T07:30:00Z" || str(d, "createEntry.entry.localStart") != "2025-03-09T02:30:00" {
		t.Fatalf("created %v", d)
	}
	d = e.must(w.reader, `query($c: ID!) { calendar(id: $c) { entries(range: {dates: {start: "2025-03-08", end: "2025-03-13"}}, timeZone: "America/New_York") {
		entries { ... on TimedEntry { start localStart } } } } }`, map[string]any{"c": w.calendarID})
	var got []string
	for _, x := range get(d, "calendar.entries.entries").([]any) {
		got = append(got, str(x, "start")+" "+str(x, "localStart"))
	}
	if want := []string{"2025-03-09T07:30:00Z ", "2025-03-10T06:30:00Z ", "2025-03-11T06:30:00Z "}; !slices.Equal(got, want) {
		t.Fatalf("occurrences %q, want %q", got, want)
	}
	f := e.must(w.owner, rotate, map[string]any{"c": w.calendarID})
	if _, body, _ := e.getFeed(str(f, "rotateCalendarFeed.path"), ""); !strings.Contains(body, "DTSTART;TZID=America/New_York:20250309T023000") {
		t.Fatalf("the feed does not write the wall clock:\n%s", body)
	}
	r := e.do(w.writer, `mutation($c: ID!) { createEntry(input: {calendarId: $c, title: "x",
		timing: {timed: {localStart: "9 March", timeZone: "America/New_York"}}}) { entry { id } } }`, map[string]any{"c": w.calendarID})
	if r.code() != "BAD_USER_INPUT" || r.Errors[0].Extensions.Field != "localStart" {
		t.Fatalf("a bad localStart: %s", r.Raw)
	}
	r = e.do(w.writer, `mutation($c: ID!) { createEntry(input: {calendarId: $c, title: "x",
		timing: {timed: {start: "2025-03-09T07:30:00Z", localStart: "2025-03-09T02:30:00", timeZone: "America/New_York"}}}) { entry { id } } }`, map[string]any{"c": w.calendarID})
	if r.code() != "BAD_USER_INPUT" {
		t.Fatalf("start and localStart: %s", r.Raw)
	}
}

// TestImportOfEveryRFC5545Shape: an export carrying a rule with its own
// times of day, a DTSTART off its rule, an RDATE before DTSTART and a
// DTSTART in a DST gap imports whole, and its occurrences are where RFC 5545
// (with the readings docs/design.md gives, Recurrence and iCalendar) puts them.
func TestImportOfEveryRFC5545Shape(t *testing.T) {
	e := newEnv(t)
	w := e.world("import-rfc")
	doc := strings.Join([]string{"BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//test//EN",
		"BEGIN:VEVENT", "UID:hours", "DTSTAMP:20260101T000000Z", "DTSTART;TZID=Europe/Paris:20260105T090000", "DTEND;TZID=Europe/Paris:20260105T091500",
		"RRULE:FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR;BYHOUR=9,17;BYMINUTE=0;COUNT=4", "SUMMARY:Check-in", "END:VEVENT",
		"BEGIN:VEVENT", "UID:off", "DTSTAMP:20260101T000000Z", "DTSTART;TZID=Europe/Paris:20260112T100000", "DTEND;TZID=Europe/Paris:20260112T110000",
		"RRULE:FREQ=WEEKLY;BYDAY=TU,TH;COUNT=3", "RDATE;TZID=Europe/Paris:20260109T100000", "SUMMARY:Off rule", "END:VEVENT",
		"BEGIN:VEVENT", "UID:gap", "DTSTAMP:20260101T000000Z", "DTSTART;TZID=America/New_York:20260308T023000", "DTEND;TZID=America/New_York:20260308T033000",
		"RRULE:FREQ=DAILY;COUNT=2", "SUMMARY:Gap", "END:VEVENT",
		"END:VCALENDAR", ""}, "\r\n")
	d := e.must(w.writer, importDoc, map[string]any{"c": w.calendarID, "ics": doc})
	if n, errs := len(get(d, "importCalendar.entries").([]any)), get(d, "importCalendar.errors").([]any); n != 3 || len(errs) != 0 {
		t.Fatalf("imported %d, errors %v", n, errs)
	}
	got := e.must(w.reader, `query($c: ID!) { calendar(id: $c) { entries(range: {dates: {start: "2026-01-01", end: "2026-03-15"}}, timeZone: "UTC") {
		entries { title ... on TimedEntry { start } } } } }`, map[string]any{"c": w.calendarID})
	var shown []string
	for _, x := range get(got, "calendar.entries.entries").([]any) {
		shown = append(shown, str(x, "title")+" "+str(x, "start"))
	}
	want := []string{
		"Check-in 2026-01-05T08:00:00Z", "Check-in 2026-01-05T16:00:00Z", "Check-in 2026-01-06T08:00:00Z", "Check-in 2026-01-06T16:00:00Z",
		"Off rule 2026-01-09T09:00:00Z", "Off rule 2026-01-12T09:00:00Z", "Off rule 2026-01-13T09:00:00Z", "Off rule 2026-01-15T09:00:00Z",
		"Gap 2026-03-08T07:30:00Z", "Gap 2026-03-09T06:30:00Z",
	}
	if !slices.Equal(shown, want) {
		t.Fatalf("occurrences:\n%s\nwant\n%s", strings.Join(shown, "\n"), strings.Join(want, "\n"))
	}
}
