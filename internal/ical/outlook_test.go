package ical_test

import (
	"os"
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
// in the IANA zone CLDR maps the Windows name to, and the import says what
// it left out.
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
	if len(imp.Errors) != 1 || imp.Errors[0].Index != 0 || !strings.Contains(imp.Errors[0].Message, "imported without ORGANIZER, ATTENDEE") {
		t.Errorf("got notes %+v, want one for Planning saying ORGANIZER and ATTENDEE were left out", imp.Errors)
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
