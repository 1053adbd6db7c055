package recurrence_test

import (
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/calgraph/calgraph/internal/calendar"
	"github.com/calgraph/calgraph/internal/recurrence"
)

// fuzzZones are the zones a fuzzed series may recur in: without DST (UTC,
// Kolkata, Apia since 2021), with DST changes at 02:00 on either side of the
// equator (New York, Paris), at midnight (Santiago, Havana) and of half an
// hour (Lord Howe).
var fuzzZones = []string{"UTC", "America/New_York", "Europe/Paris", "America/Santiago",
	"America/Havana", "Australia/Lord_Howe", "Pacific/Apia", "Asia/Kolkata"}

// fuzzSeries returns a series with the given rule: of whole days when dated,
// else one hour long in one of fuzzZones, starting minute minutes after the
// first instant of its day there (so at either reading of a time of day that
// happens twice). day counts from 2024-01-01 and stays within about four
// years.
func fuzzSeries(rule string, zone uint8, day, minute uint16, dated bool) *calendar.Entry {
	d := calendar.Date{Year: 2024, Month: time.January, Day: 1}.AddDays(int(day % 1500))
	if dated {
		return &calendar.Entry{ID: "s", Kind: calendar.KindAllDay, StartDate: d, EndDate: d.AddDays(1),
			Recurrence: &calendar.Recurrence{Rule: rule}}
	}
	name := fuzzZones[int(zone)%len(fuzzZones)]
	loc, _ := time.LoadLocation(name)
	start := d.In(loc).Add(time.Duration(minute%1500) * time.Minute).UTC()
	return &calendar.Entry{ID: "s", Kind: calendar.KindTimed, Start: start, End: start.Add(time.Hour),
		TimeZone: name, Recurrence: &calendar.Recurrence{Rule: rule}}
}

