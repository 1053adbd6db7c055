package ical_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/calgraph/calgraph/internal/calendar"
	"github.com/calgraph/calgraph/internal/ical"
)

// decodeCase is a document, what Decode should import from it (default zone
// Europe/Paris) and the errors it should report; a wanted error's Message is
// a part of the message.
type decodeCase struct {
	name       string
	doc        string
	want       []ical.Item
	wantErrors []ical.ItemError
}

func runDecodeCases(t *testing.T, tests []decodeCase) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			imp := decode(t, tt.doc)
			if diff := cmp.Diff(tt.want, imp.Items, ignoreIndexes); diff != "" {
				t.Errorf("items (-want +got):\n%s", diff)
			}
			if len(imp.Errors) != len(tt.wantErrors) {
				t.Fatalf("got errors %+v, want %+v", imp.Errors, tt.wantErrors)
			}
			for i, w := range tt.wantErrors {
				if g := imp.Errors[i]; g.Index != w.Index || g.UID != w.UID || !strings.Contains(g.Message, w.Message) {
					t.Errorf("error %d: got %+v, want %+v", i, g, w)
				}
			}
		})
	}
}

func vevent(lines ...string) []string {
	return slices.Concat([]string{"BEGIN:VEVENT"}, lines, []string{"END:VEVENT"})
}

func vtodo(lines ...string) []string {
	return slices.Concat([]string{"BEGIN:VTODO"}, lines, []string{"END:VTODO"})
}

func doc(components ...[]string) string { return document(slices.Concat(components...)...) }

// item is an imported entry with the fields Decode fills when a component
// gives nothing but its timing: no reminders.
func item(uid, title string, timing calendar.Timing) ical.Item {
	return ical.Item{UID: uid, Entry: calendar.NewEntry{Timing: timing, Title: title, Reminders: calendar.Set[[]int](nil)}}
}

func timed(start, end time.Time, zone string) calendar.Timing {
	return calendar.Timing{Timed: &calendar.TimedTiming{Start: start, End: end, TimeZone: zone}}
}

func allDay(d calendar.Date) calendar.Timing { return calendar.Timing{AllDay: &d} }

