package calendar_test

import (
	"slices"
	"testing"
	"time"

	"github.com/calgraph/calgraph/internal/calendar"
	"github.com/calgraph/calgraph/internal/recurrence"
)

func utcTime(t *testing.T, s string) time.Time {
	t.Helper()
	v, err := time.Parse(time.RFC3339, s)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestWallClock(t *testing.T) {
	tests := []struct {
		name, zone, day string
		hour, min       int
		want            string
	}{
		{"an ordinary day", "America/New_York", "2026-03-01", 9, 0, "2026-03-01T14:00:00Z"},
		{"in the spring-forward gap: the offset before it", "America/New_York", "2026-03-08", 2, 30, "2026-03-08T07:30:00Z"},
		{"twice in the fall-back hour: the first", "America/New_York", "2026-11-01", 1, 30, "2026-11-01T05:30:00Z"},
		{"the hour after fall-back", "America/New_York", "2026-11-01", 2, 30, "2026-11-01T07:30:00Z"},
		{"southern hemisphere gap", "Australia/Sydney", "2026-10-04", 2, 30, "2026-10-03T16:30:00Z"},
		{"Paris summer", "Europe/Paris", "2026-07-01", 9, 0, "2026-07-01T07:00:00Z"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			loc, _ := time.LoadLocation(tt.zone)
			got := calendar.WallClock(mustDate(t, tt.day), tt.hour, tt.min, 0, 0, loc)
			if want := utcTime(t, tt.want); !got.Equal(want) {
				t.Fatalf("got %v, want %v", got.UTC(), want)
			}
		})
	}
}

func TestOccurrenceIDs(t *testing.T) {
	sid := "01234567-89ab-cdef-0123-456789abcdef"
	start := utcTime(t, "2026-03-08T07:30:00Z")
	id := calendar.OccurrenceID(sid, start)
	if id != sid+"/20260308T073000Z" {
		t.Fatalf("got %q", id)
	}
	k, err := calendar.ParseOccurrenceID("id", id)
	if err != nil || k.SeriesID != sid || !k.OriginalStart.Equal(start) {
		t.Fatalf("parse: %+v, %v", k, err)
	}
	for _, bad := range []string{"", sid, sid + "/", sid + "/2026", "x/20260308T073000Z", sid + "/20260308T073000", sid + "/18000101T000000Z"} {
		if _, err := calendar.ParseOccurrenceID("id", bad); calendar.ErrorField(err) != "id" {
			t.Errorf("ParseOccurrenceID(%q): got %v, want an error about id", bad, err)
		}
	}
}

var eng = recurrence.Engine{}

// daily returns a daily 09:00 UTC series from 5 January 2026 with version 3.
func daily(t *testing.T) *calendar.Entry {
	t.Helper()
	start := utcTime(t, "2026-01-05T09:00:00Z")
	return &calendar.Entry{ID: "01234567-89ab-cdef-0123-456789abcdef", CalendarID: "c", Kind: calendar.KindTimed, Title: "Daily",
		Start: start, End: start.Add(time.Hour), TimeZone: "UTC", Version: 3, Recurrence: &calendar.Recurrence{Rule: "FREQ=DAILY"}}
}

// exception returns an exception of m at orig with the given changes.
func exception(m *calendar.Entry, orig time.Time, change func(*calendar.Entry)) *calendar.Entry {
	x := m.OccurrenceAt(orig)
	x.Recurrence, x.IsException, x.Version = nil, true, 1
	change(x)
	return x
}

