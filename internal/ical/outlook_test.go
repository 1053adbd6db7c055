package ical_test

import (
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/calgraph/calgraph/internal/calendar"
	"github.com/calgraph/calgraph/internal/ical"
)

// TestOutlookExport reads a document as Outlook 365 exports it: TZIDs that
// are Windows zone names (with their VTIMEZONEs), a weekly series with an
// EXDATE in such a zone, an all-day event, ORGANIZER and ATTENDEE, and
// Microsoft's X- properties. Every component imports, at the right instants
// in the IANA zone CLDR maps the Windows name to, with its organizer and
// attendees.
func TestOutlookExport(t *testing.T) {
	doc, err := os.ReadFile("testdata/outlook.ics")
	if err != nil {
		t.Fatal(err)
	}
	imp := decode(t, string(doc))
	if len(imp.Items) != 3 {
		t.Fatalf("got %d items (errors %v), want all 3 components", len(imp.Items), imp.Errors)
	}
	planning, standup, holiday := imp.Items[0].Entry, imp.Items[1].Entry, imp.Items[2].Entry
	if tm := planning.Timing.Timed; tm == nil || tm.TimeZone != "America/New_York" ||
		!tm.Start.Equal(time.Date(2026, 3, 10, 13, 30, 0, 0, time.UTC)) || !tm.End.Equal(time.Date(2026, 3, 10, 14, 30, 0, 0, time.UTC)) {
		t.Errorf("Planning (09:30 New York, EDT since 8 March): got %+v", tm)
	}
	if tm := standup.Timing.Timed; tm == nil || tm.TimeZone != "Europe/Berlin" || !tm.Start.Equal(time.Date(2026, 1, 5, 8, 0, 0, 0, time.UTC)) {
		t.Errorf("Standup (09:00 Berlin, CET): got %+v", tm)
	}
	if r := standup.Recurrence; r == nil || len(r.ExDates) != 1 || !r.ExDates[0].Equal(time.Date(2026, 3, 30, 7, 0, 0, 0, time.UTC)) {
		t.Errorf("Standup's EXDATE (09:00 Berlin on 30 March, CEST): got %+v", r)
	}
	if holiday.Timing.AllDay == nil || holiday.Timing.AllDay.String() != "2026-01-19" {
		t.Errorf("Holiday: got %+v", holiday.Timing)
	}
	org, att := imp.Items[0].Organizer, imp.Items[0].Attendees
	if org == nil || !reflect.DeepEqual(*org, calendar.NewAttendee{Email: "ada@example.com", DisplayName: "Ada Lovelace"}) ||
		!reflect.DeepEqual(att, []calendar.NewAttendee{{Email: "bob@example.com", DisplayName: "Bob", Response: calendar.ResponseNeedsAction}}) {
		t.Errorf("Planning's people: organizer %+v, attendees %+v; want Ada organizing and Bob invited", org, att)
	}
	if len(imp.Errors) != 0 {
		t.Errorf("got notes %+v, want none: Planning keeps its ORGANIZER and ATTENDEE", imp.Errors)
	}
}

// TestWindowsZones: every zone of the CLDR table is one calgraph accepts,
// with Go's zone data.
func TestWindowsZones(t *testing.T) {
	for windows, iana := range ical.WindowsZones() {
		if _, err := time.LoadLocation(iana); err != nil {
			t.Errorf("%s → %s: %v", windows, iana, err)
		}
		if err := calendar.ValidateTimeZone("TZID", iana); err != nil {
			t.Errorf("%s → %s, which calgraph refuses: %v", windows, iana, err)
		}
	}
	if n := len(ical.WindowsZones()); n < 130 {
		t.Errorf("%d Windows zones, want CLDR's 139", n)
	}
}

// TestVTimezoneFallback: a TZID that is neither an IANA nor a Windows name
// is read through the document's VTIMEZONE, as the IANA zone that changes
// offsets on the same days; a VTIMEZONE without DAYLIGHT as an Etc/GMT zone;
// one that matches nothing is refused for its component, saying so.
func TestVTimezoneFallback(t *testing.T) {
	vtimezone := func(id, std, dst string, daylight bool) []string {
		lines := []string{"BEGIN:VTIMEZONE", "TZID:" + id,
			"BEGIN:STANDARD", "DTSTART:16011104T020000", std, "TZOFFSETFROM:-0400", "TZOFFSETTO:-0500", "END:STANDARD"}
		if daylight {
			lines = append(lines, "BEGIN:DAYLIGHT", "DTSTART:16010311T020000", dst, "TZOFFSETFROM:-0500", "TZOFFSETTO:-0400", "END:DAYLIGHT")
		}
		return append(lines, "END:VTIMEZONE")
	}
	event := func(uid, tzid string) []string {
		return []string{"BEGIN:VEVENT", "UID:" + uid, "SUMMARY:x", "DTSTAMP:20260101T000000Z",
			`DTSTART;TZID="` + tzid + `":20260310T093000`, `DTEND;TZID="` + tzid + `":20260310T103000`, "END:VEVENT"}
	}
	lines := slices.Concat(
		vtimezone("Customized Time Zone", "RRULE:FREQ=YEARLY;BYDAY=1SU;BYMONTH=11", "RRULE:FREQ=YEARLY;BYDAY=2SU;BYMONTH=3", true),
		vtimezone("No DST", "", "", false),
		vtimezone("Nowhere", "RRULE:FREQ=YEARLY;BYDAY=1SU;BYMONTH=1", "RRULE:FREQ=YEARLY;BYDAY=1SU;BYMONTH=2", true),
		event("a", "Customized Time Zone"), event("b", "No DST"), event("c", "Nowhere"))
	imp := decode(t, document(lines...))
	if len(imp.Items) != 2 {
		t.Fatalf("got %d items, errors %+v; want the first two", len(imp.Items), imp.Errors)
	}
	custom, fixed := imp.Items[0].Entry.Timing.Timed, imp.Items[1].Entry.Timing.Timed
	t.Logf("Customized Time Zone read as %s", custom.TimeZone)
	if !custom.Start.Equal(time.Date(2026, 3, 10, 13, 30, 0, 0, time.UTC)) || !strings.HasPrefix(custom.TimeZone, "America/") {
		t.Errorf("Customized Time Zone (US Eastern rules): got %s in %s, want 13:30 UTC in an American zone", custom.Start, custom.TimeZone)
	}
	if fixed.TimeZone != "Etc/GMT+5" || !fixed.Start.Equal(time.Date(2026, 3, 10, 14, 30, 0, 0, time.UTC)) {
		t.Errorf("a VTIMEZONE without DAYLIGHT: got %s in %s, want 14:30 UTC in Etc/GMT+5", fixed.Start, fixed.TimeZone)
	}
	if len(imp.Errors) != 1 || imp.Errors[0].UID != "c" || !strings.Contains(imp.Errors[0].Message, "matches no IANA zone") {
		t.Errorf("got errors %+v, want the unmatched VTIMEZONE's event refused", imp.Errors)
	}
}
