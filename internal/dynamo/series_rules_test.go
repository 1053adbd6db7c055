package dynamo_test

import (
	"slices"
	"testing"
	"time"

	"github.com/calgraph/calgraph/internal/calendar"
)

// TestSeriesInputRefused checks that bad series get BAD_USER_INPUT naming the
// field, and that nothing is written.
func TestSeriesInputRefused(t *testing.T) {
	tests := []struct {
		name   string
		timing calendar.Timing
		rec    calendar.Recurrence
		field  string
	}{
		{"not a rule", timed("2026-01-05T09:00:00Z", "2026-01-05T10:00:00Z", "UTC"), calendar.Recurrence{Rule: "EVERY MONDAY"}, "recurrence.rule"},
		{"UNTIL before the start", timed("2026-01-05T09:00:00Z", "2026-01-05T10:00:00Z", "UTC"), calendar.Recurrence{Rule: "FREQ=DAILY;UNTIL=20251231T000000Z"}, "recurrence.rule"},
		{"absurd COUNT", timed("2026-01-05T09:00:00Z", "2026-01-05T10:00:00Z", "UTC"), calendar.Recurrence{Rule: "FREQ=DAILY;COUNT=999999"}, "recurrence.rule"},
		{"every minute for years", timed("2026-01-05T09:00:00Z", "2026-01-05T10:00:00Z", "UTC"), calendar.Recurrence{Rule: "FREQ=MINUTELY;UNTIL=20300101T000000Z"}, "recurrence.rule"},
		{"every minute, for ever", timed("2026-01-05T09:00:00Z", "2026-01-05T10:00:00Z", "UTC"), calendar.Recurrence{Rule: "FREQ=MINUTELY"}, "recurrence.rule"},
		{"every hour, for ever", timed("2026-01-05T09:00:00Z", "2026-01-05T10:00:00Z", "UTC"), calendar.Recurrence{Rule: "FREQ=HOURLY"}, "recurrence.rule"},
		{"every 30 seconds, 10 times", timed("2026-01-05T09:00:00Z", "2026-01-05T10:00:00Z", "UTC"), calendar.Recurrence{Rule: "FREQ=SECONDLY;INTERVAL=30;COUNT=10"}, "recurrence.rule"},
		{"hour 24", timed("2026-01-06T09:00:00Z", "2026-01-06T10:00:00Z", "UTC"), calendar.Recurrence{Rule: "FREQ=DAILY;BYHOUR=24"}, "recurrence.rule"},
		{"unknown time zone", timed("2026-01-05T09:00:00Z", "2026-01-05T10:00:00Z", "Mars/Olympus_Mons"), calendar.Recurrence{Rule: "FREQ=DAILY"}, "timeZone"},
		{"multi-day", multiDay("2026-01-05", "2026-01-07"), calendar.Recurrence{Rule: "FREQ=WEEKLY"}, "recurrence"},
		{"task", dueOn("2026-01-05"), calendar.Recurrence{Rule: "FREQ=WEEKLY"}, "recurrence"},
		{"a fraction of a second", timed("2026-01-05T09:00:00.5Z", "2026-01-05T10:00:00Z", "UTC"), calendar.Recurrence{Rule: "FREQ=DAILY"}, "timing"},
		{"EXDATE of an all-day series at noon", allDay("2026-01-05"), calendar.Recurrence{Rule: "FREQ=DAILY", ExDates: []time.Time{at("2026-01-07T12:00:00Z")}}, "recurrence"},
		{"RDATE with a fraction of a second", timed("2026-01-05T09:00:00Z", "2026-01-05T10:00:00Z", "UTC"), calendar.Recurrence{Rule: "FREQ=DAILY", RDates: []time.Time{at("2026-01-07T09:30:00.25Z")}}, "recurrence"},
		{"RDATE before the year 1", timed("2026-01-05T09:00:00Z", "2026-01-05T10:00:00Z", "UTC"), calendar.Recurrence{Rule: "FREQ=DAILY", RDates: []time.Time{at("0000-01-07T09:00:00Z")}}, "recurrence"},
	}
	f := newFixture(t)
	ada := f.user("ada@example.com")
	cal := f.calendarOf(ada, "Home")
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := f.store.CreateEntry(ada, calendar.NewEntry{CalendarID: cal.ID, Title: "x", Timing: tt.timing, Recurrence: &tt.rec})
			wantCode(t, err, calendar.CodeInvalid)
			if got := calendar.ErrorField(err); got != tt.field {
				t.Fatalf("field %q, want %q (%v)", got, tt.field, err)
			}
		})
	}
	if n := f.countEntities()["SERIES"]; n != 0 {
		t.Fatalf("%d series written, want none", n)
	}
}

