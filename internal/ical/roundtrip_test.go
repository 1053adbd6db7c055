package ical_test

import (
	"bytes"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	goical "github.com/emersion/go-ical"
	"github.com/google/go-cmp/cmp"

	"github.com/calgraph/calgraph/internal/calendar"
	"github.com/calgraph/calgraph/internal/ical"
)

func TestEncodeComponents(t *testing.T) {
	cal := parse(t, encode(t, newFixture(t).feed))
	uids := func(name string) []string {
		var out []string
		for _, c := range children(cal, name) {
			out = append(out, value(c, goical.PropUID))
		}
		return out
	}
	counts := []struct {
		name string
		want []string
	}{
		{goical.CompEvent, []string{"a-timed@calgraph.test", "b-allday@calgraph.test", "c-multiday@calgraph.test",
			"f-weekly@calgraph.test", "f-weekly@calgraph.test", "g-monthly@calgraph.test"}},
		{goical.CompToDo, []string{"d-task@calgraph.test", "e-done@calgraph.test"}},
	}
	for _, tt := range counts {
		if got := uids(tt.name); !slices.Equal(got, tt.want) {
			t.Errorf("%s UIDs: got %q, want %q", tt.name, got, tt.want)
		}
	}
	tzs := children(cal, goical.CompTimezone)
	if len(tzs) != 1 || value(tzs[0], goical.PropTimezoneID) != newYork {
		t.Errorf("got %d VTIMEZONEs, want one for %s only", len(tzs), newYork)
	}
}

func TestEncodeProperties(t *testing.T) {
	cal := parse(t, encode(t, newFixture(t).feed))
	events, todos := children(cal, goical.CompEvent), children(cal, goical.CompToDo)
	if len(events) != 6 || len(todos) != 2 {
		t.Fatalf("got %d VEVENTs and %d VTODOs, want 6 and 2", len(events), len(todos))
	}
	timed, allDay, master, moved, monthly := events[0], events[1], events[3], events[4], events[5]
	props := []struct {
		name string
		comp *goical.Component
		prop string
		want string // the property as written: parameters, then value
	}{
		{"calendar version", cal.Component, goical.PropVersion, ":2.0"},
		{"calendar method", cal.Component, goical.PropMethod, ":PUBLISH"},
		{"calendar name", cal.Component, goical.PropName, `:Team\, Berlin\; "Ops"`},
		{"calendar zone", cal.Component, "X-WR-TIMEZONE", ":" + newYork},
		{"refresh", cal.Component, goical.PropRefreshInterval, ";VALUE=DURATION:PT15M"},
		{"timed start", timed, goical.PropDateTimeStart, ";TZID=America/New_York:20260310T100000"},
		{"timed end", timed, goical.PropDateTimeEnd, ";TZID=America/New_York:20260310T113000"},
		{"timed tags", timed, goical.PropCategories, ":planning,work"},
		{"timed color", timed, goical.PropColor, ":#FF8800"},
		{"timed sequence", timed, goical.PropSequence, ":1"},
		{"timed stamp", timed, goical.PropDateTimeStamp, ":20260301T120000Z"},
		{"all-day start", allDay, goical.PropDateTimeStart, ";VALUE=DATE:20260312"},
		{"all-day end", allDay, goical.PropDateTimeEnd, ";VALUE=DATE:20260313"},
		{"series rule", master, goical.PropRecurrenceRule, ":FREQ=WEEKLY;COUNT=10;BYDAY=MO"},
		{"series rdate", master, goical.PropRecurrenceDates, ";TZID=America/New_York:20260311T140000"},
		{"series exdate with the cancelled one", master, goical.PropExceptionDates, ";TZID=America/New_York:20260316T090000,20260330T090000"},
		{"moved recurrence-id", moved, goical.PropRecurrenceID, ";TZID=America/New_York:20260323T090000"},
		{"moved start", moved, goical.PropDateTimeStart, ";TZID=America/New_York:20260324T110000"},
		{"moved title", moved, goical.PropSummary, ":Standup (moved)"},
		{"moved sequence", moved, goical.PropSequence, ":4"},
		{"monthly rule", monthly, goical.PropRecurrenceRule, ":FREQ=MONTHLY;BYDAY=-1FR"},
		{"task due", todos[0], goical.PropDue, ";VALUE=DATE:20260315"},
		{"task status", todos[0], goical.PropStatus, ":NEEDS-ACTION"},
		{"done due", todos[1], goical.PropDue, ":20260316T170000Z"},
		{"done status", todos[1], goical.PropStatus, ":COMPLETED"},
		{"done completed", todos[1], goical.PropCompleted, ":20260316T160000Z"},
	}
	for _, tt := range props {
		ps := tt.comp.Props.Values(tt.prop)
		if len(ps) != 1 {
			t.Errorf("%s: got %d %s, want 1", tt.name, len(ps), tt.prop)
			continue
		}
		if got := written(ps[0]); got != tt.want {
			t.Errorf("%s: got %s%s, want %s%s", tt.name, tt.prop, got, tt.prop, tt.want)
		}
	}
}

