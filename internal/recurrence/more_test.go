package recurrence_test

import (
	"slices"
	"testing"
	"time"

	"github.com/calgraph/calgraph/internal/calendar"
)

func utc(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t
}

func TestDSTInTwoZones(t *testing.T) {
	tests := []struct {
		zone, start, rule string
		from, to          string
		want              []string
	}{
		// Paris leaves summer time on 25 October 2026: 09:00 local stays 09:00.
		{"Europe/Paris", "20261019T090000", "FREQ=WEEKLY;COUNT=3", "2026-10-01T00:00:00Z", "2026-12-01T00:00:00Z",
			[]string{"2026-10-19 09:00", "2026-10-26 09:00", "2026-11-02 09:00"}},
		// Sydney starts summer time on 4 October 2026 (southern hemisphere).
		{"Australia/Sydney", "20261001T183000", "FREQ=DAILY;COUNT=5", "2026-09-01T00:00:00Z", "2026-11-01T00:00:00Z",
			[]string{"2026-10-01 18:30", "2026-10-02 18:30", "2026-10-03 18:30", "2026-10-04 18:30", "2026-10-05 18:30"}},
		// A meeting at 02:30 on the day New York skips 02:00-03:00 moves an hour on.
		{"America/New_York", "20260301T023000", "FREQ=WEEKLY;COUNT=3", "2026-03-01T00:00:00Z", "2026-04-01T00:00:00Z",
			[]string{"2026-03-01 02:30", "2026-03-08 03:30", "2026-03-15 02:30"}},
	}
	for _, tt := range tests {
		t.Run(tt.zone, func(t *testing.T) {
			s := series(t, tt.zone, tt.start, tt.rule)
			got, err := engine.Starts(s, utc(tt.from), utc(tt.to), 100)
			if err != nil {
				t.Fatal(err)
			}
			if l := local(got, tt.zone); !slices.Equal(l, tt.want) {
				t.Fatalf("got %q, want %q", l, tt.want)
			}
		})
	}
	// The UTC offsets really did change: the same local time is an hour apart in UTC.
	s := series(t, "Europe/Paris", "20261019T090000", "FREQ=WEEKLY;COUNT=2")
	got, _ := engine.Starts(s, utc("2026-10-01T00:00:00Z"), utc("2026-12-01T00:00:00Z"), 10)
	if got[0].Hour() != 7 || got[1].Hour() != 8 {
		t.Fatalf("got UTC hours %d and %d, want 7 (CEST) and 8 (CET)", got[0].Hour(), got[1].Hour())
	}
}

func TestLeapDaysAndNegativeMonthDays(t *testing.T) {
	leap := series(t, "UTC", "20240229T120000", "FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=29;COUNT=3")
	got, err := engine.Starts(leap, utc("2024-01-01T00:00:00Z"), utc("2040-01-01T00:00:00Z"), 10)
	if err != nil {
		t.Fatal(err)
	}
	if l := local(got, "UTC"); !slices.Equal(l, []string{"2024-02-29 12:00", "2028-02-29 12:00", "2032-02-29 12:00"}) {
		t.Fatalf("leap days: got %q", l)
	}
	last := series(t, "UTC", "20240131T120000", "FREQ=MONTHLY;BYMONTHDAY=-1;COUNT=3")
	got, _ = engine.Starts(last, utc("2024-01-01T00:00:00Z"), utc("2025-01-01T00:00:00Z"), 10)
	if l := local(got, "UTC"); !slices.Equal(l, []string{"2024-01-31 12:00", "2024-02-29 12:00", "2024-03-31 12:00"}) {
		t.Fatalf("last day of the month: got %q", l)
	}
}

func TestRDatesExDatesAndCount(t *testing.T) {
	s := series(t, "Europe/Paris", "20260105T090000", "FREQ=WEEKLY;COUNT=4")
	s.Recurrence.ExDates = []time.Time{utc("2026-01-12T08:00:00Z")} // 09:00 Paris on the 12th
	s.Recurrence.RDates = []time.Time{utc("2026-01-14T13:00:00Z")}  // an extra one, Wednesday 14:00
	got, err := engine.Starts(s, utc("2026-01-01T00:00:00Z"), utc("2026-03-01T00:00:00Z"), 10)
	if err != nil {
		t.Fatal(err)
	}
	// COUNT counts the rule's occurrences; EXDATE then removes one.
	want := []string{"2026-01-05 09:00", "2026-01-14 14:00", "2026-01-19 09:00", "2026-01-26 09:00"}
	if l := local(got, "Europe/Paris"); !slices.Equal(l, want) {
		t.Fatalf("got %q, want %q", l, want)
	}
	if last, ok := engine.Last(s); !ok || !last.Equal(utc("2026-01-26T08:00:00Z")) {
		t.Fatalf("last: got %v %v", last, ok)
	}
	if engine.Has(s, utc("2026-01-12T08:00:00Z")) || !engine.Has(s, utc("2026-01-14T13:00:00Z")) {
		t.Fatalf("Has: the excluded start must be out, the extra one in")
	}
	if _, ok := engine.Last(series(t, "UTC", "20260105T090000", "FREQ=WEEKLY")); ok {
		t.Fatalf("a series without COUNT or UNTIL has no last occurrence")
	}
}

