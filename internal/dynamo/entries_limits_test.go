package dynamo_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/calgraph/calgraph/internal/calendar"
)

func TestYearLimits(t *testing.T) {
	f := newFixture(t)
	ada := f.user("ada@example.com")
	cal := f.calendarOf(ada, "Home")
	last, _, err := f.store.CreateEntry(ada, calendar.NewEntry{CalendarID: cal.ID, Title: "last day", Timing: allDay("2999-12-31")})
	if err != nil {
		t.Fatalf("an entry on the last supported day: %v", err)
	}
	spec := calendar.RangeSpec{FromDate: day("2999-12-25"), ToDate: day("3000-01-01")}
	if got := f.view(ada, cal.ID, spec, "Pacific/Kiritimati"); !slices.Equal(got, []string{"last day"}) {
		t.Fatalf("the last week: got %q", got)
	}
	updated, _, err := f.store.UpdateEntry(ada, calendar.EntryUpdate{Key: last.Key(), ExpectedVersion: 1, Title: calendar.Set("still the last day")})
	if err != nil {
		t.Fatalf("update: %v", err)
	}
	if err := f.store.DeleteEntry(ada, updated.Key(), updated.Version); err != nil {
		t.Fatalf("delete: %v", err)
	}
	after := day("3000-01-01")
	_, _, err = f.store.CreateEntry(ada, calendar.NewEntry{CalendarID: cal.ID, Title: "too late", Timing: calendar.Timing{AllDay: &after}})
	wantCode(t, err, calendar.CodeInvalid)
}