func TestEncodeAlarms(t *testing.T) {
	cal := parse(t, encode(t, newFixture(t).feed))
	triggers := func(c *goical.Component) (out []string) {
		for _, a := range c.Children {
			out = append(out, written(*a.Props.Get(goical.PropTrigger)))
		}
		return out
	}
	if got, want := triggers(children(cal, goical.CompEvent)[0]), []string{":-PT10M", ":-PT60M"}; !slices.Equal(got, want) {
		t.Errorf("timed alarms: got TRIGGERs %q, want %q", got, want)
	}
	if got, want := triggers(children(cal, goical.CompToDo)[1]), []string{";RELATED=END:PT0S"}; !slices.Equal(got, want) {
		t.Errorf("task alarms: got TRIGGERs %q, want %q", got, want)
	}
}

// written returns a property's parameters and value as they were written.
func written(p goical.Prop) string {
	var names []string
	for name := range p.Params {
		names = append(names, name)
	}
	sort.Strings(names)
	var b strings.Builder
	for _, name := range names {
		b.WriteString(";" + name + "=" + strings.Join(p.Params[name], ","))
	}
	return b.String() + ":" + p.Value
}

func TestRoundTripDecode(t *testing.T) {
	f := newFixture(t)
	imp, err := ical.Decode(bytes.NewReader(encode(t, f.feed)), "Europe/Paris")
	if err != nil {
		t.Fatalf("Decode: %v", err)
	}
	if len(imp.Errors) != 0 {
		t.Fatalf("got errors %+v, want none", imp.Errors)
	}
	item := func(e *calendar.Entry, timing calendar.Timing) ical.Item {
		return ical.Item{UID: e.ICalUID, Completed: e.Completed, Entry: calendar.NewEntry{
			Recurrence: e.Recurrence, Timing: timing, Title: e.Title, Description: e.Description,
			Location: e.Location, Color: e.Color, Tags: e.Tags, Reminders: calendar.Set(e.Reminders)}}
	}
	timed := func(e *calendar.Entry) calendar.Timing {
		return calendar.Timing{Timed: &calendar.TimedTiming{Start: e.Start, End: e.End, TimeZone: e.TimeZone}}
	}
	weekly := item(f.weekly, timed(f.weekly))
	weekly.Entry.Recurrence = &calendar.Recurrence{Rule: f.weekly.Recurrence.Rule, RDates: f.weekly.Recurrence.RDates,
		ExDates: []time.Time{utc(t, "2026-03-16T13:00:00Z"), f.cancelled.OriginalStart}}
	weekly.Exceptions = []ical.Exception{{OriginalStart: f.moved.OriginalStart, Update: calendar.EntryUpdate{
		Timing: calendar.Set(timed(f.moved)), Title: calendar.Set("Standup (moved)"),
		Description: calendar.Set("Daily sync"), Reminders: calendar.Set([]int{5})}}}
	want := []ical.Item{
		item(f.timed, timed(f.timed)),
		item(f.allDay, calendar.Timing{AllDay: &f.allDay.StartDate}),
		item(f.multiDay, calendar.Timing{MultiDay: &calendar.DaySpan{Start: f.multiDay.StartDate, End: f.multiDay.EndDate}}),
		item(f.taskDate, calendar.Timing{Task: &calendar.TaskDue{Date: &f.taskDate.StartDate}}),
		item(f.done, calendar.Timing{Task: &calendar.TaskDue{At: &f.done.Start, TimeZone: "UTC"}}),
		weekly,
		item(f.monthly, calendar.Timing{AllDay: &f.monthly.StartDate}),
	}
	// Whole-day events are written TRANSP:TRANSPARENT (free, calgraph's
	// default for them), which an import reads as set.
	for _, i := range []int{1, 2, 6} {
		want[i].Entry.Transparency = calendar.TransparencyFree
	}
	if diff := cmp.Diff(want, imp.Items, ignoreIndexes); diff != "" {
		t.Errorf("decoded items differ from the feed's entries (-want +got):\n%s", diff)
	}
}

