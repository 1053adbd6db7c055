package graph_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// TestTransparency: an entry's transparency defaults by kind (timed BUSY,
// whole-day FREE, a task FREE), is set at creation and by updateEntry (null
// returns to the default), an occurrence of a series can differ from its
// series (scope THIS), and an iCalendar feed and its import carry every
// value (TRANSP, and Outlook's busy status for TENTATIVE and OUT_OF_OFFICE)
// back to the same transparency.
func TestTransparency(t *testing.T) {
	e := newEnv(t)
	w := e.world("transp")
	create := func(title, timing, extra string) string {
		d := e.must(w.writer, `mutation($c: ID!) { createEntry(input: {calendarId: $c, title: "`+title+`", timing: `+timing+extra+`}) { entry { id transparency } } }`,
			map[string]any{"c": w.calendarID})
		return str(d, "createEntry.entry.id")
	}
	meeting := create("Meeting", `{timed: {start: "2026-02-02T09:00:00Z", end: "2026-02-02T10:00:00Z"}}`, "")
	birthday := create("Birthday", `{allDay: {date: "2026-02-03"}}`, "")
	create("Task", `{task: {dueDate: "2026-02-04"}}`, "")
	create("Offsite", `{allDay: {date: "2026-02-05"}}`, ", transparency: BUSY")
	create("Maybe", `{timed: {start: "2026-02-06T09:00:00Z", end: "2026-02-06T10:00:00Z"}}`, ", transparency: TENTATIVE")
	create("Away", `{timed: {start: "2026-02-09T00:00:00Z", end: "2026-02-10T00:00:00Z"}}`, ", transparency: OUT_OF_OFFICE")
	create("Focus", `{timed: {start: "2026-02-10T09:00:00Z", end: "2026-02-10T10:00:00Z"}}`, ", transparency: FREE")
	series := create("Standup", `{timed: {start: "2026-02-02T08:00:00Z", end: "2026-02-02T08:15:00Z"}}`, `, recurrence: {rule: "FREQ=DAILY;COUNT=3"}`)
	_ = series

	month := func(token, calendarID string) []string {
		d := e.must(token, `query($c: ID!) { calendar(id: $c) { entries(range: {dates: {start: "2026-02-01", end: "2026-03-01"}}, timeZone: "UTC") {
			entries { id title transparency ... on TimedEntry { start } ... on AllDayEntry { startDate: date } ... on Task { dueDate } } } } }`, map[string]any{"c": calendarID})
		var out []string
		for _, x := range get(d, "calendar.entries.entries").([]any) {
			day := get(x, "startDate")
			if day == nil {
				day = get(x, "dueDate")
			}
			out = append(out, fmt.Sprintf("%s %v%v %s", str(x, "title"), get(x, "start"), day, str(x, "transparency")))
		}
		slices.Sort(out)
		return out
	}
	idOf := func(title, day string) string {
		d := e.must(w.writer, `query($c: ID!) { calendar(id: $c) { entries(range: {dates: {start: "2026-02-01", end: "2026-03-01"}}, timeZone: "UTC") {
			entries { id title ... on TimedEntry { start } } } } }`, map[string]any{"c": w.calendarID})
		for _, x := range get(d, "calendar.entries.entries").([]any) {
			if str(x, "title") == title && strings.HasPrefix(fmt.Sprint(get(x, "start")), day) {
				return str(x, "id")
			}
		}
		t.Fatalf("no %s on %s", title, day)
		return ""
	}
	update := func(id, change string) string {
		d := e.must(w.writer, `query($id: ID!) { node(id: $id) { ... on Entry { version } } }`, map[string]any{"id": id})
		d = e.must(w.writer, `mutation($id: ID!, $v: Int!) { updateEntry(input: {id: $id, expectedVersion: $v, `+change+`}) { entry { transparency } } }`,
			map[string]any{"id": id, "v": num(d, "node.version")})
		return str(d, "updateEntry.entry.transparency")
	}
	if got := update(meeting, "transparency: FREE"); got != "FREE" {
		t.Errorf("a meeting set FREE: %s", got)
	}
	if got := update(meeting, "transparency: null"); got != "BUSY" {
		t.Errorf("a meeting back to its default: %s", got)
	}
	if got := update(birthday, "title: \"Ada's birthday\""); got != "FREE" {
		t.Errorf("another field's change changed the transparency: %s", got)
	}
	if got := update(idOf("Standup", "2026-02-03"), "scope: THIS, transparency: TENTATIVE"); got != "TENTATIVE" {
		t.Errorf("an occurrence set TENTATIVE: %s", got)
	}

	want := []string{
		"Ada's birthday <nil>2026-02-03 FREE",
		"Away 2026-02-09T00:00:00Z<nil> OUT_OF_OFFICE",
		"Focus 2026-02-10T09:00:00Z<nil> FREE",
		"Maybe 2026-02-06T09:00:00Z<nil> TENTATIVE",
		"Meeting 2026-02-02T09:00:00Z<nil> BUSY",
		"Offsite <nil>2026-02-05 BUSY",
		"Standup 2026-02-02T08:00:00Z<nil> BUSY",
		"Standup 2026-02-03T08:00:00Z<nil> TENTATIVE",
		"Standup 2026-02-04T08:00:00Z<nil> BUSY",
		"Task <nil>2026-02-04 FREE",
	}
	if got := month(w.reader, w.calendarID); !slices.Equal(got, want) {
		t.Fatalf("the month:\n got %q\nwant %q", got, want)
	}

	d := e.must(w.owner, rotate, map[string]any{"c": w.calendarID})
	_, ics, _ := e.getFeed(str(d, "rotateCalendarFeed.path"), "")
	for _, line := range []string{"TRANSP:TRANSPARENT", "TRANSP:OPAQUE", "X-MICROSOFT-CDO-BUSYSTATUS:TENTATIVE", "X-MICROSOFT-CDO-BUSYSTATUS:OOF"} {
		if !strings.Contains(ics, "\r\n"+line+"\r\n") {
			t.Errorf("the feed has no %s:\n%s", line, ics)
		}
	}
	d = e.must(w.owner, `mutation { createCalendar(input: {name: "Copy"}) { calendar { id } } }`, nil)
	copyID := str(d, "createCalendar.calendar.id")
	d = e.must(w.owner, importDoc, map[string]any{"c": copyID, "ics": ics})
	if errs := get(d, "importCalendar.errors").([]any); len(errs) != 0 {
		t.Fatalf("import errors: %v", errs)
	}
	if got := month(w.owner, copyID); !slices.Equal(got, want) {
		t.Fatalf("the imported copy:\n got %q\nwant %q", got, want)
	}
}