func TestExpand(t *testing.T) {
	m := daily(t)
	day := func(d int) time.Time { return m.Start.AddDate(0, 0, d) }
	renamed := exception(m, day(1), func(x *calendar.Entry) { x.Title, x.Overrides = "Renamed", []string{calendar.FieldTitle} })
	cancelled := exception(m, day(2), func(x *calendar.Entry) { x.Cancelled = true })
	movedOut := exception(m, day(3), func(x *calendar.Entry) {
		x.Start, x.End, x.Overrides = day(30), day(30).Add(time.Hour), []string{calendar.FieldTiming}
	})
	movedIn := exception(m, day(20), func(x *calendar.Entry) {
		x.Start, x.End, x.Overrides = day(4).Add(3*time.Hour), day(4).Add(4*time.Hour), []string{calendar.FieldTiming}
	})
	orphan := exception(&calendar.Entry{ID: "fedcba98-7654-3210-fedc-ba9876543210", CalendarID: "c", Kind: calendar.KindTimed,
		Start: day(0), End: day(0).Add(time.Hour), Recurrence: &calendar.Recurrence{Rule: "FREQ=DAILY"}}, day(0), func(*calendar.Entry) {})
	offRule := exception(m, day(1).Add(time.Minute), func(x *calendar.Entry) {})
	single := &calendar.Entry{ID: "s", CalendarID: "c", Kind: calendar.KindTimed, Title: "Single", Start: day(2), End: day(2).Add(time.Hour)}
	candidates := []*calendar.Entry{m, renamed, cancelled, movedOut, movedIn, orphan, offRule, single, renamed}
	from, to := day(0), day(5) // 5 to 9 January

	show := func(es []*calendar.Entry) []string {
		var out []string
		for _, e := range calendar.Select(es, calendar.Range{Start: from, End: to, Zone: time.UTC}, calendar.Filter{}) {
			s := e.Title + " " + e.Start.Format("02 15:04")
			if e.Cancelled {
				s += " cancelled"
			}
			out = append(out, s)
		}
		return out
	}
	r := calendar.Range{Start: from, End: to, Zone: time.UTC}
	x, err := calendar.Expand(eng, candidates, r, false, calendar.MaxOccurrencesPerRequest)
	if err != nil {
		t.Fatal(err)
	}
	if x.Expanded != 5 || len(x.TooDense) != 0 { // those that overlap 5 to 9 January, none around them
		t.Fatalf("expanded %d occurrences, %d series too dense; want 5 and none", x.Expanded, len(x.TooDense))
	}
	want := []string{"Daily 05 09:00", "Renamed 06 09:00", "Single 07 09:00", "Daily 09 09:00", "Daily 09 12:00"}
	if g := show(x.Entries); !slices.Equal(g, want) {
		t.Fatalf("got %q\nwant %q", g, want)
	}
	x, _ = calendar.Expand(eng, candidates, r, true, calendar.MaxOccurrencesPerRequest)
	want = []string{"Daily 05 09:00", "Renamed 06 09:00", "Daily 07 09:00 cancelled", "Single 07 09:00", "Daily 09 09:00", "Daily 09 12:00"}
	if g := show(x.Entries); !slices.Equal(g, want) {
		t.Fatalf("with cancelled: got %q\nwant %q", g, want)
	}
	for _, e := range x.Entries {
		if e.Title == "Renamed" && (e.Version != m.Version+renamed.Version || !e.IsException || e.SeriesID != m.ID) {
			t.Fatalf("the renamed occurrence: %+v", e)
		}
	}
	days := func(n int) calendar.Range {
		return calendar.Range{Start: from, End: from.AddDate(0, 0, n), Zone: time.UTC}
	}
	if _, err := calendar.Expand(eng, []*calendar.Entry{m}, days(30), false, 20); calendar.ErrorCode(err) != calendar.CodeInvalid {
		t.Fatalf("more occurrences than the budget: got %v", err)
	}
	// The budget is on all the series together.
	twin := *m
	twin.ID = "fedcba98-7654-3210-fedc-ba9876543210"
	if x, err := calendar.Expand(eng, []*calendar.Entry{m}, days(12), false, 20); err != nil || x.Expanded != 12 {
		t.Fatalf("one series within the budget: %v, %v", x, err)
	}
	if _, err := calendar.Expand(eng, []*calendar.Entry{m, &twin}, days(12), false, 20); calendar.ErrorCode(err) != calendar.CodeInvalid {
		t.Fatalf("two series over the budget between them: got %v", err)
	}
}