// TestOccurrenceChangesRefused checks the changes a series refuses.
func TestOccurrenceChangesRefused(t *testing.T) {
	f := newFixture(t)
	ada, cal := syncSeries(f)
	view := f.occurrences(ada, cal.ID, eightWeeks, paris, false)
	occ := find(t, view, paris, "01-19 09:00")
	other := f.calendarOf(ada, "Other")
	tests := []struct {
		name  string
		scope calendar.Scope
		u     calendar.EntryUpdate
		field string
	}{
		{"a recurrence for one occurrence", calendar.ScopeThis, calendar.EntryUpdate{Recurrence: calendar.Set(calendar.Recurrence{Rule: "FREQ=DAILY"})}, "recurrence"},
		{"another kind", calendar.ScopeThis, calendar.EntryUpdate{Timing: calendar.Set(allDay("2026-01-19"))}, "timing"},
		{"another kind for the series", calendar.ScopeAll, calendar.EntryUpdate{Timing: calendar.Set(allDay("2026-01-19"))}, "timing"},
		{"moved more than a year", calendar.ScopeThis, calendar.EntryUpdate{Timing: calendar.Set(timed("2027-03-01T08:00:00Z", "2027-03-01T09:00:00Z", paris))}, "timing"},
		{"a rule too dense", calendar.ScopeAll, calendar.EntryUpdate{Recurrence: calendar.Set(calendar.Recurrence{Rule: "FREQ=SECONDLY;UNTIL=20300101T000000Z"})}, "recurrence.rule"},
		{"every minute, for ever", calendar.ScopeAll, calendar.EntryUpdate{Recurrence: calendar.Set(calendar.Recurrence{Rule: "FREQ=MINUTELY"})}, "recurrence.rule"},
		{"an unknown scope", "SOME", title("x"), "scope"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.u.ExpectedVersion = occ.Version
			_, _, err := f.store.UpdateOccurrence(ada, occKey(occ), tt.scope, tt.u)
			wantCode(t, err, calendar.CodeInvalid)
			if got := calendar.ErrorField(err); got != tt.field {
				t.Fatalf("field %q, want %q (%v)", got, tt.field, err)
			}
		})
	}
	master, err := f.store.Series(ada, calendar.EntryKey{CalendarID: cal.ID, EntryID: occ.SeriesID})
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = f.store.MoveEntry(ada, master.Master.Key(), master.Master.Version, other.ID)
	wantCode(t, err, calendar.CodeInvalid)
	_, _, err = f.store.UpdateOccurrence(ada, calendar.OccurrenceKey{CalendarID: cal.ID, SeriesID: occ.SeriesID}, calendar.ScopeThis,
		calendar.EntryUpdate{ExpectedVersion: master.Master.Version, Title: calendar.Set("x")})
	wantCode(t, err, calendar.CodeInvalid) // THIS needs an occurrence
	wantShown(t, "after the refusals", f.occurrences(ada, cal.ID, eightWeeks, paris, false), paris, shown(view, paris)...)
}

// TestSeriesOfDaysWithCount checks a COUNT series of whole days with
// exceptions: COUNT counts the rule's occurrences whatever happens to them, and
// a split shares them out.
func TestSeriesOfDaysWithCount(t *testing.T) {
	f := newFixture(t)
	ada := f.user("ada@example.com")
	cal := f.calendarOf(ada, "Home")
	f.series(ada, cal.ID, "Retreat", allDay("2026-03-02"), "FREQ=DAILY;COUNT=5")
	two := calendar.RangeSpec{FromDate: day("2026-03-02"), ToDate: day("2026-03-16")}
	view := func() []*calendar.Entry { return f.occurrences(ada, cal.ID, two, "UTC", false) }
	f.cancel(ada, find(t, view(), "UTC", "03-03 00:00"), calendar.ScopeThis)
	f.edit(ada, find(t, view(), "UTC", "03-04 00:00"), calendar.ScopeThis, calendar.EntryUpdate{Timing: calendar.Set(allDay("2026-03-10"))})
	wantShown(t, "with exceptions", view(), "UTC",
		"Retreat @ Mon 03-02 00:00", "Retreat @ Thu 03-05 00:00", "Retreat @ Fri 03-06 00:00", "Retreat @ Tue 03-10 00:00")
	moved := find(t, view(), "UTC", "03-10 00:00")
	if moved.OriginalStart != at("2026-03-04T00:00:00Z") {
		t.Fatalf("the moved day's original start: %v", moved.OriginalStart)
	}

	split := f.edit(ada, find(t, view(), "UTC", "03-05 00:00"), calendar.ScopeThisAndFollowing, title("Retreat, part 2"))
	if split.Recurrence.Rule != "FREQ=DAILY;COUNT=2" {
		t.Fatalf("the new series' rule: %q", split.Recurrence.Rule)
	}
	wantShown(t, "after the split", view(), "UTC",
		"Retreat @ Mon 03-02 00:00", "Retreat, part 2 @ Thu 03-05 00:00", "Retreat, part 2 @ Fri 03-06 00:00", "Retreat @ Tue 03-10 00:00")
	old, err := f.store.Series(ada, calendar.EntryKey{CalendarID: cal.ID, EntryID: moved.SeriesID})
	if err != nil || old.Master.Recurrence.Rule != "FREQ=DAILY;UNTIL=20260304" || len(old.Exceptions) != 2 {
		t.Fatalf("the old series: %+v, %v", old, err)
	}
}

