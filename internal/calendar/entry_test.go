package calendar_test

import (
	"slices"
	"testing"
	"time"

	"github.com/calgraph/calgraph/internal/calendar"
)

func mustDate(t *testing.T, s string) calendar.Date {
	t.Helper()
	d, err := calendar.ParseDate("d", s)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestDates(t *testing.T) {
	for _, bad := range []string{"2026-02-29", "2026-13-01", "26-01-01", "2026-1-1", "1899-12-31", "3000-01-02", "", "2026-01-01T00:00:00Z"} {
		if _, err := calendar.ParseDate("d", bad); calendar.ErrorField(err) != "d" {
			t.Errorf("ParseDate(%q): got %v, want an error about d", bad, err)
		}
	}
	if _, err := calendar.ParseDate("d", "3000-01-01"); err != nil {
		t.Errorf("the exclusive end after the last supported day: %v", err)
	}
	d := mustDate(t, "2024-02-28")
	if got := d.AddDays(1).String(); got != "2024-02-29" {
		t.Errorf("leap day: got %s", got)
	}
	if got := d.AddDays(366).String(); got != "2025-02-28" {
		t.Errorf("a leap year later: got %s", got)
	}
	if got := d.DaysUntil(mustDate(t, "2025-02-28")); got != 366 {
		t.Errorf("days in a leap year: got %d", got)
	}
	paris, _ := time.LoadLocation("Europe/Paris")
	if got := mustDate(t, "2026-03-29").In(paris).Format(time.RFC3339); got != "2026-03-29T00:00:00+01:00" {
		t.Errorf("midnight on a DST day: got %s", got)
	}
}

func TestRangeSpecs(t *testing.T) {
	d := func(s string) calendar.Date { return mustDate(t, s) }
	tests := []struct {
		name string
		spec calendar.RangeSpec
		ok   bool
	}{
		{"a week", calendar.RangeSpec{FromDate: d("2026-01-05"), ToDate: d("2026-01-12")}, true},
		{"a leap year", calendar.RangeSpec{FromDate: d("2028-01-01"), ToDate: d("2029-01-01")}, true},
		{"more than a year", calendar.RangeSpec{FromDate: d("2026-01-01"), ToDate: d("2027-01-03")}, false},
		{"empty", calendar.RangeSpec{FromDate: d("2026-01-05"), ToDate: d("2026-01-05")}, false},
		{"backwards", calendar.RangeSpec{FromDate: d("2026-01-05"), ToDate: d("2026-01-01")}, false},
		{"bad zone", calendar.RangeSpec{FromDate: d("2026-01-05"), ToDate: d("2026-01-06"), TimeZone: "Nowhere"}, false},
		{"instants", calendar.RangeSpec{From: time.Unix(0, 0), To: time.Unix(3600, 0)}, true},
		{"backwards instants", calendar.RangeSpec{From: time.Unix(3600, 0), To: time.Unix(0, 0)}, false},
		{"instants before 1900", calendar.RangeSpec{From: time.Date(1800, 1, 1, 0, 0, 0, 0, time.UTC), To: time.Date(1800, 1, 2, 0, 0, 0, 0, time.UTC)}, false},
	}
	for _, tt := range tests {
		if err := tt.spec.Validate(); (err == nil) != tt.ok {
			t.Errorf("%s: got %v, want ok=%v", tt.name, err, tt.ok)
		}
	}
}

func TestSelectOrderAndFilter(t *testing.T) {
	utc := func(s string) time.Time { tt, _ := time.Parse(time.RFC3339, s); return tt }
	d := func(s string) calendar.Date { return mustDate(t, s) }
	entries := []*calendar.Entry{
		{ID: "b", Kind: calendar.KindTimed, Title: "late", Start: utc("2026-01-05T15:00:00Z"), End: utc("2026-01-05T16:00:00Z"), Tags: []string{"work"}},
		{ID: "a", Kind: calendar.KindAllDay, Title: "holiday", StartDate: d("2026-01-05"), EndDate: d("2026-01-06")},
		{ID: "c", Kind: calendar.KindTimed, Title: "early", Start: utc("2026-01-05T08:00:00Z"), End: utc("2026-01-05T09:00:00Z"), Tags: []string{"home"}},
		{ID: "d", Kind: calendar.KindTimed, Title: "midnight long", Start: utc("2026-01-05T00:00:00Z"), End: utc("2026-01-05T12:00:00Z")},
		{ID: "e", Kind: calendar.KindTask, Title: "todo", StartDate: d("2026-01-05"), EndDate: d("2026-01-06"), Tags: []string{"work"}},
	}
	entries = append(entries, entries[0]) // a piece of the same entry: returned once
	r, err := calendar.DatesRange(d("2026-01-05"), d("2026-01-06"), "UTC")
	if err != nil {
		t.Fatal(err)
	}
	titles := func(f calendar.Filter) []string {
		var out []string
		for _, e := range calendar.Select(entries, r, f) {
			out = append(out, e.Title)
		}
		return out
	}
	if got := titles(calendar.Filter{}); !slices.Equal(got, []string{"holiday", "todo", "midnight long", "early", "late"}) {
		t.Errorf("order: got %q", got)
	}
	if got := titles(calendar.Filter{Tags: []string{"work", "none"}}); !slices.Equal(got, []string{"todo", "late"}) {
		t.Errorf("tag filter: got %q", got)
	}
	if got := titles(calendar.Filter{Kinds: []calendar.Kind{calendar.KindTimed}, Tags: []string{"work"}}); !slices.Equal(got, []string{"late"}) {
		t.Errorf("kind and tag filter: got %q", got)
	}
}

func TestPreferencesUpdate(t *testing.T) {
	p := calendar.DefaultPreferences()
	tests := []struct {
		name  string
		u     calendar.PreferencesUpdate
		field string
	}{
		{"zone", calendar.PreferencesUpdate{TimeZone: calendar.Set("Asia/Tokyo")}, ""},
		{"clear zone", calendar.PreferencesUpdate{TimeZone: calendar.Set("")}, ""},
		{"bad zone", calendar.PreferencesUpdate{TimeZone: calendar.Set("Asia/Atlantis")}, "timeZone"},
		{"short duration", calendar.PreferencesUpdate{DefaultDuration: calendar.Set(time.Minute)}, "defaultEntryDurationMinutes"},
		{"long duration", calendar.PreferencesUpdate{DefaultDuration: calendar.Set(25 * time.Hour)}, "defaultEntryDurationMinutes"},
		{"bad reminders", calendar.PreferencesUpdate{DefaultReminders: calendar.Set([]int{-1})}, "defaultReminders"},
		{"bad theme", calendar.PreferencesUpdate{Theme: calendar.Set(calendar.Theme("NEON"))}, "theme"},
		{"bad weekday", calendar.PreferencesUpdate{WeekStart: calendar.Set(time.Weekday(9))}, "weekStart"},
	}
	for _, tt := range tests {
		_, err := tt.u.Apply(p)
		if got := calendar.ErrorField(err); got != tt.field {
			t.Errorf("%s: got %v, want field %q", tt.name, err, tt.field)
		}
	}
}