// FuzzRule checks that Validate refuses a rule as invalid or accepts it in a
// canonical form that it accepts again unchanged, and that an accepted series
// expands as the engine promises: from its start, in order, each occurrence
// once, at the series' time of day, within COUNT and UNTIL, the same with or
// without fast-forwarding, and each one known to Has.
func FuzzRule(f *testing.F) {
	for _, s := range []struct {
		rule        string
		zone        uint8
		day, minute uint16
		dated       bool
	}{
		{"FREQ=WEEKLY;BYDAY=MO", 1, 0, 540, false},                                // Monday 2024-01-01 09:00
		{"FREQ=DAILY;COUNT=10", 1, 796, 150, false},                               // 02:30 New York, in the gap on 2026-03-08
		{"FREQ=DAILY;INTERVAL=3;UNTIL=20261231T235959Z", 2, 815, 150, false},      // across Paris's spring gap
		{"FREQ=WEEKLY;BYDAY=SU;COUNT=3", 3, 608, 0, false},                        // Santiago, 2025-09-07's midnight skipped
		{"FREQ=DAILY;COUNT=3", 3, 615, 0, false},                                  // starting on the day without a midnight
		{"FREQ=WEEKLY;INTERVAL=2;WKST=SU;BYDAY=TU,TH", 5, 274, 135, false},        // Lord Howe, half-hour DST
		{"FREQ=DAILY;COUNT=10", 5, 274, 135, false},                               // 02:15 Lord Howe, in its half-hour gap
		{"FREQ=DAILY;COUNT=10", 1, 1035, 90, false},                               // the first 01:30 New York of 2026-11-01
		{"FREQ=MONTHLY;BYDAY=-1FR;COUNT=3", 0, 816, 0, true},                      // whole days
		{"FREQ=MONTHLY;BYMONTHDAY=31", 0, 30, 0, true},                            // months without a 31st
		{"FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=29", 6, 59, 600, false},                // leap days only
		{"FREQ=YEARLY;BYWEEKNO=53;BYDAY=TH", 0, 1095, 0, true},                    // ISO week 53
		{"FREQ=MONTHLY;BYSETPOS=-1;BYDAY=MO,TU,WE,TH,FR", 7, 30, 600, false},      // last weekday of the month
		{"FREQ=YEARLY;BYYEARDAY=1,-1", 0, 0, 0, true},                             // first and last days of years
		{"rrule:freq=weekly;byday=mo,we;until=20260301T000000", 1, 0, 540, false}, // lower case, floating UNTIL
		{"FREQ=DAILY;UNTIL=20240101", 0, 0, 0, true},                              // UNTIL on the start
		{"FREQ=WEEKLY;UNTIL=20240101T120000Z", 0, 0, 0, true},                     // UNTIL at an instant, for whole days
		{"FREQ=DAILY;UNTIL=29991231T235959Z", 2, 0, 0, false},
		{"FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=30", 0, 0, 0, true}, // never occurs
		{"", 0, 0, 0, false},
		{"RRULE:", 0, 0, 0, false},
		{";;;", 0, 0, 0, false},
		{"FREQ=", 0, 0, 0, false},
		{"FREQ=SECONDLY", 0, 0, 0, false},
		{"FREQ=DAILY;BYHOUR=9", 0, 0, 0, false},
		{"FREQ=HOURLY;INTERVAL=7;BYDAY=MO", 1, 796, 150, false},    // New York's spring gap, hourly
		{"FREQ=DAILY;BYHOUR=1,2,3;BYMINUTE=30", 1, 1035, 0, false}, // New York's autumn overlap
		{"FREQ=WEEKLY;BYDAY=TU,TH;COUNT=5", 2, 0, 540, false},      // a start off its rule (a Monday)
		{"FREQ=MINUTELY;INTERVAL=97;UNTIL=20250101T000000Z", 4, 10, 0, false},
		{"FREQ=DAILY;COUNT=0", 0, 0, 0, false},
		{"FREQ=DAILY;COUNT=99999999999999999999", 0, 0, 0, false},
		{"FREQ=DAILY;INTERVAL=-1", 0, 0, 0, false},
		{"FREQ=DAILY;COUNT=3;UNTIL=20260101T000000Z", 0, 0, 0, false},
		{"FREQ=MONTHLY;BYDAY=+0MO", 0, 0, 0, false},
		{"FREQ=MONTHLY;BYDAY=1", 0, 0, 0, false},
		{"FREQ=MONTHLY;BYDAY=,", 0, 0, 0, false},
		{"FREQ=DAILY;WKST=XX", 0, 0, 0, false},
		{"FREQ=DAILY;UNTIL=30000101", 0, 0, 0, true},
		{"FREQ=DAILY\n;COUNT=2", 0, 0, 0, false},
		{"FREQ=WEEKLY;BYDAY=MO;BYDAY=TU", 0, 0, 0, false},
		{"FREQ=YEARLY;BYEASTER=0", 0, 0, 0, false},
		{"FREQ=DAILY;DTSTART=20240101T000000Z", 0, 0, 0, false},
		{"FREQ=DAILY;X-NAME=é", 0, 0, 0, false},
	} {
		f.Add(s.rule, s.zone, s.day, s.minute, s.dated)
	}
	f.Fuzz(func(t *testing.T, rule string, zone uint8, day, minute uint16, dated bool) {
		s := fuzzSeries(rule, zone, day, minute, dated)
		if err := engine.Validate(s); err != nil {
			if got := calendar.ErrorCode(err); got != calendar.CodeInvalid {
				t.Fatalf("Validate(%q): got code %v (%v), want %v", rule, got, err, calendar.CodeInvalid)
			}
			return
		}
		canonical := s.Recurrence.Rule
		if err := engine.Validate(s); err != nil || s.Recurrence.Rule != canonical {
			t.Fatalf("Validate(%q) again: got %q, %v, want %q, nil", canonical, s.Recurrence.Rule, err, canonical)
		}
		first := s.FirstStart()
		span := func(from time.Time, years, months int) time.Time { return from.AddDate(years, months, 0) }
		if timed(canonical) { // an hour of a rule of its own times of day
			span = func(from time.Time, _, _ int) time.Time { return from.Add(time.Hour) }
		}
		got := checkStarts(t, s, first, span(first, 1, 0))
		if len(got) == 0 || !got[0].Equal(first) {
			t.Fatalf("rule %q: got occurrences from %v, want the first at the series' start %v", canonical, got, first)
		}
		// Three years on (two days, for a rule of its own times of day: the
		// reference walks from the start), a DAILY, WEEKLY or shorter rule
		// fast-forwards.
		later := first.AddDate(3, 0, 0)
		if timed(canonical) {
			later = first.AddDate(0, 0, 2)
		}
		checkStarts(t, s, later, span(later, 0, 2))
	})
}