func TestEncodeIsDeterministic(t *testing.T) {
	f := newFixture(t)
	first := encode(t, f.feed)
	slices.Reverse(f.feed.Entries)
	slices.Reverse(f.feed.Exceptions)
	if second := encode(t, f.feed); !bytes.Equal(first, second) {
		t.Fatalf("got different bytes for the same feed:\n%s\n---\n%s", first, second)
	}
	if again := encode(t, f.feed); !bytes.Equal(first, again) {
		t.Fatalf("got different bytes encoding the same feed twice")
	}
}

func TestEncodeFoldsLongLines(t *testing.T) {
	f := newFixture(t)
	f.timed.Description = strings.Repeat("été, ", 100)
	doc := encode(t, f.feed)
	for i, line := range strings.Split(strings.TrimSuffix(string(doc), "\r\n"), "\r\n") {
		if len(line) > 75 {
			t.Errorf("line %d: got %d octets, want at most 75: %q", i+1, len(line), line)
		}
		if !utf8.ValidString(line) {
			t.Errorf("line %d: a UTF-8 character is split: %q", i+1, line)
		}
	}
	imp, err := ical.Decode(bytes.NewReader(doc), "UTC")
	if err != nil {
		t.Fatal(err)
	}
	if got := imp.Items[0].Entry.Description; got != f.timed.Description {
		t.Errorf("got description %q after unfolding, want %q", got, f.timed.Description)
	}
}

func TestEncodeEdgeCases(t *testing.T) {
	f := newFixture(t)
	empty := ical.Feed{Calendar: f.feed.Calendar, Now: f.feed.Now}
	cal := parse(t, encode(t, empty))
	if tzs := children(cal, goical.CompTimezone); len(tzs) != 1 || value(tzs[0], goical.PropTimezoneID) != newYork {
		t.Errorf("empty feed: got %d VTIMEZONEs, want the calendar's own zone (go-ical refuses an empty VCALENDAR)", len(tzs))
	}
	f.timed.Description = "line one\r\nline two\rthree"
	cal = parse(t, encode(t, f.feed))
	if got, want := value(children(cal, goical.CompEvent)[0], goical.PropDescription), `line one\nline two\nthree`; got != want {
		t.Errorf("CR LF in a description: got %q, want %q", got, want)
	}
	errs := []struct {
		name string
		feed ical.Feed
	}{
		{"no calendar", ical.Feed{Now: f.feed.Now, Engine: f.feed.Engine}},
		{"no clock", ical.Feed{Calendar: f.feed.Calendar, Engine: f.feed.Engine}},
		{"no recurrence engine", ical.Feed{Calendar: f.feed.Calendar, Now: f.feed.Now}},
		{"exception without its series", ical.Feed{Calendar: f.feed.Calendar, Now: f.feed.Now, Engine: f.feed.Engine, Exceptions: []*calendar.Entry{f.moved}}},
	}
	for _, tt := range errs {
		if err := ical.Encode(&bytes.Buffer{}, tt.feed); err == nil {
			t.Errorf("%s: got no error, want one", tt.name)
		}
	}
}
