package dynamo_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/calgraph/calgraph/internal/calendar"
	"github.com/calgraph/calgraph/internal/dynamo"
	"github.com/calgraph/calgraph/internal/dynamotest"
	"github.com/calgraph/calgraph/internal/recurrence"
)

var engine = recurrence.Engine{}

// occurrences reads a range as the loader does, with series expanded, and
// returns what it shows.
func (f *fixture) occurrences(ctx context.Context, cal string, spec calendar.RangeSpec, zone string, cancelled bool) []*calendar.Entry {
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
	x, err := calendar.Expand(engine, candidates, r, cancelled, calendar.MaxOccurrencesPerRequest)
	if err != nil {
		f.t.Fatal(err)
	}
	return calendar.Select(x.Entries, r, calendar.Filter{})
}

// shown formats entries as "title @ local start" in zone.
func shown(es []*calendar.Entry, zone string) []string {
	loc, _ := time.LoadLocation(zone)
	var out []string
	for _, e := range es {
		start, _ := e.Interval(loc)
		s := fmt.Sprintf("%s @ %s", e.Title, start.In(loc).Format("Mon 01-02 15:04"))
		if e.Cancelled {
			s += " (cancelled)"
		}
		out = append(out, s)
	}
	return out
}

func weekOf(d string) calendar.RangeSpec {
	return calendar.RangeSpec{FromDate: day(d), ToDate: day(d).AddDays(7)}
}

func (f *fixture) series(ctx context.Context, cal, title string, timing calendar.Timing, rule string) *calendar.Entry {
	f.t.Helper()
	e, _, err := f.store.CreateEntry(ctx, calendar.NewEntry{CalendarID: cal, Title: title, Timing: timing,
		Recurrence: &calendar.Recurrence{Rule: rule}})
	if err != nil {
		f.t.Fatalf("create series %q: %v", title, err)
	}
	return e
}

func wantShown(t *testing.T, what string, got []*calendar.Entry, zone string, want ...string) {
	t.Helper()
	if g := shown(got, zone); !slices.Equal(g, want) {
		t.Fatalf("%s:\ngot  %q\nwant %q", what, g, want)
	}
}

func TestSeriesSmoke(t *testing.T) {
	f := newFixture(t)
	ada := f.user("ada@example.com")
	cal := f.calendarOf(ada, "Work")
	ny := "America/New_York"
	f.series(ada, cal.ID, "Standup", timed("2016-03-07T14:00:00Z", "2016-03-07T14:30:00Z", ny), "FREQ=WEEKLY;BYDAY=MO")
	got := f.occurrences(ada, cal.ID, weekOf("2026-03-02"), ny, false)
	wantShown(t, "week before DST", got, ny, "Standup @ Mon 03-02 09:00")
	got = f.occurrences(ada, cal.ID, weekOf("2026-03-09"), ny, false)
	wantShown(t, "week after DST", got, ny, "Standup @ Mon 03-09 09:00")
}

// find returns the shown occurrence starting (in zone) at "01-02 15:04".
func find(t testing.TB, es []*calendar.Entry, zone, when string) *calendar.Entry {
	t.Helper()
	loc, _ := time.LoadLocation(zone)
	for _, e := range es {
		if start, _ := e.Interval(loc); start.In(loc).Format("01-02 15:04") == when {
			return e
		}
	}
	t.Fatalf("no occurrence at %s in %q", when, shown(es, zone))
	return nil
}

func occKey(e *calendar.Entry) calendar.OccurrenceKey {
	return calendar.OccurrenceKey{CalendarID: e.CalendarID, SeriesID: e.SeriesID, OriginalStart: e.OriginalStart}
}

func title(s string) calendar.EntryUpdate { return calendar.EntryUpdate{Title: calendar.Set(s)} }

