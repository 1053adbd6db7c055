package graph_test

import (
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
)

// getFeed fetches a feed path and returns the status, the body and the ETag.
func (e *env) getFeed(path, etag string) (int, string, string) {
	e.t.Helper()
	req, _ := http.NewRequest(http.MethodGet, e.url+path, nil)
	if etag != "" {
		req.Header.Set("If-None-Match", etag)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	if res.StatusCode == http.StatusOK && res.Header.Get("Content-Type") != "text/calendar; charset=utf-8" {
		e.t.Fatalf("content type %q", res.Header.Get("Content-Type"))
	}
	return res.StatusCode, string(body), res.Header.Get("ETag")
}

const rotate = `mutation($c: ID!) { rotateCalendarFeed(input: {calendarId: $c}) { url path } }`

const importDoc = `mutation($c: ID!, $ics: String!) { importCalendar(input: {calendarId: $c, ics: $ics}) {
	entries { id title } errors { index uid message code imported } } }`

// quarter returns what a calendar shows from January to March 2026, as
// lines of the fields that matter.
func (e *env) quarter(token, calendarID string) []string {
	e.t.Helper()
	d := e.must(token, `query($c: ID!) { calendar(id: $c) { entries(range: {dates: {start: "2026-01-01", end: "2026-04-01"}},
		timeZone: "Europe/Paris") { entries { title status isException
		... on TimedEntry { start end timeZone } ... on AllDayEntry { date } ... on MultiDayEntry { startDate endDate } } } } }`,
		map[string]any{"c": calendarID})
	var out []string
	for _, x := range get(d, "calendar.entries.entries").([]any) {
		out = append(out, strings.Join([]string{str(x, "title"), str(x, "start"), str(x, "end"), str(x, "timeZone"),
			str(x, "date"), str(x, "startDate"), str(x, "endDate"), str(x, "status")}, " "))
	}
	return out
}

// TestFeedRoundTrip serves a calendar's feed, imports it into another
// calendar and checks both show the same. (A cancelled occurrence travels as
// an EXDATE of its series, so the copy has no cancelled occurrence to show.)
func TestFeedRoundTrip(t *testing.T) {
	e := newEnv(t)
	w := e.world("f")
	e.weekly(w)
	occ := e.january(w.writer, w.calendarID, false)
	e.must(w.writer, `mutation($id: ID!, $v: Int!) { updateEntry(input: {id: $id, expectedVersion: $v, title: "Retro",
		timing: {timed: {start: "2026-01-13T15:00:00Z", end: "2026-01-13T16:00:00Z", timeZone: "Europe/Paris"}}}) { entry { id } } }`,
		map[string]any{"id": str(occ[1], "id"), "v": num(occ[1], "version")})
	e.must(w.writer, `mutation($id: ID!, $v: Int!) { deleteEntry(input: {id: $id, expectedVersion: $v}) { deletedEntryId } }`,
		map[string]any{"id": str(occ[2], "id"), "v": num(occ[2], "version")})
	for _, q := range []string{
		`mutation($c: ID!) { createEntry(input: {calendarId: $c, title: "Lunch, with \"Ada\"", description: "line one\nline two",
			location: "Café; upstairs", tags: ["food", "team"], timing: {timed: {start: "2026-02-10T11:30:00Z", end: "2026-02-10T13:00:00Z", timeZone: "America/New_York"}}}) { entry { id } } }`,
		`mutation($c: ID!) { createEntry(input: {calendarId: $c, title: "Holiday", timing: {allDay: {date: "2026-02-16"}}}) { entry { id } } }`,
		`mutation($c: ID!) { createEntry(input: {calendarId: $c, title: "Trip", timing: {multiDay: {startDate: "2026-03-02", endDate: "2026-03-07"}}}) { entry { id } } }`,
		`mutation($c: ID!) { createEntry(input: {calendarId: $c, title: "Month end", timing: {allDay: {date: "2026-01-30"}}, recurrence: {rule: "FREQ=MONTHLY;BYDAY=-1FR;COUNT=3"}}) { entry { id } } }`,
	} {
		e.must(w.writer, q, map[string]any{"c": w.calendarID})
	}

	d := e.must(w.owner, rotate, map[string]any{"c": w.calendarID})
	path := str(d, "rotateCalendarFeed.path")
	if !strings.HasPrefix(path, "/feeds/") || !strings.HasSuffix(path, ".ics") || !strings.HasSuffix(str(d, "rotateCalendarFeed.url"), path) {
		t.Fatalf("feed URL: %v", d)
	}
	status, ics, etag := e.getFeed(path, "")
	if status != http.StatusOK || !strings.Contains(ics, "BEGIN:VCALENDAR") || !strings.Contains(ics, "RECURRENCE-ID;TZID=Europe/Paris:20260112T090000") {
		t.Fatalf("feed: %d\n%s", status, ics)
	}
	if status, _, _ := e.getFeed(path, etag); status != http.StatusNotModified {
		t.Fatalf("a conditional GET of an unchanged feed: %d, want 304", status)
	}

	d = e.must(w.owner, `mutation { createCalendar(input: {name: "Copy", timeZone: "Europe/Paris"}) { calendar { id } } }`, nil)
	copyID := str(d, "createCalendar.calendar.id")
	d = e.must(w.owner, importDoc, map[string]any{"c": copyID, "ics": ics})
	if errs := get(d, "importCalendar.errors").([]any); len(errs) != 0 {
		t.Fatalf("import errors: %v", errs)
	}
	original, copied := e.quarter(w.owner, w.calendarID), e.quarter(w.owner, copyID)
	if !slices.Equal(original, copied) || len(original) < 12 {
		t.Fatalf("the import differs from its source:\n%q\n%q", original, copied)
	}

	// Rotating ends the old URL; disabling ends the feed.
	d = e.must(w.owner, rotate, map[string]any{"c": w.calendarID})
	if status, _, _ := e.getFeed(path, ""); status != http.StatusNotFound {
		t.Fatalf("the old feed URL after rotation: %d, want 404", status)
	}
	e.must(w.owner, `mutation($c: ID!) { disableCalendarFeed(input: {calendarId: $c}) { calendarId } }`, map[string]any{"c": w.calendarID})
	if status, _, _ := e.getFeed(str(d, "rotateCalendarFeed.path"), ""); status != http.StatusNotFound {
		t.Fatalf("a disabled feed: %d, want 404", status)
	}
	for _, bad := range []string{"/feeds/x.ics", "/feeds/" + strings.Repeat("A", 43) + ".ics", "/feeds/nothing"} {
		if status, _, _ := e.getFeed(bad, ""); status != http.StatusNotFound {
			t.Fatalf("%s: %d, want 404", bad, status)
		}
	}
}

func TestFeedAndImportPermissionsAndErrors(t *testing.T) {
	e := newEnv(t)
	w := e.world("fi")
	for i, a := range actors {
		t.Run("rotate by "+a.name, func(t *testing.T) {
			r := e.do(a.token(w), rotate, map[string]any{"c": w.calendarID})
			if want := (want{ok, forbid, forbid, absent, unauth})[i]; r.code() != want {
				t.Fatalf("got %s, want %q", r.Raw, want)
			}
		})
		t.Run("import by "+a.name, func(t *testing.T) {
			r := e.do(a.token(w), importDoc, map[string]any{"c": w.calendarID, "ics": "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:x\r\nEND:VCALENDAR\r\n"})
			if want := (want{ok, ok, forbid, absent, unauth})[i]; r.code() != want {
				t.Fatalf("got %s, want %q", r.Raw, want)
			}
		})
	}
	doc := strings.Join([]string{"BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//test//EN",
		"BEGIN:VEVENT", "UID:good", "DTSTAMP:20260101T000000Z", "DTSTART;TZID=Europe/Paris:20260105T090000", "DTEND;TZID=Europe/Paris:20260105T100000", "SUMMARY:Good", "RRULE:FREQ=WEEKLY;COUNT=3", "END:VEVENT",
		"BEGIN:VEVENT", "UID:good", "DTSTAMP:20260101T000000Z", "RECURRENCE-ID;TZID=Europe/Paris:20260106T090000", "DTSTART;TZID=Europe/Paris:20260106T090000", "SUMMARY:Not an occurrence", "END:VEVENT",
		"BEGIN:VEVENT", "UID:zone", "DTSTAMP:20260101T000000Z", "DTSTART;TZID=Mars/Olympus:20260105T090000", "SUMMARY:Bad zone", "END:VEVENT",
		"BEGIN:VEVENT", "UID:rule", "DTSTAMP:20260101T000000Z", "DTSTART:20260105T090000Z", "RRULE:FREQ=MINUTELY;UNTIL=20300101T000000Z", "SUMMARY:Every minute for years", "END:VEVENT",
		"BEGIN:VEVENT", "UID:forever", "DTSTAMP:20260101T000000Z", "DTSTART:20260105T090000Z", "RRULE:FREQ=MINUTELY", "SUMMARY:Every minute for ever", "END:VEVENT",
		"END:VCALENDAR", ""}, "\r\n")
	d := e.must(w.writer, importDoc, map[string]any{"c": w.calendarID, "ics": doc})
	if got := len(get(d, "importCalendar.entries").([]any)); got != 1 {
		t.Fatalf("imported %d entries, want the good series only", got)
	}
	var got []string
	for _, x := range get(d, "importCalendar.errors").([]any) {
		got = append(got, str(x, "uid")+" "+str(x, "code"))
	}
	if want := []string{"good NOT_FOUND", "zone BAD_USER_INPUT", "rule BAD_USER_INPUT", "forever BAD_USER_INPUT"}; !slices.Equal(got, want) {
		t.Fatalf("errors %q, want %q: %v", got, want, d)
	}
	r := e.do(w.writer, importDoc, map[string]any{"c": w.calendarID, "ics": "this is not a calendar"})
	if r.code() != "BAD_USER_INPUT" || r.Errors[0].Extensions.Field != "ics" {
		t.Fatalf("garbage: %s", r.Raw)
	}
}