// TestSingleEntryMadeToRepeat turns a single entry with pieces into a series.
func TestSingleEntryMadeToRepeat(t *testing.T) {
	f := newFixture(t)
	ada := f.user("ada@example.com")
	cal := f.calendarOf(ada, "Home")
	e, _, err := f.store.CreateEntry(ada, calendar.NewEntry{CalendarID: cal.ID, Title: "Yoga", Timing: timed("2026-01-05T18:00:00Z", "2026-01-05T19:00:00Z", "UTC")})
	if err != nil {
		t.Fatal(err)
	}
	s, _, err := f.store.UpdateEntry(ada, calendar.EntryUpdate{Key: e.Key(), ExpectedVersion: 1,
		Recurrence: calendar.Set(calendar.Recurrence{Rule: "FREQ=WEEKLY;COUNT=3"})})
	if err != nil || !s.IsSeries() || s.ID != e.ID || s.Version != 2 {
		t.Fatalf("made to repeat: %+v, %v", s, err)
	}
	wantShown(t, "the series", f.occurrences(ada, cal.ID, calendar.RangeSpec{FromDate: day("2026-01-01"), ToDate: day("2026-02-01")}, "UTC", false), "UTC",
		"Yoga @ Mon 01-05 18:00", "Yoga @ Mon 01-12 18:00", "Yoga @ Mon 01-19 18:00")
	if got := f.countEntities(); got["ENTRY"] != 0 || got["SERIES"] != 1 {
		t.Fatalf("items: %v", got)
	}
}

// TestSeriesFoundOnlyWhileTheyLast checks which series a range returns: one
// begun ten years before, and one that ended within the year before (one of
// its occurrences may have been moved into the range), but not one that ended
// years ago, nor one that begins after the range.
func TestSeriesFoundOnlyWhileTheyLast(t *testing.T) {
	f := newFixture(t)
	ada := f.user("ada@example.com")
	cal := f.calendarOf(ada, "Home")
	f.series(ada, cal.ID, "forever", timed("2016-01-04T09:00:00Z", "2016-01-04T10:00:00Z", "UTC"), "FREQ=WEEKLY")
	f.series(ada, cal.ID, "ended in 2020", timed("2016-01-04T09:00:00Z", "2016-01-04T10:00:00Z", "UTC"), "FREQ=WEEKLY;UNTIL=20200101T000000Z")
	f.series(ada, cal.ID, "ten times", timed("2016-01-04T09:00:00Z", "2016-01-04T10:00:00Z", "UTC"), "FREQ=YEARLY;COUNT=10")
	f.series(ada, cal.ID, "from 2030", timed("2030-01-07T09:00:00Z", "2030-01-07T10:00:00Z", "UTC"), "FREQ=WEEKLY")
	early := f.series(ada, cal.ID, "from March", timed("2026-03-02T09:00:00Z", "2026-03-02T10:00:00Z", "UTC"), "FREQ=WEEKLY")
	// Its first occurrence, moved two months earlier, into the week shown.
	f.edit(ada, early.OccurrenceAt(early.Start), calendar.ScopeThis, calendar.EntryUpdate{
		Timing: calendar.Set(timed("2026-01-06T09:00:00Z", "2026-01-06T10:00:00Z", "UTC"))})
	week := weekOf("2026-01-05")
	from, to := week.Window()
	candidates, err := f.store.EntriesReaching(ada, calendar.ReadScope{}, &calendar.Calendar{ID: cal.ID}, from, to)
	if err != nil {
		t.Fatal(err)
	}
	var read []string
	for _, c := range candidates {
		read = append(read, c.Title)
	}
	slices.Sort(read)
	if !slices.Equal(read, []string{"forever", "from March", "from March", "ten times"}) {
		t.Fatalf("read %q, want the series still going, the one ended within a year, and the one that begins soon with its exception", read)
	}
	wantShown(t, "the week", f.occurrences(ada, cal.ID, week, "UTC", false), "UTC", "forever @ Mon 01-05 09:00", "from March @ Tue 01-06 09:00")
	wantShown(t, "the last week of 2024", f.occurrences(ada, cal.ID, weekOf("2024-12-30"), "UTC", false), "UTC",
		"forever @ Mon 12-30 09:00", "ten times @ Sat 01-04 09:00")
}

