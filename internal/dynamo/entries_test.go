package dynamo_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/calgraph/calgraph/internal/calendar"
	"github.com/calgraph/calgraph/internal/recurrence"
)

func at(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t
}

func day(s string) calendar.Date {
	d, err := calendar.ParseDate("date", s)
	if err != nil {
		panic(err)
	}
	return d
}

func timed(start, end, zone string) calendar.Timing {
	return calendar.Timing{Timed: &calendar.TimedTiming{Start: at(start), End: at(end), TimeZone: zone}}
}
func allDay(d string) calendar.Timing { dd := day(d); return calendar.Timing{AllDay: &dd} }
func multiDay(from, to string) calendar.Timing {
	return calendar.Timing{MultiDay: &calendar.DaySpan{Start: day(from), End: day(to)}}
}
func dueOn(d string) calendar.Timing {
	dd := day(d)
	return calendar.Timing{Task: &calendar.TaskDue{Date: &dd}}
}
func dueAt(t string) calendar.Timing {
	tt := at(t)
	return calendar.Timing{Task: &calendar.TaskDue{At: &tt}}
}

// view reads a range the way the loader does: candidates from the store, then
// calendar.Select.
func (f *fixture) view(ctx context.Context, cal string, spec calendar.RangeSpec, zone string) []string {
	f.t.Helper()
	from, to := spec.Window()
	candidates, err := f.store.EntriesReaching(ctx, calendar.ReadScope{}, &calendar.Calendar{ID: cal}, from, to)
	if err != nil {
		f.t.Fatal(err)
	}
	r, err := spec.Resolve(zone)
	if err != nil {
		f.t.Fatal(err)
	}
	x, err := calendar.Expand(recurrence.Engine{}, candidates, r, false, calendar.MaxOccurrencesPerRequest)
	if err != nil {
		f.t.Fatal(err)
	}
	var titles []string
	for _, e := range calendar.Select(x.Entries, r, calendar.Filter{}) {
		titles = append(titles, e.Title)
	}
	return titles
}

