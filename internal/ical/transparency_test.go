package ical_test

import (
	"strings"
	"testing"

	"github.com/calgraph/calgraph/internal/calendar"
	"github.com/calgraph/calgraph/internal/ical"
)

// TestImportedTransparency: an import reads Outlook's busy status first,
// then TRANSP, and leaves the transparency unset (the kind's default)
// without either or with values it does not know.
func TestImportedTransparency(t *testing.T) {
	for _, c := range []struct {
		props string
		want  calendar.Transparency
	}{
		{"", ""},
		{"TRANSP:TRANSPARENT\r\n", calendar.TransparencyFree},
		{"TRANSP:OPAQUE\r\n", calendar.TransparencyBusy},
		{"TRANSP:opaque\r\n", calendar.TransparencyBusy},
		{"TRANSP:SOMETIMES\r\n", ""},
		{"TRANSP:OPAQUE\r\nX-MICROSOFT-CDO-BUSYSTATUS:TENTATIVE\r\n", calendar.TransparencyTentative},
		{"TRANSP:OPAQUE\r\nX-MICROSOFT-CDO-BUSYSTATUS:OOF\r\n", calendar.TransparencyOutOfOffice},
		{"TRANSP:OPAQUE\r\nX-MICROSOFT-CDO-BUSYSTATUS:FREE\r\n", calendar.TransparencyFree},
		{"TRANSP:TRANSPARENT\r\nX-MICROSOFT-CDO-BUSYSTATUS:WORKINGELSEWHERE\r\n", calendar.TransparencyFree},
	} {
		imp := decodeEvent(t, c.props)
		if got := imp.Items[0].Entry.Transparency; got != c.want {
			t.Errorf("%q: got %q, want %q", c.props, got, c.want)
		}
	}
}

// TestImportedVisibility: CLASS:PRIVATE and CLASS:CONFIDENTIAL import as
// PRIVATE, PUBLIC and others as the default; a feed writes CLASS:PRIVATE
// on a private entry only.
func TestImportedVisibility(t *testing.T) {
	for _, c := range []struct {
		props string
		want  calendar.Visibility
	}{
		{"", ""},
		{"CLASS:PUBLIC\r\n", ""},
		{"CLASS:PRIVATE\r\n", calendar.VisibilityPrivate},
		{"CLASS:confidential\r\n", calendar.VisibilityPrivate},
		{"CLASS:X-SECRET\r\n", ""},
	} {
		imp := decodeEvent(t, c.props)
		if got := imp.Items[0].Entry.Visibility; got != c.want {
			t.Errorf("%q: got %q, want %q", c.props, got, c.want)
		}
	}
	f := newFixture(t)
	f.timed.VisibilitySet = calendar.VisibilityPrivate
	if got := contentLines(encode(t, f.feed), "CLASS"); len(got) != 1 || got[0] != "CLASS:PRIVATE" {
		t.Errorf("the feed's CLASS lines: %q, want one CLASS:PRIVATE", got)
	}
}

// decodeEvent decodes a document of one timed event with props besides
// its UID, DTSTAMP, DTSTART, DTEND and SUMMARY.
func decodeEvent(t *testing.T, props string) *ical.Import {
	t.Helper()
	doc := "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\nBEGIN:VEVENT\r\nUID:a@test\r\nDTSTAMP:20260101T000000Z\r\n" +
		"DTSTART:20260105T090000Z\r\nDTEND:20260105T100000Z\r\nSUMMARY:x\r\n" + props + "END:VEVENT\r\nEND:VCALENDAR\r\n"
	imp, err := ical.Decode(strings.NewReader(doc), "UTC")
	if err != nil || len(imp.Items) != 1 {
		t.Fatalf("%q: %v %+v", props, err, imp)
	}
	return imp
}
