package ical_test

import (
	"bytes"
	"testing"
	"time"

	goical "github.com/emersion/go-ical"

	"github.com/calgraph/calgraph/internal/calendar"
	"github.com/calgraph/calgraph/internal/ical"
	"github.com/calgraph/calgraph/internal/recurrence"
)

// TestSplitSeriesNamesItsOrigin checks that a series split off another
// (THIS_AND_FOLLOWING) carries RELATED-TO the original's UID.
func TestSplitSeriesNamesItsOrigin(t *testing.T) {
	start := time.Date(2026, 1, 5, 8, 0, 0, 0, time.UTC)
	first := &calendar.Entry{ID: "a", CalendarID: "c", Kind: calendar.KindTimed, Title: "Sync", Start: start, End: start.Add(time.Hour),
		TimeZone: "UTC", ICalUID: "a@test", Recurrence: &calendar.Recurrence{Rule: "FREQ=WEEKLY;UNTIL=20260201T000000Z"}}
	later := start.AddDate(0, 1, 0)
	second := &calendar.Entry{ID: "b", CalendarID: "c", Kind: calendar.KindTimed, Title: "Sync v2", Start: later, End: later.Add(time.Hour),
		TimeZone: "UTC", ICalUID: "b@test", Recurrence: &calendar.Recurrence{Rule: "FREQ=WEEKLY"}, PreviousSeriesID: "a"}
	var buf bytes.Buffer
	err := ical.Encode(&buf, ical.Feed{Calendar: &calendar.Calendar{ID: "c", Name: "Work", TimeZone: "UTC"},
		Entries: []*calendar.Entry{second, first}, Now: start, Engine: recurrence.Engine{}})
	if err != nil {
		t.Fatal(err)
	}
	cal, err := goical.NewDecoder(&buf).Decode()
	if err != nil {
		t.Fatal(err)
	}
	related := map[string]string{}
	for _, ev := range cal.Events() {
		uid, _ := ev.Props.Text(goical.PropUID)
		if p := ev.Props.Get(goical.PropRelatedTo); p != nil {
			related[uid] = p.Params.Get("RELTYPE") + " " + p.Value
		}
	}
	if len(related) != 1 || related["b@test"] != "SIBLING a@test" {
		t.Fatalf("RELATED-TO: got %v, want only b@test naming a@test", related)
	}
}