// edit changes an occurrence found in a view, at its current version.
func (f *fixture) edit(ctx context.Context, occ *calendar.Entry, scope calendar.Scope, u calendar.EntryUpdate) *calendar.Entry {
	f.t.Helper()
	u.ExpectedVersion = occ.Version
	e, _, err := f.store.UpdateOccurrence(ctx, occKey(occ), scope, u)
	if err != nil {
		f.t.Fatalf("%s edit of %s: %v", scope, occ.ID, err)
	}
	return e
}

func (f *fixture) cancel(ctx context.Context, occ *calendar.Entry, scope calendar.Scope) {
	f.t.Helper()
	if err := f.store.DeleteOccurrence(ctx, occKey(occ), scope, occ.Version); err != nil {
		f.t.Fatalf("%s delete of %s: %v", scope, occ.ID, err)
	}
}

const paris = "Europe/Paris"

// eightWeeks is the range of the scope tests: Mondays 5 January to 23 February 2026.
var eightWeeks = calendar.RangeSpec{FromDate: day("2026-01-05"), ToDate: day("2026-03-02")}

// syncSeries makes a weekly Monday 09:00 Paris series with exceptions on both
// sides of 2 February: 12 January moved to Tuesday 10:00 and renamed, 26
// January cancelled, 9 February renamed, 16 February cancelled.
func syncSeries(f *fixture) (context.Context, *calendar.Calendar) {
	ada := f.user("ada@example.com")
	cal := f.calendarOf(ada, "Work")
	f.series(ada, cal.ID, "Sync", timed("2026-01-05T08:00:00Z", "2026-01-05T09:00:00Z", paris), "FREQ=WEEKLY;BYDAY=MO")
	view := func() []*calendar.Entry { return f.occurrences(ada, cal.ID, eightWeeks, paris, false) }
	moved := title("Sync (moved)")
	moved.Timing = calendar.Set(timed("2026-01-13T09:00:00Z", "2026-01-13T10:00:00Z", paris))
	f.edit(ada, find(f.t, view(), paris, "01-12 09:00"), calendar.ScopeThis, moved)
	f.cancel(ada, find(f.t, view(), paris, "01-26 09:00"), calendar.ScopeThis)
	f.edit(ada, find(f.t, view(), paris, "02-09 09:00"), calendar.ScopeThis, title("Sync with guests"))
	f.cancel(ada, find(f.t, view(), paris, "02-16 09:00"), calendar.ScopeThis)
	return ada, cal
}

