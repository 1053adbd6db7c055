package ical_test

import (
	"strings"
	"testing"
	"time"

	"github.com/calgraph/calgraph/internal/calendar"
)

// TestAnswerOverridesBounded: a series answered apart on occurrences that
// have no exception gets an override for each one whose answers differ
// from the series answers (none for an answer equal to the series', none
// for the moved exception, which has its own); a THIS_AND_FOLLOWING answer
// on a series without an end is written for 62 days from 31 days before
// the feed is made, not forever.
func TestAnswerOverridesBounded(t *testing.T) {
	f := newFixture(t)
	f.weekly.Recurrence = &calendar.Recurrence{Rule: "FREQ=DAILY"}
	f.feed.Exceptions = nil
	f.feed.Now = utc(t, "2026-06-01T12:00:00Z")
	at := func(s string) time.Time { return utc(t, s) }
	f.feed.Attendees = map[string][]*calendar.Attendee{f.weekly.ID: {
		{Email: "ann@example.com", Response: calendar.ResponseAccepted, Occurrences: []calendar.OccurrenceAnswer{
			{Key: calendar.AnswerKey{From: at("2026-03-05T14:00:00Z")}, Response: calendar.ResponseDeclined},
			{Key: calendar.AnswerKey{From: at("2026-03-06T14:00:00Z")}, Response: calendar.ResponseAccepted}, // as the series: no override
		}},
		{Email: "bob@example.com", Response: calendar.ResponseNeedsAction, Occurrences: []calendar.OccurrenceAnswer{
			{Key: calendar.AnswerKey{From: at("2026-03-10T14:00:00Z"), Following: true}, Response: calendar.ResponseTentative},
		}},
	}}
	ids := contentLines(encode(t, f.feed), "RECURRENCE-ID")
	if len(ids) != 1+62 {
		t.Fatalf("%d overrides, want 63: %q…", len(ids), ids[:min(len(ids), 3)])
	}
	if !strings.HasSuffix(ids[0], ":20260305T090000") || !strings.HasSuffix(ids[1], ":20260501T090000") || !strings.HasSuffix(ids[62], ":20260701T090000") {
		t.Errorf("overrides from %s, then %s to %s; want March 5, then May 1 to July 1", ids[0], ids[1], ids[62])
	}
}