// TestRangesInFarZones reads ranges in zones far from UTC, where a day's
// instants fall well before or after the same day in UTC.
func TestRangesInFarZones(t *testing.T) {
	f := newFixture(t)
	ada := f.user("ada@example.com")
	cal := f.calendarOf(ada, "Home")
	for _, e := range []struct {
		title  string
		timing calendar.Timing
	}{
		{"Sunday evening in Los Angeles", timed("2026-03-30T03:00:00Z", "2026-03-30T04:00:00Z", "America/Los_Angeles")},
		{"Monday early in Los Angeles", timed("2026-03-30T08:00:00Z", "2026-03-30T09:00:00Z", "America/Los_Angeles")},
		{"Monday morning in Apia", timed("2026-03-22T12:00:00Z", "2026-03-22T13:00:00Z", "Pacific/Apia")},
		{"Sunday night in Apia", timed("2026-03-22T10:00:00Z", "2026-03-22T10:30:00Z", "Pacific/Apia")},
		{"due at noon in New York", dueAt("2026-03-23T16:00:00Z")},
		{"starts on the millisecond", timed("2026-03-25T10:00:00Z", "2026-03-25T11:00:00Z", "UTC")},
	} {
		if _, _, err := f.store.CreateEntry(ada, calendar.NewEntry{CalendarID: cal.ID, Title: e.title, Timing: e.timing}); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name string
		spec calendar.RangeSpec
		zone string
		want []string
	}{
		{"a week in Los Angeles ends after UTC's", calendar.RangeSpec{FromDate: day("2026-03-23"), ToDate: day("2026-03-30")}, "America/Los_Angeles",
			[]string{"due at noon in New York", "starts on the millisecond", "Sunday evening in Los Angeles"}},
		{"a day in Apia (UTC+13) starts before UTC's", calendar.RangeSpec{FromDate: day("2026-03-23"), ToDate: day("2026-03-24")}, "Pacific/Apia",
			[]string{"Monday morning in Apia"}},
		{"instants ending within a millisecond's fraction after a start", calendar.RangeSpec{
			From: at("2026-03-25T09:00:00Z"), To: at("2026-03-25T10:00:00Z").Add(500 * time.Microsecond)}, "UTC",
			[]string{"starts on the millisecond"}},
		{"instants ending exactly at a start", calendar.RangeSpec{From: at("2026-03-25T09:00:00Z"), To: at("2026-03-25T10:00:00Z")}, "UTC", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := f.view(ada, cal.ID, tt.spec, tt.zone); !slices.Equal(got, tt.want) {
				t.Fatalf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestUpdateKeepsZoneAndDuration(t *testing.T) {
	f := newFixture(t)
	ada := f.user("ada@example.com")
	cal, _, err := f.store.CreateCalendar(ada, calendar.NewCalendar{Name: "Home", TimeZone: "Asia/Tokyo"})
	if err != nil {
		t.Fatal(err)
	}
	e, _, err := f.store.CreateEntry(ada, calendar.NewEntry{CalendarID: cal.ID, Title: "workshop",
		Timing: timed("2026-04-01T08:00:00Z", "2026-04-01T11:00:00Z", "Europe/Paris")})
	if err != nil {
		t.Fatal(err)
	}
	moved, _, err := f.store.UpdateEntry(ada, calendar.EntryUpdate{Key: e.Key(), ExpectedVersion: 1,
		Timing: calendar.Set(calendar.Timing{Timed: &calendar.TimedTiming{Start: at("2026-04-02T08:00:00Z")}})})
	if err != nil {
		t.Fatal(err)
	}
	if moved.TimeZone != "Europe/Paris" || moved.End.Sub(moved.Start) != 3*time.Hour {
		t.Fatalf("got zone %s and %s long, want Europe/Paris and 3h kept", moved.TimeZone, moved.End.Sub(moved.Start))
	}
}

func TestDeleteCalendarRemovesItsEntries(t *testing.T) {
	f := newFixture(t)
	r := f.roles()
	other := f.calendarOf(r.writer, "Kept")
	for _, cal := range []string{r.cal.ID, other.ID} {
		if _, _, err := f.store.CreateEntry(r.writer, calendar.NewEntry{CalendarID: cal, Title: "long", Timing: multiDay("2026-01-01", "2026-07-01")}); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.store.DeleteCalendar(r.owner, r.cal.ID, 1); err != nil {
		t.Fatal(err)
	}
	for _, it := range f.items() {
		if pk, _ := it["PK"].(string); strings.Contains(pk, r.cal.ID) {
			t.Fatalf("an item of the deleted calendar is left: %v", it)
		}
	}
	if n := f.countEntities(); n["ENTRY"] != 1 || n["ENTRY_PIECE"] != 22 || n["CALENDAR"] != 1 {
		t.Fatalf("got %v, want the other calendar and its entry untouched", n)
	}
}

func TestMoveTheLongestEntry(t *testing.T) {
	f := newFixture(t)
	ada := f.user("ada@example.com")
	from, to := f.calendarOf(ada, "From"), f.calendarOf(ada, "To")
	tags := make([]string, calendar.MaxTags)
	for i := range tags {
		tags[i] = strings.Repeat(string(rune('a'+i)), calendar.MaxTagLength)
	}
	e, _, err := f.store.CreateEntry(ada, calendar.NewEntry{CalendarID: from.ID, Title: strings.Repeat("t", calendar.MaxTitleLength),
		Description: strings.Repeat("d", calendar.MaxDescriptionBytes), Location: strings.Repeat("l", calendar.MaxLocationLength),
		Tags: tags, Reminders: calendar.Set([]int{0, 5, 10, 60, 1440}),
		Timing: timed("2026-01-01T00:00:00Z", "2027-01-02T00:00:00Z", "UTC")})
	if err != nil {
		t.Fatalf("create the longest entry: %v", err)
	}
	if _, _, err := f.store.MoveEntry(ada, e.Key(), 1, to.ID); err != nil {
		t.Fatalf("move the longest entry: %v", err)
	}
	if n := f.countEntities(); n["ENTRY"] != 1 || n["ENTRY_PIECE"] != 45 {
		t.Fatalf("got %v after the move, want the entry and its 45 pieces once", n)
	}
}
