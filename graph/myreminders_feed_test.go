package graph_test

import (
	"net/http"
	"strings"
	"testing"
)

// TestOwnRemindersStayOutOfFeeds: a calendar's feed is read by anyone with
// its URL, so a member's own reminders (and the calendar default of theirs
// the entry falls back to) never become its VALARMs; the entry's shared
// reminders, set before own reminders existed, still do (docs/design.md,
// "Own reminders").
func TestOwnRemindersStayOutOfFeeds(t *testing.T) {
	e := newEnv(t)
	w := e.world("remfeed")
	d := e.must(w.writer, `mutation($c: ID!) { createEntry(input: {calendarId: $c, title: "Shared", reminders: [23],
		timing: {timed: {start: "2026-12-01T10:00:00Z", end: "2026-12-01T11:00:00Z"}}}) { entry { id } } }`, map[string]any{"c": w.calendarID})
	shared := str(d, "createEntry.entry.id")
	d = e.must(w.writer, `mutation($c: ID!) { createEntry(input: {calendarId: $c, title: "Mine",
		timing: {timed: {start: "2026-12-02T10:00:00Z", end: "2026-12-02T11:00:00Z"}}}) { entry { id } } }`, map[string]any{"c": w.calendarID})
	mine := str(d, "createEntry.entry.id")
	e.must(w.reader, setMine, map[string]any{"id": mine, "r": []any{map[string]any{"minutes": 37}}})
	e.must(w.reader, setMine, map[string]any{"id": shared, "r": []any{map[string]any{"minutes": 41, "method": "WEBHOOK"}}})
	e.must(w.owner, `mutation($c: ID!) { updateCalendarSettings(input: {calendarId: $c, expectedVersion: 0, defaultReminders: [{minutes: 53}]}) { membership { id } } }`,
		map[string]any{"c": w.calendarID})

	path := str(e.must(w.owner, rotate, map[string]any{"c": w.calendarID}), "rotateCalendarFeed.path")
	status, ics, _ := e.getFeed(path, "")
	if status != http.StatusOK || !strings.Contains(ics, "SUMMARY:Mine") {
		t.Fatalf("feed: %d\n%s", status, ics)
	}
	if !strings.Contains(ics, "TRIGGER:-PT23M") {
		t.Fatalf("the entry's shared reminder (23 minutes) is missing from the feed:\n%s", ics)
	}
	for _, own := range []string{"PT37M", "PT41M", "PT53M"} {
		if strings.Contains(ics, own) {
			t.Fatalf("a member's own reminder (%s) is in the calendar's feed:\n%s", own, ics)
		}
	}
}