func TestDecodeEvents(t *testing.T) {
	runDecodeCases(t, []decodeCase{
		{name: "floating time is in the default zone",
			doc:  doc(vevent("UID:1", "SUMMARY:Lunch", "DTSTART:20260310T120000", "DTEND:20260310T130000")),
			want: []ical.Item{item("1", "Lunch", timed(utc(t, "2026-03-10T11:00:00Z"), utc(t, "2026-03-10T12:00:00Z"), "Europe/Paris"))}},
		{name: "the Z form is UTC",
			doc:  doc(vevent("UID:1", "SUMMARY:Call", "DTSTART:20260310T120000Z", "DTEND:20260310T130000Z")),
			want: []ical.Item{item("1", "Call", timed(utc(t, "2026-03-10T12:00:00Z"), utc(t, "2026-03-10T13:00:00Z"), "UTC"))}},
		{name: "an unknown zone fails its component only",
			doc: doc(vevent("UID:bad", "DTSTART;TZID=Foo/Bar:20260310T120000"),
				vevent("UID:good", "SUMMARY:Fine", "DTSTART;TZID=Asia/Tokyo:20260310T120000", "DTEND;TZID=Asia/Tokyo:20260310T130000")),
			want:       []ical.Item{item("good", "Fine", timed(utc(t, "2026-03-10T03:00:00Z"), utc(t, "2026-03-10T04:00:00Z"), "Asia/Tokyo"))},
			wantErrors: []ical.ItemError{{Index: 0, UID: "bad", Message: `unknown time zone "Foo/Bar"`}}},
		{name: "a zone calgraph refuses",
			doc:        doc(vevent("UID:local", "DTSTART;TZID=Local:20260310T120000")),
			wantErrors: []ical.ItemError{{Index: 0, UID: "local", Message: "IANA time zone name"}}},
		{name: "DURATION",
			doc:  doc(vevent("UID:1", "SUMMARY:Talk", "DTSTART;TZID=America/New_York:20260310T090000", "DURATION:PT1H30M")),
			want: []ical.Item{item("1", "Talk", timed(utc(t, "2026-03-10T13:00:00Z"), utc(t, "2026-03-10T14:30:00Z"), newYork))}},
		{name: "no end, or none after the start, leaves the viewer's default duration",
			doc: doc(vevent("UID:1", "SUMMARY:Open", "DTSTART:20260310T090000Z"),
				vevent("UID:2", "SUMMARY:Instant", "DTSTART:20260310T090000Z", "DTEND:20260310T090000Z")),
			want: []ical.Item{item("1", "Open", timed(utc(t, "2026-03-10T09:00:00Z"), time.Time{}, "UTC")),
				item("2", "Instant", timed(utc(t, "2026-03-10T09:00:00Z"), time.Time{}, "UTC"))}},
		{name: "a time in a DST gap keeps its wall clock (read with the offset before it)",
			doc: doc(vevent("UID:1", "SUMMARY:Early", "DTSTART;TZID=America/New_York:20260308T023000")),
			want: []ical.Item{item("1", "Early", calendar.Timing{Timed: &calendar.TimedTiming{
				LocalStart: time.Date(2026, 3, 8, 2, 30, 0, 0, time.UTC), TimeZone: newYork}})}},
		{name: "ending before the start",
			doc:        doc(vevent("UID:1", "DTSTART:20260310T090000Z", "DTEND:20260310T080000Z")),
			wantErrors: []ical.ItemError{{Index: 0, UID: "1", Message: "ends before it starts"}}},
		{name: "whole days: all-day or multi-day",
			doc: doc(vevent("UID:1", "SUMMARY:A", "DTSTART;VALUE=DATE:20260312"),
				vevent("UID:2", "SUMMARY:B", "DTSTART;VALUE=DATE:20260313", "DTEND;VALUE=DATE:20260314"),
				vevent("UID:3", "SUMMARY:C", "DTSTART;VALUE=DATE:20260320", "DTEND;VALUE=DATE:20260323"),
				vevent("UID:4", "SUMMARY:D", "DTSTART;VALUE=DATE:20260401", "DURATION:P2D"),
				vevent("UID:5", "SUMMARY:E", "DTSTART;VALUE=DATE:20260401", "DTEND:20260402T000000Z")),
			want: []ical.Item{item("1", "A", allDay(date(t, "2026-03-12"))), item("2", "B", allDay(date(t, "2026-03-13"))),
				item("3", "C", calendar.Timing{MultiDay: &calendar.DaySpan{Start: date(t, "2026-03-20"), End: date(t, "2026-03-23")}}),
				item("4", "D", calendar.Timing{MultiDay: &calendar.DaySpan{Start: date(t, "2026-04-01"), End: date(t, "2026-04-03")}})},
			wantErrors: []ical.ItemError{{Index: 4, UID: "5", Message: "DTEND must be a date"}}},
		{name: "a recurring multi-day event",
			doc:        doc(vevent("UID:1", "DTSTART;VALUE=DATE:20260320", "DTEND;VALUE=DATE:20260323", "RRULE:FREQ=WEEKLY")),
			wantErrors: []ical.ItemError{{Index: 0, UID: "1", Message: "multi-day events cannot recur in calgraph"}}},
		{name: "a cancelled event, and its exception",
			doc: doc(vevent("UID:1", "STATUS:CANCELLED", "DTSTART:20260310T090000Z", "RRULE:FREQ=DAILY"),
				vevent("UID:1", "RECURRENCE-ID:20260311T090000Z", "DTSTART:20260311T100000Z")),
			wantErrors: []ical.ItemError{{Index: 0, UID: "1", Message: "cancelled event; not imported"},
				{Index: 1, UID: "1", Message: "its series could not be imported"}}},
		{name: "a repeated UID",
			doc: doc(vevent("UID:1", "SUMMARY:First", "DTSTART:20260310T090000Z"),
				vevent("UID:1", "SUMMARY:Second", "DTSTART:20260311T090000Z")),
			want:       []ical.Item{item("1", "First", timed(utc(t, "2026-03-10T09:00:00Z"), time.Time{}, "UTC"))},
			wantErrors: []ical.ItemError{{Index: 1, UID: "1", Message: "same UID"}}},
		{name: "without DTSTART",
			doc:        doc(vevent("SUMMARY:Nothing")),
			wantErrors: []ical.ItemError{{Index: 0, Message: "DTSTART is missing"}}},
		{name: "journals and free/busy are skipped and not counted",
			doc: doc([]string{"BEGIN:VJOURNAL", "UID:j", "END:VJOURNAL", "BEGIN:VFREEBUSY", "UID:f", "END:VFREEBUSY"},
				vevent("UID:1", "DTSTART:2026-03-10")),
			wantErrors: []ical.ItemError{{Index: 0, UID: "1", Message: `DTSTART: "2026-03-10" is not a date-time`}}},
	})
}
