package graph_test

import (
	"slices"
	"testing"
)

// TestMovingAHourlySeriesWithALL: an hourly series with two exceptions on
// one day, moved half an hour later with scope ALL through one of them: the
// change lands (it once failed with VERSION_CONFLICT on every retry) and each
// exception follows its own occurrence.
func TestMovingAHourlySeriesWithALL(t *testing.T) {
	e := newEnv(t)
	w := e.world("hourly")
	e.must(w.writer, `mutation($c: ID!) { createEntry(input: {calendarId: $c, title: "Hourly",
		timing: {timed: {start: "2026-01-05T09:00:00Z", end: "2026-01-05T09:15:00Z", timeZone: "UTC"}},
		recurrence: {rule: "FREQ=HOURLY;COUNT=6"}}) { entry { id } } }`, map[string]any{"c": w.calendarID})
	day := func() []any {
		d := e.must(w.reader, `query($c: ID!) { calendar(id: $c) { entries(range: {dates: {start: "2026-01-05", end: "2026-01-06"}}, timeZone: "UTC") {
			entries { id title version ... on TimedEntry { start } } } } }`, map[string]any{"c": w.calendarID})
		return get(d, "calendar.entries.entries").([]any)
	}
	update := `mutation($id: ID!, $v: Int!, $t: String, $s: EditScope, $timing: EntryTimingInput) {
		updateEntry(input: {id: $id, expectedVersion: $v, title: $t, scope: $s, timing: $timing}) { entry { id } } }`
	occ := day()
	for _, i := range []int{1, 2} {
		e.must(w.writer, update, map[string]any{"id": str(occ[i], "id"), "v": num(occ[i], "version"), "t": "Renamed " + str(occ[i], "start")[11:16]})
	}
	occ = day()
	r := e.do(w.writer, update, map[string]any{"id": str(occ[2], "id"), "v": num(occ[2], "version"), "s": "ALL",
		"timing": map[string]any{"timed": map[string]any{"start": "2026-01-05T11:30:00Z", "end": "2026-01-05T11:45:00Z", "timeZone": "UTC"}}})
	if len(r.Errors) > 0 {
		t.Fatalf("ALL with a new timing: %s", r.Raw)
	}
	var got []string
	for _, o := range day() {
		got = append(got, str(o, "title")+" "+str(o, "start"))
	}
	want := []string{"Hourly 2026-01-05T09:30:00Z", "Renamed 10:00 2026-01-05T10:30:00Z", "Renamed 11:00 2026-01-05T11:30:00Z",
		"Hourly 2026-01-05T12:30:00Z", "Hourly 2026-01-05T13:30:00Z", "Hourly 2026-01-05T14:30:00Z"}
	if !slices.Equal(got, want) {
		t.Fatalf("after the move:\ngot  %q\nwant %q", got, want)
	}
}