// TestSeriesSequencesAndUIDs checks RFC 5545's SEQUENCE and UID through
// series changes: significant changes (timing, place, cancellation, rule)
// raise SEQUENCE, others do not; exceptions share their series' UID; a split
// series has its own.
func TestSeriesSequencesAndUIDs(t *testing.T) {
	f := newFixture(t)
	ada := f.user("ada@example.com")
	cal := f.calendarOf(ada, "Home")
	m := f.series(ada, cal.ID, "Sync", timed("2026-01-05T08:00:00Z", "2026-01-05T09:00:00Z", paris), "FREQ=WEEKLY")
	view := func() []*calendar.Entry { return f.occurrences(ada, cal.ID, eightWeeks, paris, true) }
	steps := []struct {
		name    string
		when    string
		scope   calendar.Scope
		u       calendar.EntryUpdate
		cancel  bool
		check   string // "exception", "series" or "split"
		wantSeq int
	}{
		{"a new title for one", "01-12 09:00", calendar.ScopeThis, title("Retro"), false, "exception", 0},
		{"a new place for one", "01-12 09:00", calendar.ScopeThis, calendar.EntryUpdate{Location: calendar.Set("Room 2")}, false, "exception", 1},
		{"a cancellation", "01-19 09:00", calendar.ScopeThis, calendar.EntryUpdate{}, true, "exception", 1},
		{"a new title for all", "01-26 09:00", calendar.ScopeAll, title("Weekly sync"), false, "series", 0},
		{"a new time for all", "01-26 09:00", calendar.ScopeAll, calendar.EntryUpdate{Timing: calendar.Set(timed("2026-01-26T09:00:00Z", "2026-01-26T10:00:00Z", paris))}, false, "series", 1},
		{"a split", "02-09 10:00", calendar.ScopeThisAndFollowing, title("Sync v2"), false, "split", 0},
	}
	for _, st := range steps {
		occ := find(t, view(), paris, st.when)
		var err error
		if st.cancel {
			err = f.store.DeleteOccurrence(ada, occKey(occ), st.scope, occ.Version)
		} else {
			st.u.ExpectedVersion = occ.Version
			_, _, err = f.store.UpdateOccurrence(ada, occKey(occ), st.scope, st.u)
		}
		if err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		s, err := f.store.Series(ada, calendar.EntryKey{CalendarID: cal.ID, EntryID: m.ID})
		if err != nil {
			t.Fatal(err)
		}
		switch st.check {
		case "exception":
			x := s.Exception(occ.OriginalStart)
			if x == nil || x.Sequence != st.wantSeq || x.ICalUID != m.ICalUID {
				t.Fatalf("%s: exception %+v, want SEQUENCE %d and the series' UID", st.name, x, st.wantSeq)
			}
		case "series":
			if s.Master.Sequence != st.wantSeq || s.Master.ICalUID != m.ICalUID {
				t.Fatalf("%s: series SEQUENCE %d UID %s, want %d and %s", st.name, s.Master.Sequence, s.Master.ICalUID, st.wantSeq, m.ICalUID)
			}
		case "split":
			if s.Master.Sequence != 2 {
				t.Fatalf("%s: the old series' SEQUENCE is %d, want 2 (its rule changed)", st.name, s.Master.Sequence)
			}
			after := find(t, view(), paris, "02-16 10:00")
			if after.ICalUID == m.ICalUID || after.Sequence != 0 {
				t.Fatalf("%s: the new series' occurrence has UID %s, SEQUENCE %d", st.name, after.ICalUID, after.Sequence)
			}
		}
	}
}