func TestSeriesExceptions(t *testing.T) {
	f := newFixture(t)
	ada, cal := syncSeries(f)
	got := f.occurrences(ada, cal.ID, eightWeeks, paris, false)
	wantShown(t, "with exceptions", got, paris,
		"Sync @ Mon 01-05 09:00", "Sync (moved) @ Tue 01-13 10:00", "Sync @ Mon 01-19 09:00",
		"Sync @ Mon 02-02 09:00", "Sync with guests @ Mon 02-09 09:00", "Sync @ Mon 02-23 09:00")
	all := f.occurrences(ada, cal.ID, eightWeeks, paris, true)
	wantShown(t, "with cancelled ones", all, paris,
		"Sync @ Mon 01-05 09:00", "Sync (moved) @ Tue 01-13 10:00", "Sync @ Mon 01-19 09:00", "Sync @ Mon 01-26 09:00 (cancelled)",
		"Sync @ Mon 02-02 09:00", "Sync with guests @ Mon 02-09 09:00", "Sync @ Mon 02-16 09:00 (cancelled)", "Sync @ Mon 02-23 09:00")

	// Each occurrence keeps its ID (series and original start) however it changes.
	moved := find(t, got, paris, "01-13 10:00")
	if !moved.IsException || moved.OriginalStart != at("2026-01-12T08:00:00Z") || moved.ID != calendar.OccurrenceID(moved.SeriesID, moved.OriginalStart) {
		t.Fatalf("moved occurrence: %+v", moved)
	}
	plain := find(t, got, paris, "01-19 09:00")
	if plain.IsException || plain.Version != 1 {
		t.Fatalf("an untouched occurrence has its series' version: got %d, exception %v", plain.Version, plain.IsException)
	}
	if moved.Version != 2 { // the series' 1 and the exception's 1
		t.Fatalf("an exception's occurrence version is the series' plus its own: got %d", moved.Version)
	}

	// The moved occurrence shows in the week it moved to, not in the week it left,
	// and an occurrence moved out of a week is not shown there at its old time.
	f.edit(ada, find(t, got, paris, "01-19 09:00"), calendar.ScopeThis, calendar.EntryUpdate{
		Timing: calendar.Set(timed("2026-01-27T16:00:00Z", "2026-01-27T17:00:00Z", paris))})
	wantShown(t, "week of 19 January", f.occurrences(ada, cal.ID, weekOf("2026-01-19"), paris, false), paris)
	wantShown(t, "week of 26 January", f.occurrences(ada, cal.ID, weekOf("2026-01-26"), paris, false), paris, "Sync @ Tue 01-27 17:00")

	// A stale version is refused; a cancelled occurrence cannot be edited.
	stale := title("stale")
	stale.ExpectedVersion = moved.Version - 1
	_, _, err := f.store.UpdateOccurrence(ada, occKey(moved), calendar.ScopeThis, stale)
	wantCode(t, err, calendar.CodeVersionConflict)
	cancelled := find(t, all, paris, "01-26 09:00")
	_, _, err = f.store.UpdateOccurrence(ada, occKey(cancelled), calendar.ScopeThis, calendar.EntryUpdate{ExpectedVersion: cancelled.Version, Title: calendar.Set("x")})
	wantCode(t, err, calendar.CodeNotFound)
	// Not an occurrence at all.
	bogus := occKey(plain)
	bogus.OriginalStart = bogus.OriginalStart.Add(time.Hour)
	_, _, err = f.store.UpdateOccurrence(ada, bogus, calendar.ScopeThis, calendar.EntryUpdate{ExpectedVersion: 1, Title: calendar.Set("x")})
	wantCode(t, err, calendar.CodeNotFound)
}