// TestRangeSemantics checks, for every kind, which entries a range view
// returns: each overlapping entry exactly once, in order, however long ago it
// began, and none that merely touch the range.
func TestRangeSemantics(t *testing.T) {
	f := newFixture(t)
	ada := f.user("ada@example.com")
	cal := f.calendarOf(ada, "Home")
	// The week of Monday 23 March 2026 in Paris; clocks go forward on Sunday the 29th.
	// As instants: 2026-03-22T23:00Z (UTC+1) to 2026-03-29T22:00Z (UTC+2).
	cases := []struct {
		title  string
		timing calendar.Timing
		in     bool
	}{
		{"timed ending exactly at the start", timed("2026-03-22T22:00:00Z", "2026-03-22T23:00:00Z", "Europe/Paris"), false},
		{"timed ending a second after the start", timed("2026-03-22T22:00:00Z", "2026-03-22T23:00:01Z", "Europe/Paris"), true},
		{"timed starting exactly at the end", timed("2026-03-29T22:00:00Z", "2026-03-29T23:00:00Z", "Europe/Paris"), false},
		{"timed starting a second before the end", timed("2026-03-29T21:59:59Z", "2026-03-29T23:00:00Z", "Europe/Paris"), true},
		{"timed spanning the whole range", timed("2026-03-20T08:00:00Z", "2026-04-05T08:00:00Z", "Europe/Paris"), true},
		{"timed across the DST change", timed("2026-03-29T00:30:00Z", "2026-03-29T03:30:00Z", "Europe/Paris"), true},
		{"timed in another zone", timed("2026-03-25T14:00:00Z", "2026-03-25T15:00:00Z", "America/New_York"), true},
		{"timed that began 300 days before", timed("2025-05-31T10:00:00Z", "2026-03-26T10:00:00Z", "Europe/Paris"), true},
		{"timed that ended 300 days before", timed("2025-03-01T10:00:00Z", "2025-12-26T10:00:00Z", "Europe/Paris"), false},
		{"all-day the day before", allDay("2026-03-22"), false},
		{"all-day the first day", allDay("2026-03-23"), true},
		{"all-day the DST day", allDay("2026-03-29"), true},
		{"all-day the day after", allDay("2026-03-30"), false},
		{"multi-day begun a year before, ending on day one", multiDay("2025-03-24", "2026-03-24"), true},
		{"multi-day begun a year before, ending at the start", multiDay("2025-03-23", "2026-03-23"), false},
		{"multi-day spanning the whole range", multiDay("2026-03-01", "2026-04-30"), true},
		{"multi-day starting on the last day", multiDay("2026-03-29", "2026-04-02"), true},
		{"multi-day starting at the end", multiDay("2026-03-30", "2026-04-05"), false},
		{"task due on the first day", dueOn("2026-03-23"), true},
		{"task due the day after", dueOn("2026-03-30"), false},
		{"task due exactly at the start", dueAt("2026-03-22T23:00:00Z"), true},
		{"task due exactly at the end", dueAt("2026-03-29T22:00:00Z"), false},
	}
	var want []string
	for _, c := range cases {
		if _, _, err := f.store.CreateEntry(ada, calendar.NewEntry{CalendarID: cal.ID, Title: c.title, Timing: c.timing}); err != nil {
			t.Fatalf("create %q: %v", c.title, err)
		}
		if c.in {
			want = append(want, c.title)
		}
	}
	week := calendar.RangeSpec{FromDate: day("2026-03-23"), ToDate: day("2026-03-30")}
	got := f.view(ada, cal.ID, week, "Europe/Paris")
	slices.Sort(want)
	sorted := slices.Sorted(slices.Values(got))
	if !slices.Equal(sorted, want) {
		t.Fatalf("week view:\ngot  %q\nwant %q", sorted, want)
	}
	wantOrder := []string{
		"multi-day begun a year before, ending on day one", "timed that began 300 days before", "multi-day spanning the whole range",
		"timed spanning the whole range", "timed ending a second after the start", "all-day the first day",
		"task due on the first day", "task due exactly at the start",
	}
	if !slices.Equal(got[:len(wantOrder)], wantOrder) {
		t.Errorf("view order starts\n%q\nwant\n%q", got[:len(wantOrder)], wantOrder)
	}

	// Seen from UTC+14, the early hours of 23 March (UTC) are already the 23rd:
	// only a dated entry's widest reach finds the all-day entry there.
	kiritimati := calendar.RangeSpec{From: at("2026-03-22T10:00:00Z"), To: at("2026-03-22T11:00:00Z")}
	if got := f.view(ada, cal.ID, kiritimati, "Pacific/Kiritimati"); !slices.Contains(got, "all-day the first day") {
		t.Errorf("instant range read in UTC+14: got %q, want the all-day entry of the 23rd", got)
	}
	if got := f.view(ada, cal.ID, kiritimati, "UTC"); slices.Contains(got, "all-day the first day") {
		t.Errorf("the same instants read in UTC: got %q, want no entry of the 23rd", got)
	}
}

// TestLongEntriesAreFoundAnywhere reads every week a year-long entry covers:
// each must find it exactly once, through its pieces.
func TestLongEntriesAreFoundAnywhere(t *testing.T) {
	f := newFixture(t)
	ada := f.user("ada@example.com")
	cal := f.calendarOf(ada, "Home")
	e, _, err := f.store.CreateEntry(ada, calendar.NewEntry{CalendarID: cal.ID, Title: "year", Timing: multiDay("2025-01-01", "2026-01-02")})
	if err != nil {
		t.Fatal(err)
	}
	for d := day("2024-12-25"); d.Before(day("2026-01-10")); d = d.AddDays(3) {
		spec := calendar.RangeSpec{FromDate: d, ToDate: d.AddDays(1)}
		got := f.view(ada, cal.ID, spec, "UTC")
		inside := !d.Before(day("2025-01-01")) && d.Before(day("2026-01-02"))
		if inside != (len(got) == 1) || len(got) > 1 {
			t.Fatalf("day %s: got %q, want the entry %v", d, got, map[bool]string{true: "once", false: "not at all"}[inside])
		}
	}
	if n := f.countEntities(); n["ENTRY"] != 1 || n["ENTRY_PIECE"] != 45 {
		t.Fatalf("got %v, want the entry and 45 more pieces", n)
	}
	// Shortening it removes the pieces it no longer needs; deleting removes all.
	short, _, err := f.store.UpdateEntry(ada, calendar.EntryUpdate{Key: e.Key(), ExpectedVersion: 1, Timing: calendar.Set(multiDay("2025-01-01", "2025-01-20"))})
	if err != nil {
		t.Fatal(err)
	}
	if n := f.countEntities(); n["ENTRY_PIECE"] != 2 {
		t.Fatalf("got %v after shortening to 19 days, want 2 pieces", n)
	}
	if err := f.store.DeleteEntry(ada, short.Key(), short.Version); err != nil {
		t.Fatal(err)
	}
	if n := f.countEntities(); n["ENTRY"]+n["ENTRY_PIECE"] != 0 {
		t.Fatalf("got %v after delete, want no entry items", n)
	}
}

