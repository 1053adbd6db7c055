package ical_test

import (
	"bytes"
	"testing"

	"github.com/calgraph/calgraph/internal/calendar"
	"github.com/calgraph/calgraph/internal/ical"
)

// FuzzDecode checks that no document makes Decode panic, and that it either
// refuses a document as invalid or accounts for every component.
func FuzzDecode(f *testing.F) {
	f.Add(encode(f, newFixture(f).feed))
	for _, s := range []string{
		doc(vevent("UID:1", "DTSTART;TZID=America/New_York:20260308T023000", "RRULE:FREQ=DAILY", "EXDATE;TZID=America/New_York:20260309T023000,20260310T023000")),
		doc(vevent("UID:1", "DTSTART;VALUE=DATE:20260308", "DURATION:P3D"), vtodo("UID:2", "DUE:20260308T100000Z", "STATUS:COMPLETED")),
		doc(vevent("UID:1", "RECURRENCE-ID;VALUE=DATE:20260308", "STATUS:CANCELLED")),
		"BEGIN:VCALENDAR\r\nX;A=\"b\"c:d\r\nEND:VCALENDAR\r\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		imp, err := ical.Decode(bytes.NewReader(data), "Europe/Paris")
		if err != nil {
			if got := calendar.ErrorCode(err); got != calendar.CodeInvalid {
				t.Fatalf("got code %v (%v), want %v", got, err, calendar.CodeInvalid)
			}
			return
		}
		for _, e := range imp.Errors {
			if e.Message == "" {
				t.Fatalf("got an error without a message for component %d", e.Index)
			}
		}
	})
}