// TestExpandTooDense: a series with more occurrences in the range than a
// view shows (every minute, stored before rules were bounded) is left out
// and named, its exceptions with it; the other series expand. The count is
// of the occurrences that overlap the range: a day holds 1,440.
func TestExpandTooDense(t *testing.T) {
	m := daily(t)
	dense := daily(t)
	dense.ID, dense.CalendarID, dense.Title, dense.End = "fedcba98-7654-3210-fedc-ba9876543210", "d", "Every minute", dense.Start.Add(time.Minute)
	dense.Recurrence = &calendar.Recurrence{Rule: "FREQ=MINUTELY"}
	week := calendar.Range{Start: m.Start.AddDate(0, 2, 0), End: m.Start.AddDate(0, 2, 7), Zone: time.UTC}
	moved := exception(dense, week.Start.Add(-time.Hour), func(x *calendar.Entry) {
		x.Start, x.End, x.Overrides = week.Start.Add(time.Hour), week.Start.Add(2*time.Hour), []string{calendar.FieldTiming}
	})
	x, err := calendar.Expand(eng, []*calendar.Entry{dense, m, moved}, week, false, calendar.MaxOccurrencesPerRequest)
	if err != nil {
		t.Fatal(err)
	}
	if len(x.TooDense) != 1 || x.TooDense[0] != dense || len(x.Entries) != 7 || x.Entries[0].SeriesID != m.ID {
		t.Fatalf("a week: %d entries, too dense %v; want the 7 of the daily series and the dense one named", len(x.Entries), x.TooDense)
	}
	if x.Expanded != 7+calendar.MaxViewEntries+1 {
		t.Fatalf("expanded %d, want the daily series' 7 and the dense one's up to the cap", x.Expanded)
	}
	err = calendar.TooDense(dense)
	if calendar.ErrorCode(err) != calendar.CodeTooManyOccurrences || calendar.ErrorCalendar(err) != "d" {
		t.Fatalf("TooDense: %v", err)
	}
	later := calendar.Range{Start: m.Start.AddDate(0, 0, 200).Truncate(24 * time.Hour), Zone: time.UTC}
	later.End = later.Start.AddDate(0, 0, 1)
	x, err = calendar.Expand(eng, []*calendar.Entry{dense}, later, false, calendar.MaxOccurrencesPerRequest)
	if err != nil || len(x.TooDense) != 0 || len(calendar.Select(x.Entries, later, calendar.Filter{})) != 1440 {
		t.Fatalf("a day 200 days on: %v, %v; want its 1440 occurrences", x, err)
	}
	// The request's budget runs out before the series is found too dense.
	if _, err := calendar.Expand(eng, []*calendar.Entry{dense}, week, false, 100); calendar.ErrorCode(err) != calendar.CodeInvalid {
		t.Fatalf("with a budget of 100: got %v, want the request's error", err)
	}
	// Or just after: the next series is not expanded without bound.
	twin := *dense
	twin.ID = "fedcba98-7654-3210-fedc-ba9876543211"
	x, err = calendar.Expand(eng, []*calendar.Entry{dense, &twin}, week, false, calendar.MaxViewEntries)
	if calendar.ErrorCode(err) != calendar.CodeInvalid || calendar.ErrorField(err) != "range" {
		t.Fatalf("two dense series on a budget of one view: got %v, %v; want the request's error", x, err)
	}
}

func TestPlanSeriesEditVersions(t *testing.T) {
	m := daily(t)
	x := exception(m, m.Start.AddDate(0, 0, 1), func(x *calendar.Entry) { x.Title, x.Overrides, x.Version = "X", []string{calendar.FieldTitle}, 4 })
	s := &calendar.Series{Master: m, Exceptions: []*calendar.Entry{x}}
	tests := []struct {
		name     string
		orig     time.Time
		scope    calendar.Scope
		expected int
		code     calendar.Code
	}{
		{"an occurrence at its series' version", m.Start, calendar.ScopeThis, 3, -1},
		{"an exception at the sum of versions", x.OriginalStart, calendar.ScopeThis, 7, -1},
		{"an exception at its own version", x.OriginalStart, calendar.ScopeThis, 4, calendar.CodeVersionConflict},
		{"the series at its version", time.Time{}, calendar.ScopeAll, 3, -1},
		{"the series with scope THIS", time.Time{}, calendar.ScopeThis, 3, calendar.CodeInvalid},
		{"not an occurrence", m.Start.Add(time.Minute), calendar.ScopeThis, 3, calendar.CodeNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := calendar.PlanSeriesEdit(eng, calendar.SeriesEditInput{Series: s, Occurrence: tt.orig, Scope: tt.scope,
				Update: calendar.EntryUpdate{ExpectedVersion: tt.expected, Title: calendar.Set("new")}, Now: m.Start})
			if tt.code < 0 && err != nil || tt.code >= 0 && calendar.ErrorCode(err) != tt.code {
				t.Fatalf("got %v, want code %v", err, tt.code)
			}
		})
	}
	edit, err := calendar.PlanSeriesEdit(eng, calendar.SeriesEditInput{Series: s, Occurrence: x.OriginalStart, Scope: calendar.ScopeThis,
		Update: calendar.EntryUpdate{ExpectedVersion: 7, Location: calendar.Set("Room 2")}, Now: m.Start})
	if err != nil {
		t.Fatal(err)
	}
	got := edit.Put[0]
	if got.Version != 5 || !slices.Equal(got.Overrides, []string{calendar.FieldLocation, calendar.FieldTitle}) || edit.Result.Version != 8 || edit.MasterChanged() {
		t.Fatalf("exception %+v, result version %d", got, edit.Result.Version)
	}
}
