package ical_test

import (
	"bytes"
	"strings"
	"testing"
	"time"

	goical "github.com/emersion/go-ical"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/calgraph/calgraph/internal/calendar"
	"github.com/calgraph/calgraph/internal/ical"
	"github.com/calgraph/calgraph/internal/recurrence"
)

const newYork = "America/New_York"

func utc(t testing.TB, s string) time.Time {
	t.Helper()
	v, err := time.Parse(time.RFC3339, s)
	if err != nil {
		t.Fatal(err)
	}
	return v.UTC()
}

func date(t testing.TB, s string) calendar.Date {
	t.Helper()
	d, err := calendar.ReadDate(s)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// fixture is the feed of the round-trip test: one of every kind of entry, and
// two series with exceptions.
type fixture struct {
	feed             ical.Feed
	timed, allDay    *calendar.Entry
	multiDay         *calendar.Entry
	taskDate, done   *calendar.Entry
	weekly, monthly  *calendar.Entry
	moved, cancelled *calendar.Entry
}

func newFixture(t testing.TB) fixture {
	t.Helper()
	created, updated := utc(t, "2026-01-02T03:04:05Z"), utc(t, "2026-02-03T04:05:06Z")
	entry := func(uid string, kind calendar.Kind, title string) *calendar.Entry {
		return &calendar.Entry{ID: strings.Split(uid, "@")[0], CalendarID: "cal-1", Kind: kind, Title: title,
			ICalUID: uid, Sequence: 1, Version: 3, CreatedAt: created, UpdatedAt: updated}
	}
	var f fixture
	f.timed = entry("a-timed@calgraph.test", calendar.KindTimed, "Planning; Q2, with \"quotes\"")
	f.timed.Start, f.timed.End, f.timed.TimeZone = utc(t, "2026-03-10T14:00:00Z"), utc(t, "2026-03-10T15:30:00Z"), newYork
	f.timed.Description = "Agenda:\n1. budget, hiring\n2. a long line " + strings.Repeat("é", 60)
	f.timed.Location, f.timed.Color = "Room 4, 2nd floor", "#FF8800"
	f.timed.Tags, f.timed.Reminders = []string{"planning", "work"}, []int{10, 60}

	f.allDay = entry("b-allday@calgraph.test", calendar.KindAllDay, "Holiday")
	f.allDay.StartDate, f.allDay.EndDate = date(t, "2026-03-12"), date(t, "2026-03-13")

	f.multiDay = entry("c-multiday@calgraph.test", calendar.KindMultiDay, "Conference")
	f.multiDay.StartDate, f.multiDay.EndDate = date(t, "2026-03-20"), date(t, "2026-03-23")

	f.taskDate = entry("d-task@calgraph.test", calendar.KindTask, "File taxes")
	f.taskDate.StartDate, f.taskDate.EndDate = date(t, "2026-03-15"), date(t, "2026-03-16")

	f.done = entry("e-done@calgraph.test", calendar.KindTask, "Send report")
	f.done.Start, f.done.End, f.done.TimeZone = utc(t, "2026-03-16T17:00:00Z"), utc(t, "2026-03-16T17:00:00Z"), "UTC"
	f.done.Completed, f.done.CompletedAt, f.done.Reminders = true, utc(t, "2026-03-16T16:00:00Z"), []int{0}

	f.weekly = entry("f-weekly@calgraph.test", calendar.KindTimed, "Standup")
	f.weekly.Start, f.weekly.End, f.weekly.TimeZone = utc(t, "2026-03-02T14:00:00Z"), utc(t, "2026-03-02T14:15:00Z"), newYork
	f.weekly.Description, f.weekly.Reminders = "Daily sync", []int{5}
	f.weekly.Recurrence = &calendar.Recurrence{Rule: "FREQ=WEEKLY;COUNT=10;BYDAY=MO",
		RDates: []time.Time{utc(t, "2026-03-11T18:00:00Z")}, ExDates: []time.Time{utc(t, "2026-03-16T13:00:00Z")}}

	f.moved = exception(f.weekly, utc(t, "2026-03-23T13:00:00Z"), &calendar.Entry{Version: 2, Sequence: 4,
		Overrides: []string{calendar.FieldTiming, calendar.FieldTitle}, Title: "Standup (moved)",
		Start: utc(t, "2026-03-24T15:00:00Z"), End: utc(t, "2026-03-24T15:30:00Z"), TimeZone: newYork})
	f.cancelled = exception(f.weekly, utc(t, "2026-03-30T13:00:00Z"), &calendar.Entry{Version: 1, Sequence: 2, Cancelled: true})

	f.monthly = entry("g-monthly@calgraph.test", calendar.KindAllDay, "Pay day")
	f.monthly.StartDate, f.monthly.EndDate = date(t, "2026-03-27"), date(t, "2026-03-28")
	f.monthly.Recurrence = &calendar.Recurrence{Rule: "FREQ=MONTHLY;BYDAY=-1FR"}

	f.feed = ical.Feed{
		Calendar: &calendar.Calendar{ID: "cal-1", Name: "Team, Berlin; \"Ops\"", Color: "#3B82F6",
			Description: "Shared calendar", TimeZone: newYork},
		// Out of order on purpose: the output must not depend on it.
		Entries:    []*calendar.Entry{f.monthly, f.done, f.weekly, f.timed, f.multiDay, f.allDay, f.taskDate},
		Exceptions: []*calendar.Entry{f.cancelled, f.moved},
		Now:        utc(t, "2026-03-01T12:00:00Z"),
		Engine:     recurrence.Engine{},
	}
	return f
}

// exception returns the occurrence of series at orig as exc changes it, as a
// feed lists exceptions.
func exception(series *calendar.Entry, orig time.Time, exc *calendar.Entry) *calendar.Entry {
	exc.ID, exc.SeriesID, exc.OriginalStart, exc.IsException = calendar.OccurrenceID(series.ID, orig), series.ID, orig, true
	return series.OccurrenceAt(orig).Overlay(exc)
}

// encode encodes a feed, with the server's recurrence engine unless the
// feed names one.
func encode(t testing.TB, f ical.Feed) []byte {
	t.Helper()
	if f.Engine == nil {
		f.Engine = recurrence.Engine{}
	}
	var buf bytes.Buffer
	if err := ical.Encode(&buf, f); err != nil {
		t.Fatalf("Encode: %v", err)
	}
	return buf.Bytes()
}

// parse reads a document back with go-ical's own decoder.
func parse(t *testing.T, doc []byte) *goical.Calendar {
	t.Helper()
	cal, err := goical.NewDecoder(bytes.NewReader(doc)).Decode()
	if err != nil {
		t.Fatalf("go-ical cannot read the output: %v\n%s", err, doc)
	}
	return cal
}

// children returns cal's components named name.
func children(cal *goical.Calendar, name string) []*goical.Component {
	var out []*goical.Component
	for _, c := range cal.Children {
		if c.Name == name {
			out = append(out, c)
		}
	}
	return out
}

// value returns the value of a component's property, "" when it has none.
func value(c *goical.Component, name string) string {
	if p := c.Props.Get(name); p != nil {
		return p.Value
	}
	return ""
}

func decode(t *testing.T, doc string) *ical.Import {
	t.Helper()
	imp, err := ical.Decode(strings.NewReader(doc), "Europe/Paris")
	if err != nil {
		t.Fatalf("Decode: %v", err)
	}
	return imp
}

// document wraps components in a VCALENDAR with CRLF line ends.
func document(lines ...string) string {
	all := append([]string{"BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//test//test//EN"}, lines...)
	all = append(all, "END:VCALENDAR")
	return strings.Join(all, "\r\n") + "\r\n"
}

// ignoreIndexes leaves component positions out of comparisons of Items;
// TestDecodeIndexes checks them.
var ignoreIndexes = cmp.Options{cmpopts.IgnoreFields(ical.Item{}, "Index"), cmpopts.IgnoreFields(ical.Exception{}, "Index")}
