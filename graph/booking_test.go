package graph_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/calgraph/calgraph/graph/model"
)

const bookWithout = `mutation($c: ID!, $n: [ID!], $s: DateTime!, $e: DateTime!) { createEntry(input: {calendarId: $c, title: "Secret interview",
	timing: {timed: {start: $s, end: $e}}, mustNotOverlap: $n}) { entry { id } } }`

// TestBookingWithoutOverlap books from one's own calendar a slot on a
// calendar one sees only the busy time of: a clash is BUSY_CONFLICT naming
// the calendar and the busy time, never the entry that makes it busy; bad
// input is refused with its code.
func TestBookingWithoutOverlap(t *testing.T) {
	e := newEnv(t)
	w := e.world("bk")
	e.must(w.writer, `mutation($c: ID!) { createEntry(input: {calendarId: $c, title: "Board meeting",
		timing: {timed: {start: "2026-03-02T10:00:00Z", end: "2026-03-02T11:00:00Z"}}}) { entry { id } } }`, map[string]any{"c": w.calendarID})
	d := e.must(w.owner, `mutation($c: ID!) { createInvitation(input: {calendarId: $c, role: FREE_BUSY}) { token } }`, map[string]any{"c": w.calendarID})
	peeker := e.token("peeker-bk@example.com")
	e.must(peeker, acceptInvitation, map[string]any{"t": str(d, "createInvitation.token")})
	own := str(e.must(peeker, `mutation { createCalendar(input: {name: "Mine"}) { calendar { id } } }`, nil), "createCalendar.calendar.id")

	r := e.do(peeker, bookWithout, map[string]any{"c": own, "n": []string{w.calendarID}, "s": "2026-03-02T10:30:00Z", "e": "2026-03-02T11:30:00Z"})
	if r.code() != "BUSY_CONFLICT" || strings.Contains(r.Raw, "Board") {
		t.Fatalf("got %s, want BUSY_CONFLICT without the title", r.Raw)
	}
	var body struct {
		Errors []struct {
			Extensions struct {
				Conflict map[string]string `json:"conflict"`
			} `json:"extensions"`
		} `json:"errors"`
	}
	if err := json.Unmarshal([]byte(r.Raw), &body); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"calendarId": w.calendarID, "start": "2026-03-02T10:30:00Z", "end": "2026-03-02T11:00:00Z"}
	if got := body.Errors[0].Extensions.Conflict; len(got) != len(want) || got["calendarId"] != want["calendarId"] ||
		got["start"] != want["start"] || got["end"] != want["end"] {
		t.Errorf("extensions.conflict %v, want %v", got, want)
	}
	e.must(peeker, bookWithout, map[string]any{"c": own, "n": []string{w.calendarID}, "s": "2026-03-02T11:00:00Z", "e": "2026-03-02T12:00:00Z"})
	// The booking, on the peeker's calendar, makes the team's calendar busy
	// in its freeBusy too (its hold), without a title.
	fb := e.must(w.reader, `query($ids: [ID!]!) { freeBusy(calendarIds: $ids, range: {dates: {start: "2026-03-02", end: "2026-03-03"}}, timeZone: "UTC") {
		calendars { busy { start end status } } } }`, map[string]any{"ids": []string{w.calendarID}})
	var busy []string
	for _, b := range get(fb, "freeBusy.calendars.0.busy").([]any) {
		busy = append(busy, str(b, "start")+" "+str(b, "end")+" "+str(b, "status"))
	}
	if want := []string{"2026-03-02T10:00:00Z 2026-03-02T12:00:00Z BUSY"}; !slices.Equal(busy, want) {
		t.Errorf("the team's busy time %q, want %q", busy, want)
	}

	// findTimes reads the same busy time (calendarsBusy): a hold counts
	// (in the future: findTimes proposes no start in the past).
	e.must(peeker, bookWithout, map[string]any{"c": own, "n": []string{w.calendarID}, "s": "2027-03-02T10:00:00Z", "e": "2027-03-02T11:00:00Z"})
	ft := e.must(w.reader, findTimesStates, map[string]any{"in": map[string]any{"groups": []any{map[string]any{"calendars": []any{w.calendarID}}},
		"durationMinutes": 60, "stepMinutes": 60, "timeZone": "UTC", "range": map[string]any{"instants": map[string]any{"start": "2027-03-02T09:00:00Z", "end": "2027-03-02T13:00:00Z"}}}})
	var starts []string
	for _, s := range get(ft, "findTimes.slots").([]any) {
		starts = append(starts, str(s, "start")[11:16])
	}
	if want := []string{"09:00", "11:00", "12:00"}; !slices.Equal(starts, want) {
		t.Errorf("findTimes over the team's calendar: %q, want %q (%v)", starts, want, ft)
	}

	var eleven []string // distinct calendars: the count is checked before they are read
	for i := range 11 {
		eleven = append(eleven, model.CalendarGID(fmt.Sprintf("00000000-0000-4000-8000-%012d", i)))
	}
	bad := []struct {
		name, token, query string
		vars               map[string]any
		code               string
	}{
		{"11 calendars", peeker, bookWithout, map[string]any{"c": own, "n": eleven, "s": "2026-03-03T10:00:00Z", "e": "2026-03-03T11:00:00Z"}, "BAD_USER_INPUT"},
		{"a calendar the viewer cannot see", w.outsider, bookWithout, map[string]any{"c": w.calendarID, "n": []string{w.calendarID}, "s": "2026-03-03T10:00:00Z", "e": "2026-03-03T11:00:00Z"}, "NOT_FOUND"},
		{"not a calendar ID", peeker, bookWithout, map[string]any{"c": own, "n": []string{"nope"}, "s": "2026-03-03T10:00:00Z", "e": "2026-03-03T11:00:00Z"}, "BAD_USER_INPUT"},
		{"a series", peeker, `mutation($c: ID!, $n: [ID!]) { createEntry(input: {calendarId: $c, title: "Weekly",
			timing: {timed: {start: "2026-03-03T10:00:00Z", end: "2026-03-03T11:00:00Z"}}, recurrence: {rule: "FREQ=WEEKLY;COUNT=3"}, mustNotOverlap: $n}) { entry { id } } }`,
			map[string]any{"c": own, "n": []string{w.calendarID}}, "BAD_USER_INPUT"},
	}
	for _, b := range bad {
		if r := e.do(b.token, b.query, b.vars); r.code() != b.code {
			t.Errorf("%s: got %s, want %s", b.name, r.Raw, b.code)
		}
	}
	d = e.must(peeker, `query($c: ID!) { calendar(id: $c) { entries(range: {dates: {start: "2026-03-01", end: "2026-03-08"}}) { entries { title } } } }`, map[string]any{"c": own})
	if n := len(get(d, "calendar.entries.entries").([]any)); n != 1 {
		t.Errorf("the calendar holds %d entries after the refusals, want the 1 booked", n)
	}
}