func TestEntryValidation(t *testing.T) {
	f := newFixture(t)
	ada := f.user("ada@example.com")
	cal := f.calendarOf(ada, "Home")
	long := strings.Repeat("x", 501)
	tests := []struct {
		name  string
		n     calendar.NewEntry
		field string
	}{
		{"no title", calendar.NewEntry{Timing: allDay("2026-01-01")}, "title"},
		{"long title", calendar.NewEntry{Title: long, Timing: allDay("2026-01-01")}, "title"},
		{"no timing", calendar.NewEntry{Title: "x"}, "timing"},
		{"two timings", calendar.NewEntry{Title: "x", Timing: calendar.Timing{AllDay: ptr(day("2026-01-01")), Task: &calendar.TaskDue{}}}, "timing"},
		{"end before start", calendar.NewEntry{Title: "x", Timing: timed("2026-01-02T10:00:00Z", "2026-01-02T09:00:00Z", "")}, "end"},
		{"end equal to start", calendar.NewEntry{Title: "x", Timing: timed("2026-01-02T10:00:00Z", "2026-01-02T10:00:00Z", "")}, "end"},
		{"longer than a year", calendar.NewEntry{Title: "x", Timing: timed("2026-01-01T10:00:00Z", "2027-01-03T10:00:00Z", "")}, "end"},
		{"unknown zone", calendar.NewEntry{Title: "x", Timing: timed("2026-01-01T10:00:00Z", "2026-01-01T11:00:00Z", "Mars/Base")}, "timeZone"},
		{"one-day multi-day", calendar.NewEntry{Title: "x", Timing: multiDay("2026-01-01", "2026-01-02")}, "endDate"},
		{"backwards multi-day", calendar.NewEntry{Title: "x", Timing: multiDay("2026-01-05", "2026-01-01")}, "endDate"},
		{"task due both ways", calendar.NewEntry{Title: "x", Timing: calendar.Timing{Task: &calendar.TaskDue{Date: ptr(day("2026-01-01")), At: ptr(at("2026-01-01T10:00:00Z"))}}}, "due"},
		{"task due neither way", calendar.NewEntry{Title: "x", Timing: calendar.Timing{Task: &calendar.TaskDue{}}}, "due"},
		{"bad color", calendar.NewEntry{Title: "x", Timing: allDay("2026-01-01"), Color: "red"}, "color"},
		{"long location", calendar.NewEntry{Title: "x", Timing: allDay("2026-01-01"), Location: long}, "location"},
		{"big description", calendar.NewEntry{Title: "x", Timing: allDay("2026-01-01"), Description: strings.Repeat("d", 10241)}, "description"},
		{"too many tags", calendar.NewEntry{Title: "x", Timing: allDay("2026-01-01"), Tags: strings.Split("a b c d e f g h i j k l m n o p q r s t u", " ")}, "tags"},
		{"long tag", calendar.NewEntry{Title: "x", Timing: allDay("2026-01-01"), Tags: []string{strings.Repeat("t", 51)}}, "tags"},
		{"negative reminder", calendar.NewEntry{Title: "x", Timing: allDay("2026-01-01"), Reminders: calendar.Set([]int{-5})}, "reminders"},
		{"too many reminders", calendar.NewEntry{Title: "x", Timing: allDay("2026-01-01"), Reminders: calendar.Set([]int{1, 2, 3, 4, 5, 6})}, "reminders"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.n.CalendarID = cal.ID
			_, _, err := f.store.CreateEntry(ada, tt.n)
			wantCode(t, err, calendar.CodeInvalid)
			if got := calendar.ErrorField(err); got != tt.field {
				t.Fatalf("got field %q (%v), want %q", got, err, tt.field)
			}
		})
	}
	if n := f.countEntities()["ENTRY"]; n != 0 {
		t.Fatalf("got %d entries after refused creates, want 0", n)
	}
}

