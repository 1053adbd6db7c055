package ical_test

import (
	"bufio"
	"bytes"
	"strings"
	"testing"

	goical "github.com/emersion/go-ical"

	"github.com/calgraph/calgraph/internal/calendar"
	"github.com/calgraph/calgraph/internal/ical"
)

// FuzzDecode checks that no document makes Decode panic, and that it either
// refuses a document as invalid or accounts for every component: each VEVENT
// and VTODO of the document, counted without Decode, is exactly one Item, one
// Exception or one ItemError, by its index.
func FuzzDecode(f *testing.F) {
	f.Add(encode(f, newFixture(f).feed))
	for _, s := range []string{
		doc(vevent("UID:1", "DTSTART;TZID=America/New_York:20260308T023000", "RRULE:FREQ=DAILY", "EXDATE;TZID=America/New_York:20260309T023000,20260310T023000")),
		doc(vevent("UID:1", "DTSTART;VALUE=DATE:20260308", "DURATION:P3D"), vtodo("UID:2", "DUE:20260308T100000Z", "STATUS:COMPLETED")),
		doc(vevent("UID:1", "RECURRENCE-ID;VALUE=DATE:20260308", "STATUS:CANCELLED")),
		"BEGIN:VCALENDAR\r\nX;A=\"b\"c:d\r\nEND:VCALENDAR\r\n",
		// Two VCALENDARs, each with an event Decode refuses at its end.
		"\uFEFF" + doc(vevent("UID:1", "DTSTART:20260308T090000Z"), vevent("UID:1", "DTSTART:20260308T090000Z")) + "\n" +
			doc(vtodo("UID:2", "DUE:20260308T100000Z"), vevent("UID:3", "RECURRENCE-ID:20260308T090000Z")),
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
			if e.Message == "" || e.Code != calendar.CodeInvalid {
				t.Errorf("got error %+v for component %d, want a message and code %v", e, e.Index, calendar.CodeInvalid)
			}
		}
		checkAccounting(t, imp, countComponents(t, data))
	})
}

// countComponents counts the VEVENTs and VTODOs of the VCALENDARs in data with
// go-ical's decoder alone, reading data as Decode is documented to (a byte
// order mark skipped, VCALENDARs one after the other, blank space between and
// after them), so that a component Decode loses cannot be lost here too.
func countComponents(t *testing.T, data []byte) int {
	t.Helper()
	br := bufio.NewReader(bytes.NewReader(bytes.TrimPrefix(data, []byte("\uFEFF"))))
	dec := goical.NewDecoder(br) // reads through br, so what follows a VCALENDAR is left in br
	n := 0
	for more := true; more; more = skipBlank(br) {
		cal, err := dec.Decode()
		if err != nil {
			t.Fatalf("Decode read a document that go-ical refuses: %v", err)
		}
		for _, c := range cal.Children {
			if c.Name == goical.CompEvent || c.Name == goical.CompToDo {
				n++
			}
		}
	}
	return n
}

// skipBlank skips spaces, tabs and line ends; it reports whether anything follows.
func skipBlank(br *bufio.Reader) bool {
	for {
		b, err := br.ReadByte()
		if err != nil {
			return false
		}
		if !strings.ContainsRune(" \t\r\n", rune(b)) {
			br.UnreadByte()
			return true
		}
	}
}

// checkAccounting checks Decode's promise about the n VEVENTs and VTODOs of a
// document: each becomes exactly one Item, one Exception of an Item or one
// ItemError, which carries the component's index.
func checkAccounting(t *testing.T, imp *ical.Import, n int) {
	t.Helper()
	seen := make([]string, n) // what component i became
	note := func(what string, i int) {
		switch {
		case i < 0 || i >= n:
			t.Errorf("got %s for component %d, want an index in [0, %d)", what, i, n)
		case seen[i] != "":
			t.Errorf("component %d is both %s and %s, want one of them", i, seen[i], what)
		default:
			seen[i] = what
		}
	}
	for _, it := range imp.Items {
		note("an item", it.Index)
		for _, x := range it.Exceptions {
			note("an exception", x.Index)
		}
	}
	for _, e := range imp.Errors {
		note("an error", e.Index)
	}
	for i, what := range seen {
		if what == "" {
			t.Errorf("component %d of %d is neither an item, an exception nor an error", i, n)
		}
	}
}
