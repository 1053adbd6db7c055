package ical_test

import (
	"testing"
	"time"

	"github.com/calgraph/calgraph/internal/calendar"
	"github.com/calgraph/calgraph/internal/ical"
)

func TestDecodeSeries(t *testing.T) {
	weekly := item("s", "Standup", timed(utc(t, "2026-03-02T14:00:00Z"), utc(t, "2026-03-02T14:15:00Z"), newYork))
	weekly.Entry.Recurrence = &calendar.Recurrence{Rule: "FREQ=WEEKLY;BYDAY=MO",
		RDates:  []time.Time{utc(t, "2026-03-11T18:00:00Z"), utc(t, "2026-03-12T18:00:00Z")},
		ExDates: []time.Time{utc(t, "2026-03-16T13:00:00Z"), utc(t, "2026-04-06T13:00:00Z")}}
	weekly.Exceptions = []ical.Exception{
		{OriginalStart: utc(t, "2026-03-23T13:00:00Z"), Update: calendar.EntryUpdate{
			Timing: calendar.Set(timed(utc(t, "2026-03-24T15:00:00Z"), utc(t, "2026-03-24T15:30:00Z"), newYork)),
			Title:  calendar.Set("Moved")}},
		{OriginalStart: utc(t, "2026-03-30T13:00:00Z"), Cancelled: true},
	}
	monthly := item("m", "Pay day", allDay(date(t, "2026-03-27")))
	monthly.Entry.Recurrence = &calendar.Recurrence{Rule: "FREQ=MONTHLY;BYDAY=-1FR",
		ExDates: []time.Time{utc(t, "2026-04-24T00:00:00Z")}}
	monthly.Exceptions = []ical.Exception{{OriginalStart: utc(t, "2026-05-29T00:00:00Z"), Update: calendar.EntryUpdate{
		Timing: calendar.Set(allDay(date(t, "2026-05-28"))), Location: calendar.Set("Bank")}}}
	const master = "DTSTART;TZID=America/New_York:20260302T090000"

	runDecodeCases(t, []decodeCase{
		{name: "a timed series with exceptions before and after it in the document",
			doc: doc(
				vevent("UID:s", "RECURRENCE-ID;TZID=America/New_York:20260323T090000", "SUMMARY:Moved",
					"DTSTART;TZID=America/New_York:20260324T110000", "DTEND;TZID=America/New_York:20260324T113000"),
				vevent("UID:s", "SUMMARY:Standup", master, "DTEND;TZID=America/New_York:20260302T091500",
					"RRULE:FREQ=WEEKLY;BYDAY=MO", "RDATE;TZID=America/New_York:20260311T140000,20260312T140000",
					"EXDATE:20260316T130000Z", "EXDATE;TZID=America/New_York:20260406T090000"),
				vevent("UID:s", "RECURRENCE-ID;TZID=America/New_York:20260330T090000", "STATUS:CANCELLED",
					"DTSTART;TZID=America/New_York:20260330T090000")),
			want: []ical.Item{weekly}},
		{name: "a series of whole days",
			doc: doc(vevent("UID:m", "SUMMARY:Pay day", "DTSTART;VALUE=DATE:20260327", "RRULE:FREQ=MONTHLY;BYDAY=-1FR",
				"EXDATE;VALUE=DATE:20260424"),
				vevent("UID:m", "RECURRENCE-ID;VALUE=DATE:20260529", "DTSTART;VALUE=DATE:20260528", "LOCATION:Bank")),
			want: []ical.Item{monthly}},
		{name: "a series of whole days with date-time EXDATEs",
			doc:        doc(vevent("UID:m", "DTSTART;VALUE=DATE:20260327", "RRULE:FREQ=MONTHLY", "EXDATE:20260424T000000Z")),
			wantErrors: []ical.ItemError{{Index: 0, UID: "m", Message: "EXDATE values must be dates"}}},
		{name: "a timed series with date RDATEs",
			doc:        doc(vevent("UID:s", master, "RRULE:FREQ=DAILY", "RDATE;VALUE=DATE:20260424")),
			wantErrors: []ical.ItemError{{Index: 0, UID: "s", Message: "RDATE values must be date-times"}}},
		{name: "RDATE periods",
			doc:        doc(vevent("UID:s", master, "RRULE:FREQ=DAILY", "RDATE;VALUE=PERIOD:20260424T090000Z/PT1H")),
			wantErrors: []ical.ItemError{{Index: 0, UID: "s", Message: "VALUE=PERIOD is not supported"}}},
		{name: "two RRULEs",
			doc:        doc(vevent("UID:s", master, "RRULE:FREQ=DAILY", "RRULE:FREQ=WEEKLY")),
			wantErrors: []ical.ItemError{{Index: 0, UID: "s", Message: "more than one RRULE"}}},
		{name: "RDATE without RRULE",
			doc:        doc(vevent("UID:s", master, "RDATE:20260424T090000Z")),
			wantErrors: []ical.ItemError{{Index: 0, UID: "s", Message: "RDATE without RRULE"}}},
		{name: "a RECURRENCE-ID without its series",
			doc:        doc(vevent("UID:x", "RECURRENCE-ID:20260311T090000Z", "DTSTART:20260311T100000Z")),
			wantErrors: []ical.ItemError{{Index: 0, UID: "x", Message: "RECURRENCE-ID without an event of the same UID"}}},
		{name: "a RECURRENCE-ID of an event that does not recur",
			doc: doc(vevent("UID:x", "SUMMARY:Once", "DTSTART:20260311T090000Z"),
				vevent("UID:x", "RECURRENCE-ID:20260311T090000Z", "DTSTART:20260311T100000Z")),
			want:       []ical.Item{item("x", "Once", timed(utc(t, "2026-03-11T09:00:00Z"), time.Time{}, "UTC"))},
			wantErrors: []ical.ItemError{{Index: 1, UID: "x", Message: "does not recur"}}},
		{name: "a RECURRENCE-ID in another form than the series' start, or for a range",
			doc: doc(vevent("UID:m", "SUMMARY:Pay day", "DTSTART;VALUE=DATE:20260327", "RRULE:FREQ=MONTHLY;BYDAY=-1FR"),
				vevent("UID:m", "RECURRENCE-ID:20260424T000000Z", "DTSTART;VALUE=DATE:20260423"),
				vevent("UID:m", "RECURRENCE-ID;RANGE=THISANDFUTURE;VALUE=DATE:20260529", "DTSTART;VALUE=DATE:20260528")),
			want: []ical.Item{func() ical.Item {
				i := item("m", "Pay day", allDay(date(t, "2026-03-27")))
				i.Entry.Recurrence = &calendar.Recurrence{Rule: "FREQ=MONTHLY;BYDAY=-1FR"}
				return i
			}()},
			wantErrors: []ical.ItemError{{Index: 1, UID: "m", Message: "RECURRENCE-ID must be a date"},
				{Index: 2, UID: "m", Message: "RANGE"}}},
	})
}