func TestSeriesOfWholeDays(t *testing.T) {
	d := calendar.Date{Year: 2026, Month: time.March, Day: 27}
	s := &calendar.Entry{Kind: calendar.KindAllDay, StartDate: d, EndDate: d.AddDays(1),
		Recurrence: &calendar.Recurrence{Rule: "FREQ=MONTHLY;BYDAY=-1FR;COUNT=3"}}
	if err := engine.Validate(s); err != nil {
		t.Fatal(err)
	}
	got, _ := engine.Starts(s, utc("2026-01-01T00:00:00Z"), utc("2027-01-01T00:00:00Z"), 10)
	if l := local(got, "UTC"); !slices.Equal(l, []string{"2026-03-27 00:00", "2026-04-24 00:00", "2026-05-29 00:00"}) {
		t.Fatalf("got %q", l)
	}
	before, after, err := engine.Split(s, utc("2026-04-24T00:00:00Z"))
	if err != nil || before.Rule != "FREQ=MONTHLY;UNTIL=20260423;BYDAY=-1FR" || after.Rule != "FREQ=MONTHLY;COUNT=2;BYDAY=-1FR" {
		t.Fatalf("split: %q / %q, %v", before.Rule, after.Rule, err)
	}
}

func TestSplit(t *testing.T) {
	s := series(t, "America/New_York", "20260105T090000", "FREQ=WEEKLY;BYDAY=MO")
	s.Recurrence.ExDates = []time.Time{utc("2026-01-12T14:00:00Z"), utc("2026-02-02T14:00:00Z")}
	before, after, err := engine.Split(s, utc("2026-01-26T14:00:00Z"))
	if err != nil {
		t.Fatal(err)
	}
	if before.Rule != "FREQ=WEEKLY;UNTIL=20260126T135959Z;BYDAY=MO" || after.Rule != "FREQ=WEEKLY;BYDAY=MO" {
		t.Fatalf("rules: %q / %q", before.Rule, after.Rule)
	}
	if len(before.ExDates) != 1 || len(after.ExDates) != 1 {
		t.Fatalf("exdates: %v / %v", before.ExDates, after.ExDates)
	}
	s.Recurrence = &before
	got, _ := engine.Starts(s, utc("2026-01-01T00:00:00Z"), utc("2026-12-01T00:00:00Z"), 100)
	if l := local(got, "America/New_York"); !slices.Equal(l, []string{"2026-01-05 09:00", "2026-01-19 09:00"}) {
		t.Fatalf("the first part: got %q", l)
	}
}

func TestInvalidSeries(t *testing.T) {
	tests := []struct{ name, start, rule string }{
		{"not a rule", "20260105T090000", "EVERY MONDAY"},
		{"hour 24", "20260105T090000", "FREQ=DAILY;BYHOUR=9,24"},
		{"until before start", "20260105T090000", "FREQ=DAILY;UNTIL=20250101T000000Z"},
		{"count and until", "20260105T090000", "FREQ=DAILY;COUNT=3;UNTIL=20260201T000000Z"},
		{"absurd count", "20260105T090000", "FREQ=DAILY;COUNT=1000000"},
		{"absurd interval", "20260105T090000", "FREQ=DAILY;INTERVAL=100000"},
		{"never occurs", "20260105T090000", "FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=30"},
		{"unknown part", "20260105T090000", "FREQ=DAILY;BYFOO=1"},
		{"bad weekday", "20260105T090000", "FREQ=WEEKLY;BYDAY=XX"},
		{"month day 32", "20260105T090000", "FREQ=MONTHLY;BYMONTHDAY=32"},
		{"COUNT=0", "20260105T090000", "FREQ=DAILY;COUNT=0"},
		{"INTERVAL=0", "20260105T090000", "FREQ=DAILY;INTERVAL=0"},
		{"a part twice", "20260105T090000", "FREQ=DAILY;COUNT=1;COUNT=2"},
		{"ordinal zero", "20260105T090000", "FREQ=MONTHLY;BYDAY=+0MO"},
		{"ordinal 54", "20260105T090000", "FREQ=YEARLY;BYDAY=54MO"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := engine.Validate(series(t, "UTC", tt.start, tt.rule))
			if calendar.ErrorCode(err) != calendar.CodeInvalid || calendar.ErrorField(err) != "recurrence.rule" {
				t.Fatalf("got %v, want an invalid recurrence.rule", err)
			}
		})
	}
	s := series(t, "UTC", "20260105T090000", "FREQ=DAILY")
	if _, err := engine.Starts(s, utc("2026-01-01T00:00:00Z"), utc("2027-01-01T00:00:00Z"), 100); calendar.ErrorCode(err) != calendar.CodeInvalid {
		t.Fatalf("a year of a daily series with a cap of 100: got %v, want the cap refused", err)
	}
}