// checkStarts returns the occurrences of s in [from, to), checked as
// FuzzRule says.
func checkStarts(t *testing.T, s *calendar.Entry, from, to time.Time) []time.Time {
	t.Helper()
	rule := s.Recurrence.Rule
	got, err := engine.Starts(s, from, to, calendar.MaxOccurrencesPerRequest)
	if err != nil && timed(rule) && calendar.ErrorCode(err) == calendar.CodeInvalid {
		return nil // more than a request may hold: a rule of its own times of day can be that dense
	}
	if err != nil {
		t.Fatalf("rule %q: Starts(%v, %v): got %v, want no error (at most one occurrence a day)", rule, from, to, err)
	}
	if want := recurrence.StartsFromTheBeginning(s, from, to); !slices.EqualFunc(got, want, time.Time.Equal) {
		t.Fatalf("rule %q: Starts(%v, %v): got %v, want %v (expanded from the start)", rule, from, to, got, want)
	}
	count, until := countAndUntil(t, rule, s.Dated())
	if count > 0 && len(got) > count {
		t.Fatalf("rule %q: got %d occurrences, want at most COUNT=%d", rule, len(got), count)
	}
	for i, g := range got {
		switch {
		case g.Before(from) || !g.Before(to):
			t.Fatalf("rule %q: got occurrence %v, want it in [%v, %v)", rule, g, from, to)
		case i > 0 && !got[i-1].Before(g):
			t.Fatalf("rule %q: got occurrence %v after %v, want them in order, each once", rule, g, got[i-1])
		case !until.IsZero() && g.After(until):
			t.Fatalf("rule %q: got occurrence %v, want none after UNTIL %v", rule, g, until)
		case !g.Equal(s.FirstStart()) && !timed(rule) && !onTimeOfDay(s, g):
			t.Fatalf("rule %q: got occurrence %v, want it at the time of day of the start %v in %s", rule, g, s.FirstStart(), s.TimeZone)
		}
	}
	// Has walks from the start for most rules: ask about a few occurrences.
	step := max(1, len(got)/8)
	for i := 0; i < len(got); i += step {
		if !engine.Has(s, got[i]) {
			t.Fatalf("rule %q: Has(%v) is false, want true for an occurrence", rule, got[i])
		}
	}
	if n := len(got); n > 0 && !engine.Has(s, got[n-1]) {
		t.Fatalf("rule %q: Has(%v) is false, want true for an occurrence", rule, got[n-1])
	}
	return got
}

// timed reports whether a rule gives its occurrences their own times of day
// (sub-daily, or BYHOUR, BYMINUTE, BYSECOND), instead of the start's.
func timed(rule string) bool {
	for _, part := range []string{"FREQ=HOURLY", "FREQ=MINUTELY", "FREQ=SECONDLY", "BYHOUR=", "BYMINUTE=", "BYSECOND="} {
		if strings.Contains(rule, part) {
			return true
		}
	}
	return false
}

// onTimeOfDay reports whether an occurrence of s is where its time of day
// falls on its date: midnight UTC for whole days, else the start's wall
// clock in the series' zone, read as calendar.WallClock reads it. (The first
// occurrence is the start itself, which may be the second of two instants
// with its wall clock.)
func onTimeOfDay(s *calendar.Entry, occ time.Time) bool {
	if s.Dated() {
		return occ.Equal(calendar.DateOf(occ.UTC()).In(time.UTC))
	}
	loc, _ := time.LoadLocation(s.TimeZone)
	a := s.Start.In(loc)
	// The date of occ's wall clock may be the day after its rule's date when
	// a gap pushed it past midnight; one of the two days matches.
	d := calendar.DateOf(occ.In(loc))
	for _, day := range []calendar.Date{d, d.AddDays(-1)} {
		if calendar.WallClock(day, a.Hour(), a.Minute(), a.Second(), 0, loc).Equal(occ) {
			return true
		}
	}
	return false
}

// countAndUntil reads COUNT and UNTIL from a canonical rule (UNTIL in UTC, or
// a date for a series of whole days); zero when absent.
func countAndUntil(t *testing.T, rule string, dated bool) (count int, until time.Time) {
	t.Helper()
	for _, part := range strings.Split(rule, ";") {
		name, v, _ := strings.Cut(part, "=")
		var err error
		switch {
		case name == "COUNT":
			count, err = strconv.Atoi(v)
		case name == "UNTIL" && dated:
			until, err = time.Parse("20060102", v)
		case name == "UNTIL":
			until, err = time.Parse("20060102T150405Z", v)
		}
		if err != nil {
			t.Fatalf("canonical rule %q: part %q: %v", rule, part, err)
		}
	}
	return count, until
}
