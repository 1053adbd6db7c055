package ical_test

import (
	"strings"
	"testing"
	"time"

	"github.com/calgraph/calgraph/internal/calendar"
	"github.com/calgraph/calgraph/internal/ical"
)

func alarmWith(trigger string) []string {
	return []string{"BEGIN:VALARM", "ACTION:DISPLAY", "DESCRIPTION:x", trigger, "END:VALARM"}
}

func TestDecodeTasks(t *testing.T) {
	due := func(uid, title string, d calendar.TaskDue, completed bool) ical.Item {
		i := item(uid, title, calendar.Timing{Task: &d})
		i.Completed = completed
		return i
	}
	day := date(t, "2026-03-15")
	at := utc(t, "2026-03-16T13:00:00Z")
	start := utc(t, "2026-03-17T09:00:00Z")
	withReminder := due("5", "Due soon", calendar.TaskDue{At: &at, TimeZone: newYork}, false)
	withReminder.Entry.Reminders = calendar.Set([]int{30})

	runDecodeCases(t, []decodeCase{
		{name: "due on a date, at an instant, completed, or at DTSTART",
			doc: doc(vtodo("UID:1", "SUMMARY:Taxes", "DUE;VALUE=DATE:20260315"),
				vtodo("UID:2", "SUMMARY:Report", "DUE;TZID=America/New_York:20260316T090000", "STATUS:COMPLETED"),
				vtodo("UID:3", "SUMMARY:Started", "DTSTART:20260317T090000Z", "STATUS:IN-PROCESS")),
			want: []ical.Item{due("1", "Taxes", calendar.TaskDue{Date: &day}, false),
				due("2", "Report", calendar.TaskDue{At: &at, TimeZone: newYork}, true),
				due("3", "Started", calendar.TaskDue{At: &start, TimeZone: "UTC"}, false)}},
		{name: "reminders of a to-do are relative to DUE",
			doc: doc(withAlarms(vtodo("UID:5", "SUMMARY:Due soon", "DUE;TZID=America/New_York:20260316T090000"),
				alarmWith("TRIGGER;RELATED=END:-PT30M"), alarmWith("TRIGGER:-PT10M"))),
			want: []ical.Item{withReminder}},
		{name: "a to-do without DUE or DTSTART",
			doc:        doc(vtodo("UID:4", "SUMMARY:Someday")),
			wantErrors: []ical.ItemError{{Index: 0, UID: "4", Message: "needs DUE or DTSTART"}}},
		{name: "a recurring or cancelled to-do",
			doc: doc(vtodo("UID:6", "DUE:20260316T090000Z", "RRULE:FREQ=WEEKLY"),
				vtodo("UID:7", "DUE:20260316T090000Z", "STATUS:CANCELLED")),
			wantErrors: []ical.ItemError{{Index: 0, UID: "6", Message: "recurring to-dos are not supported"},
				{Index: 1, UID: "7", Message: "cancelled to-do"}}},
	})
}

// withAlarms puts a component's alarms before its END line.
func withAlarms(component []string, alarms ...[]string) []string {
	out := append([]string{}, component[:len(component)-1]...)
	for _, a := range alarms {
		out = append(out, a...)
	}
	return append(out, component[len(component)-1])
}

func TestDecodeFields(t *testing.T) {
	full := item("1", "Lunch, then a walk", timed(utc(t, "2026-03-10T11:00:00Z"), utc(t, "2026-03-10T12:00:00Z"), "Europe/Paris"))
	full.Entry.Description = "Bring:\nshoes, water; a hat"
	full.Entry.Location = "Parc, Paris"
	full.Entry.Color = "#00ff00"
	full.Entry.Tags = []string{"Home", "urgent", "work"}
	full.Entry.Reminders = calendar.Set([]int{0, 15, 1440})
	many := item("3", "(no title)", timed(utc(t, "2026-03-10T09:00:00Z"), utc(t, "2026-03-10T10:00:00Z"), "UTC"))
	many.Entry.Reminders = calendar.Set([]int{1, 2, 3, 4, 5})
	event := func(lines ...string) []string {
		return vevent(append(lines, "DTSTART:20260310T120000", "DTEND:20260310T130000")...)
	}

	runDecodeCases(t, []decodeCase{
		{name: "every field, with lax commas",
			doc: doc(withAlarms(event("UID:1", "SUMMARY:Lunch, then a walk", `DESCRIPTION:Bring:\nshoes\, water\; a hat`,
				`LOCATION:Parc\, Paris`, "COLOR:#00ff00", "CATEGORIES:work,Home", "CATEGORIES:urgent, work,"),
				alarmWith("TRIGGER:-PT15M"), alarmWith("TRIGGER:-P1D"), alarmWith("TRIGGER:PT10M"),
				alarmWith("TRIGGER;VALUE=DATE-TIME:20260310T080000Z"), alarmWith("TRIGGER:-PT15M"),
				alarmWith("TRIGGER;RELATED=END:-PT5M"), alarmWith("TRIGGER:PT0S"), alarmWith("TRIGGER:-P5W"))),
			want: []ical.Item{full}},
		{name: "a color name, no summary, and more reminders than calgraph keeps",
			doc: doc(
				vevent("UID:2", "SUMMARY:  ", "COLOR:turquoise", "DTSTART:20260310T090000Z"),
				withAlarms(vevent("UID:3", "DTSTART:20260310T090000Z", "DTEND:20260310T100000Z"),
					alarmWith("TRIGGER:-PT6M"), alarmWith("TRIGGER:-PT5M"), alarmWith("TRIGGER:-PT4M"),
					alarmWith("TRIGGER:-PT3M"), alarmWith("TRIGGER:-PT2M"), alarmWith("TRIGGER:-PT1M"))),
			want: []ical.Item{item("2", "(no title)", timed(utc(t, "2026-03-10T09:00:00Z"), time.Time{}, "UTC")), many}},
	})
}

func TestDecodeExceptionFields(t *testing.T) {
	imp := decode(t, doc(
		vevent("UID:s", "SUMMARY:Series", "DTSTART:20260302T090000Z", "RRULE:FREQ=DAILY"),
		withAlarms(vevent("UID:s", "RECURRENCE-ID:20260303T090000Z", "DTSTART:20260303T100000Z", "COLOR:#112233",
			"CATEGORIES:a"), alarmWith("TRIGGER:-PT10M"))))
	if len(imp.Items) != 1 || len(imp.Items[0].Exceptions) != 1 {
		t.Fatalf("got %+v, want one series with one exception", imp)
	}
	u := imp.Items[0].Exceptions[0].Update
	got := strings.Join(u.Fields(), ",")
	if want := "timing,color,tags,reminders"; got != want {
		t.Errorf("exception sets %s, want %s: only what the component gives", got, want)
	}
}