// TestZonesWhoseMidnightIsSkipped checks series in zones whose DST change
// happens at midnight, so that a day begins at 01:00: each occurrence stays
// on its day, and a series may start on that day.
func TestZonesWhoseMidnightIsSkipped(t *testing.T) {
	tests := []struct {
		zone, start, rule string
		from, to          string
		want              []string
	}{
		// Santiago skips 2025-09-07 00:00-01:00 (a Sunday).
		{"America/Santiago", "20250831T100000", "FREQ=WEEKLY;BYDAY=SU;COUNT=3", "2025-08-01T00:00:00Z", "2025-10-01T00:00:00Z",
			[]string{"2025-08-31 10:00", "2025-09-07 10:00", "2025-09-14 10:00"}},
		{"America/Santiago", "20250906T000000", "FREQ=DAILY;COUNT=3", "2025-09-01T00:00:00Z", "2025-10-01T00:00:00Z",
			[]string{"2025-09-06 00:00", "2025-09-07 01:00", "2025-09-08 00:00"}},
		{"America/Santiago", "20250907T100000", "FREQ=MONTHLY;COUNT=2", "2025-09-01T00:00:00Z", "2025-11-01T00:00:00Z",
			[]string{"2025-09-07 10:00", "2025-10-07 10:00"}},
		// Havana skips 2026-03-08 00:00-01:00.
		{"America/Havana", "20260301T093000", "FREQ=WEEKLY;COUNT=3", "2026-02-01T00:00:00Z", "2026-04-01T00:00:00Z",
			[]string{"2026-03-01 09:30", "2026-03-08 09:30", "2026-03-15 09:30"}},
	}
	for _, tt := range tests {
		t.Run(tt.zone+" "+tt.rule, func(t *testing.T) {
			s := series(t, tt.zone, tt.start, tt.rule)
			if err := engine.Validate(s); err != nil {
				t.Fatal(err)
			}
			got, err := engine.Starts(s, utc(tt.from), utc(tt.to), 100)
			if err != nil {
				t.Fatal(err)
			}
			if l := local(got, tt.zone); !slices.Equal(l, tt.want) {
				t.Fatalf("got %q, want %q", l, tt.want)
			}
			for _, g := range got {
				if !engine.Has(s, g) {
					t.Fatalf("Has(%v) is false", g)
				}
			}
		})
	}
}

// TestFarFuture checks series centuries after they began: rules without an
// end go on to the last supported year.
func TestFarFuture(t *testing.T) {
	d := calendar.Date{Year: 1950, Month: time.May, Day: 4}
	birthday := &calendar.Entry{Kind: calendar.KindAllDay, StartDate: d, EndDate: d.AddDays(1),
		Recurrence: &calendar.Recurrence{Rule: "FREQ=YEARLY"}}
	got, err := engine.Starts(birthday, utc("2500-01-01T00:00:00Z"), utc("2501-01-01T00:00:00Z"), 10)
	if err != nil || len(got) != 1 || !got[0].Equal(utc("2500-05-04T00:00:00Z")) {
		t.Fatalf("a birthday from 1950 in 2500: %v, %v", got, err)
	}
	weekly := series(t, "Europe/Paris", "19000102T090000", "FREQ=WEEKLY;BYDAY=TU")
	got, err = engine.Starts(weekly, utc("2999-12-01T00:00:00Z"), utc("2999-12-15T00:00:00Z"), 10)
	if err != nil || len(got) != 2 {
		t.Fatalf("a weekly series from 1900 in 2999: %v, %v", got, err)
	}
	if n := (calendar.Date{Year: 1900, Month: 1, Day: 1}).DaysUntil(calendar.Date{Year: 2500, Month: 1, Day: 1}); n != 219146 {
		t.Fatalf("DaysUntil over six centuries: %d", n)
	}
}

// TestCanonicalRecurrence checks what Validate stores: the rule as RFC 5545
// writes it and the dates sorted, once.
func TestCanonicalRecurrence(t *testing.T) {
	s := series(t, "America/New_York", "20260105T090000", "rrule:freq=weekly;byday=mo,we;until=20260301T000000")
	s.Recurrence.ExDates = []time.Time{utc("2026-01-14T14:00:00Z"), utc("2026-01-07T14:00:00Z"), utc("2026-01-14T14:00:00Z")}
	if err := engine.Validate(s); err != nil {
		t.Fatal(err)
	}
	if s.Recurrence.Rule != "FREQ=WEEKLY;UNTIL=20260301T050000Z;BYDAY=MO,WE" {
		t.Fatalf("rule %q", s.Recurrence.Rule)
	}
	if len(s.Recurrence.ExDates) != 2 || !s.Recurrence.ExDates[0].Equal(utc("2026-01-07T14:00:00Z")) {
		t.Fatalf("exdates %v", s.Recurrence.ExDates)
	}
}