func TestSeriesThisAndFollowing(t *testing.T) {
	f := newFixture(t)
	ada, cal := syncSeries(f)
	before := f.occurrences(ada, cal.ID, eightWeeks, paris, false)
	oldID := before[0].SeriesID
	u := title("Sync v2")
	u.Timing = calendar.Set(timed("2026-02-02T09:00:00Z", "2026-02-02T10:00:00Z", paris)) // 10:00 from now on
	split := f.edit(ada, find(t, before, paris, "02-02 09:00"), calendar.ScopeThisAndFollowing, u)
	if split.PreviousSeriesID != oldID || split.ICalUID == before[0].ICalUID || !split.IsSeries() || split.ID == oldID {
		t.Fatalf("the new series: %+v", split)
	}
	all := f.occurrences(ada, cal.ID, eightWeeks, paris, true)
	wantShown(t, "after the split", all, paris,
		"Sync @ Mon 01-05 09:00", "Sync (moved) @ Tue 01-13 10:00", "Sync @ Mon 01-19 09:00", "Sync @ Mon 01-26 09:00 (cancelled)",
		"Sync v2 @ Mon 02-02 10:00", "Sync with guests @ Mon 02-09 10:00", "Sync v2 @ Mon 02-16 10:00 (cancelled)", "Sync v2 @ Mon 02-23 10:00")
	for _, e := range all[:4] {
		if e.SeriesID != oldID {
			t.Fatalf("%s belongs to %s, want the old series", e.Title, e.SeriesID)
		}
	}
	for _, e := range all[4:] {
		if e.SeriesID != split.ID || e.ICalUID != split.ICalUID {
			t.Fatalf("%s belongs to %s, want the new series", e.Title, e.SeriesID)
		}
	}
	old, err := f.store.Series(ada, calendar.EntryKey{CalendarID: cal.ID, EntryID: oldID})
	if err != nil || len(old.Exceptions) != 2 || old.Master.Recurrence.Rule != "FREQ=WEEKLY;UNTIL=20260202T075959Z;BYDAY=MO" {
		t.Fatalf("the old series: %+v %v", old, err)
	}
	if n := f.countEntities()["EXCEPTION"]; n != 4 {
		t.Fatalf("%d exception items, want 4 (the old ones after the split are gone)", n)
	}

	// ALL through an occurrence: fields not overridden follow, a new time of
	// day moves every occurrence and keeps the exceptions.
	f.edit(ada, find(t, all, paris, "02-23 10:00"), calendar.ScopeAll, title("Sync v3"))
	all = f.occurrences(ada, cal.ID, eightWeeks, paris, true)
	retime := calendar.EntryUpdate{Timing: calendar.Set(timed("2026-02-23T10:00:00Z", "2026-02-23T11:00:00Z", paris))}
	f.edit(ada, find(t, all, paris, "02-23 10:00"), calendar.ScopeAll, retime)
	wantShown(t, "after ALL edits", f.occurrences(ada, cal.ID, eightWeeks, paris, true)[4:], paris,
		"Sync v3 @ Mon 02-02 11:00", "Sync with guests @ Mon 02-09 11:00", "Sync v3 @ Mon 02-16 11:00 (cancelled)", "Sync v3 @ Mon 02-23 11:00")
	if n := f.countEntities()["EXCEPTION"]; n != 4 {
		t.Fatalf("%d exception items, want 4 (a new generation replaced the old)", n)
	}

	// Ending the new series before 23 February, then deleting the old one whole.
	all = f.occurrences(ada, cal.ID, eightWeeks, paris, false)
	f.cancel(ada, find(t, all, paris, "02-23 11:00"), calendar.ScopeThisAndFollowing)
	f.cancel(ada, find(t, all, paris, "01-19 09:00"), calendar.ScopeAll)
	wantShown(t, "after the deletes", f.occurrences(ada, cal.ID, eightWeeks, paris, true), paris,
		"Sync v3 @ Mon 02-02 11:00", "Sync with guests @ Mon 02-09 11:00", "Sync v3 @ Mon 02-16 11:00 (cancelled)")
	counts := f.countEntities()
	if counts["SERIES"] != 1 || counts["EXCEPTION"] != 2 {
		t.Fatalf("items left: %v", counts)
	}
}

// TestExceptionsOfAnotherGeneration puts an exception of a generation the
// series no longer uses, as a large change stopped halfway leaves behind: it
// is never shown, and costs no read again (the read's check says whether
// the series changed between its two Queries, range_reads.go).
func TestExceptionsOfAnotherGeneration(t *testing.T) {
	f := newFixture(t)
	f.messy = true // the leftover stays
	ada, cal := syncSeries(f)
	before := shown(f.occurrences(ada, cal.ID, eightWeeks, paris, true), paris)
	var leftover map[string]any
	for _, it := range f.items() {
		if it["entityType"] == "EXCEPTION" && it["cancelled"] == true {
			leftover = it
		}
	}
	leftover["SK"] = strings.Replace(leftover["SK"].(string), "#X#", "#Xstale#", 1)
	leftover["gen"], leftover["cancelled"], leftover["title"] = "stale", false, "left behind"
	f.putItem(leftover)

	rec := &dynamo.Recorder{}
	s := dynamo.New(dynamotest.Client(t, dynamo.WithRecorder(rec)), f.store.Table(), engine)
	from, to := eightWeeks.Window()
	read, err := s.Read(ada, calendar.Keys{Calendars: []string{cal.ID}})
	if err != nil {
		t.Fatal(err)
	}
	rec.Reset()
	if _, err := s.EntriesReaching(ada, calendar.ReadScope{}, read.Calendars[cal.ID], from, to); err != nil {
		t.Fatal(err)
	}
	if n := len(rec.Calls()); n != 3 {
		t.Fatalf("%d calls, want 3: the range's two Queries and their check", n)
	}
	if after := shown(f.occurrences(ada, cal.ID, eightWeeks, paris, true), paris); !slices.Equal(after, before) {
		t.Fatalf("with an exception left behind:\ngot  %q\nwant %q", after, before)
	}
}