func ptr[T any](v T) *T { return &v }

func TestEntryDefaultsAndUpdates(t *testing.T) {
	f := newFixture(t)
	ada := f.user("ada@example.com")
	cal, _, err := f.store.CreateCalendar(ada, calendar.NewCalendar{Name: "Home", TimeZone: "Asia/Tokyo"})
	if err != nil {
		t.Fatal(err)
	}
	u, err := f.store.UpdatePreferences(ada, calendar.PreferencesUpdate{
		ExpectedVersion: 1, DefaultDuration: calendar.Set(30 * time.Minute), DefaultReminders: calendar.Set([]int{10, 5}),
	})
	if err != nil || u.Version != 2 {
		t.Fatalf("update preferences: %v, %+v", err, u)
	}
	start := at("2026-06-01T09:00:00Z")
	e, _, err := f.store.CreateEntry(ada, calendar.NewEntry{CalendarID: cal.ID, Title: " Call ", Tags: []string{"b", "a", "b"},
		Timing: calendar.Timing{Timed: &calendar.TimedTiming{Start: start}}})
	if err != nil {
		t.Fatal(err)
	}
	if !e.End.Equal(start.Add(30*time.Minute)) || e.TimeZone != "Asia/Tokyo" || !slices.Equal(e.Reminders, []int{5, 10}) ||
		!slices.Equal(e.Tags, []string{"a", "b"}) || e.Title != "Call" || e.Sequence != 0 || e.Version != 1 ||
		e.ICalUID != e.ID+"@calgraph.local" {
		t.Fatalf("defaults not applied: %+v", e)
	}
	// A title change is not significant for RFC 5545; a time change is.
	e2, _, err := f.store.UpdateEntry(ada, calendar.EntryUpdate{Key: e.Key(), ExpectedVersion: 1, Title: calendar.Set("Call Bob")})
	if err != nil || e2.Sequence != 0 || e2.Version != 2 {
		t.Fatalf("title change: %+v, %v; want sequence 0 version 2", e2, err)
	}
	e3, _, err := f.store.UpdateEntry(ada, calendar.EntryUpdate{Key: e.Key(), ExpectedVersion: 2, Timing: calendar.Set(allDay("2026-06-02")), Description: calendar.Set("")})
	if err != nil || e3.Sequence != 1 || e3.Kind != calendar.KindAllDay || e3.ICalUID != e.ICalUID {
		t.Fatalf("timing change: %+v, %v; want sequence 1, all-day, same UID", e3, err)
	}
	_, _, err = f.store.UpdateEntry(ada, calendar.EntryUpdate{Key: e.Key(), ExpectedVersion: 2, Title: calendar.Set("stale")})
	wantCode(t, err, calendar.CodeVersionConflict)
	_, _, err = f.store.UpdateEntry(ada, calendar.EntryUpdate{Key: calendar.EntryKey{CalendarID: cal.ID, EntryID: f.store.Table()[:0] + "00000000-0000-7000-8000-000000000000"}, ExpectedVersion: 1})
	wantCode(t, err, calendar.CodeNotFound)
}

func TestTaskTimelines(t *testing.T) {
	f := newFixture(t)
	ada := f.user("ada@example.com")
	cal := f.calendarOf(ada, "Todo")
	var tasks []*calendar.Entry
	for i, due := range []string{"2026-05-03", "2026-05-01", "2026-05-04", "2026-05-02"} {
		e, _, err := f.store.CreateEntry(ada, calendar.NewEntry{CalendarID: cal.ID, Title: fmt.Sprint("task ", i), Timing: dueOn(due)})
		if err != nil {
			t.Fatal(err)
		}
		tasks = append(tasks, e)
	}
	if _, _, err := f.store.CreateEntry(ada, calendar.NewEntry{CalendarID: cal.ID, Title: "not a task", Timing: allDay("2026-05-01")}); err != nil {
		t.Fatal(err)
	}
	titles := func(completed bool, first int) []string {
		t.Helper()
		var out []string
		p := calendar.Page{First: first}
		for {
			page, err := f.store.Tasks(ada, cal.ID, taskQuery(completed), p)
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range page.Tasks {
				out = append(out, e.Title)
			}
			if !page.HasNextPage {
				return out
			}
			p.After = page.EndCursor
		}
	}
	if got := titles(false, 3); !slices.Equal(got, []string{"task 1", "task 3", "task 0", "task 2"}) {
		t.Fatalf("open tasks: got %q, want by due date", got)
	}
	f.store = withClock(f, "2026-05-10T10:00:00Z")
	if _, _, err := f.store.SetTaskCompleted(ada, tasks[2].Key(), 1, true); err != nil {
		t.Fatal(err)
	}
	f.store = withClock(f, "2026-05-11T10:00:00Z")
	done, _, err := f.store.SetTaskCompleted(ada, tasks[0].Key(), 1, true)
	if err != nil || !done.Completed || !done.CompletedAt.Equal(at("2026-05-11T10:00:00Z")) || done.Sequence != 1 {
		t.Fatalf("complete: %+v, %v", done, err)
	}
	if got := titles(true, 1); !slices.Equal(got, []string{"task 0", "task 2"}) {
		t.Fatalf("completed tasks: got %q, want latest completed first", got)
	}
	if got := titles(false, 10); !slices.Equal(got, []string{"task 1", "task 3"}) {
		t.Fatalf("open tasks after completing two: got %q", got)
	}
	reopened, _, err := f.store.SetTaskCompleted(ada, tasks[0].Key(), 2, false)
	if err != nil || reopened.Completed || !reopened.CompletedAt.IsZero() {
		t.Fatalf("reopen: %+v, %v", reopened, err)
	}
	_, _, err = f.store.SetTaskCompleted(ada, calendar.EntryKey{CalendarID: cal.ID, EntryID: tasks[1].ID}, 9, true)
	wantCode(t, err, calendar.CodeVersionConflict)
}

// TestTasksThatBecomeOtherEntries: a task, open or done, changed into another
// kind of entry leaves the timelines (it loses their index sort keys), which
// keep working.
func TestTasksThatBecomeOtherEntries(t *testing.T) {
	for _, completed := range []bool{false, true} {
		t.Run(fmt.Sprint("completed ", completed), func(t *testing.T) {
			f := newFixture(t)
			ada := f.user("ada@example.com")
			cal := f.calendarOf(ada, "Todo")
			task, _, err := f.store.CreateEntry(ada, calendar.NewEntry{CalendarID: cal.ID, Title: "was a task", Timing: dueOn("2026-05-03")})
			if err != nil {
				t.Fatal(err)
			}
			if completed {
				if task, _, err = f.store.SetTaskCompleted(ada, task.Key(), task.Version, true); err != nil {
					t.Fatal(err)
				}
			}
			if _, _, err := f.store.CreateEntry(ada, calendar.NewEntry{CalendarID: cal.ID, Title: "still a task", Timing: dueOn("2026-05-04")}); err != nil {
				t.Fatal(err)
			}
			_, _, err = f.store.UpdateEntry(ada, calendar.EntryUpdate{Key: task.Key(), ExpectedVersion: task.Version, Timing: calendar.Set(allDay("2026-05-10"))})
			if err != nil {
				t.Fatal(err)
			}
			for _, done := range []bool{false, true} {
				page, err := f.store.Tasks(ada, cal.ID, taskQuery(done), calendar.Page{First: 10})
				if err != nil {
					t.Fatalf("tasks (completed %v): %v", done, err)
				}
				var got []string
				for _, e := range page.Tasks {
					got = append(got, e.Title)
				}
				if want := map[bool][]string{false: {"still a task"}, true: nil}[done]; !slices.Equal(got, want) {
					t.Fatalf("tasks (completed %v): %q, want %q", done, got, want)
				}
			}
		})
	}
}

// taskQuery asks for the completed or open tasks, none archived.
func taskQuery(completed bool) calendar.TaskQuery {
	if completed {
		return calendar.TaskQuery{List: calendar.TasksCompleted}
	}
	return calendar.TaskQuery{List: calendar.TasksOpen}
}
