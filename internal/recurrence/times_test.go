package recurrence_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/calgraph/calgraph/internal/calendar"
)

// TestTimesOfDay: rules that give occurrences their own times of day
// (BYHOUR, BYMINUTE, BYSECOND, and HOURLY, MINUTELY, SECONDLY), among them
// RFC 5545's sub-daily examples (section 3.8.5.3), read on the series' wall
// clock with the same DST reading as the series' own time (a time in a gap
// takes the offset before it). Rules denser than Validate allows (see
// TestDensityBound), as a series stored before the bound may have, expand
// alike.
func TestTimesOfDay(t *testing.T) {
	tests := []struct {
		name, zone, start, rule, to string
		want                        string // local "YYYY-MM-DD HH:MM" joined by ", "
	}{
		{"RFC: every 3 hours from 9 to 5", "America/New_York", "19970902T090000", "FREQ=HOURLY;INTERVAL=3;UNTIL=19970902T210000Z", "",
			"1997-09-02 09:00, 1997-09-02 12:00, 1997-09-02 15:00"},
		{"RFC: every 15 minutes, 6 times", "America/New_York", "19970902T090000", "FREQ=MINUTELY;INTERVAL=15;COUNT=6", "",
			"1997-09-02 09:00, 1997-09-02 09:15, 1997-09-02 09:30, 1997-09-02 09:45, 1997-09-02 10:00, 1997-09-02 10:15"},
		{"RFC: every hour and a half, 4 times", "America/New_York", "19970902T090000", "FREQ=MINUTELY;INTERVAL=90;COUNT=4", "",
			"1997-09-02 09:00, 1997-09-02 10:30, 1997-09-02 12:00, 1997-09-02 13:30"},
		{"RFC: every 20 minutes 9:00 to 16:40 (daily)", "America/New_York", "19970902T090000",
			"FREQ=DAILY;BYHOUR=9,10,11,12,13,14,15,16;BYMINUTE=0,20,40", "1997-09-02T18:00:00-04:00",
			"1997-09-02 09:00, 1997-09-02 09:20, 1997-09-02 09:40, 1997-09-02 10:00, 1997-09-02 10:20, 1997-09-02 10:40, 1997-09-02 11:00, 1997-09-02 11:20, 1997-09-02 11:40, 1997-09-02 12:00, 1997-09-02 12:20, 1997-09-02 12:40, 1997-09-02 13:00, 1997-09-02 13:20, 1997-09-02 13:40, 1997-09-02 14:00, 1997-09-02 14:20, 1997-09-02 14:40, 1997-09-02 15:00, 1997-09-02 15:20, 1997-09-02 15:40, 1997-09-02 16:00, 1997-09-02 16:20, 1997-09-02 16:40"},
		{"RFC: every 20 minutes 9:00 to 16:40 (minutely)", "America/New_York", "19970902T090000",
			"FREQ=MINUTELY;INTERVAL=20;BYHOUR=9,10,11,12,13,14,15,16", "1997-09-02T11:00:00-04:00",
			"1997-09-02 09:00, 1997-09-02 09:20, 1997-09-02 09:40, 1997-09-02 10:00, 1997-09-02 10:20, 1997-09-02 10:40"},
		{"every weekday at 09:00 and 17:00", "Europe/Paris", "20261123T090000", "FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR;BYHOUR=9,17;BYMINUTE=0", "2026-11-26T00:00:00Z",
			"2026-11-23 09:00, 2026-11-23 17:00, 2026-11-24 09:00, 2026-11-24 17:00, 2026-11-25 09:00, 2026-11-25 17:00"},
		{"the last work hour of each month", "Europe/Paris", "20261130T170000", "FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYHOUR=17;BYSETPOS=-1;COUNT=3", "",
			"2026-11-30 17:00, 2026-12-31 17:00, 2027-01-29 17:00"},
		{"daily at 01:30 and 02:30 across New York's spring gap", "America/New_York", "20260307T013000", "FREQ=DAILY;BYHOUR=1,2;BYMINUTE=30;COUNT=6", "",
			"2026-03-07 01:30, 2026-03-07 02:30, 2026-03-08 01:30, 2026-03-08 03:30, 2026-03-09 01:30, 2026-03-09 02:30"},
		{"yearly on a day at two times", "UTC", "20260101T080000", "FREQ=YEARLY;BYMONTH=1;BYMONTHDAY=1;BYHOUR=8,20;COUNT=4", "",
			"2026-01-01 08:00, 2026-01-01 20:00, 2027-01-01 08:00, 2027-01-01 20:00"},
		{"every 45 seconds", "UTC", "20260101T080000", "FREQ=SECONDLY;INTERVAL=45;COUNT=3;BYSECOND=0,15,30,45", "",
			"2026-01-01 08:00, 2026-01-01 08:00, 2026-01-01 08:01"},
	}
	dense := []string{"RFC: every 20 minutes 9:00 to 16:40 (daily)", "RFC: every 20 minutes 9:00 to 16:40 (minutely)", "every 45 seconds"}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := series(t, tt.zone, tt.start, tt.rule)
			if err := engine.Validate(s); (err != nil) != slices.Contains(dense, tt.name) {
				t.Fatalf("validate: got %v, want it refused only when too dense", err)
			}
			from, to := s.Start, time.Date(2100, 1, 1, 0, 0, 0, 0, time.UTC)
			if tt.to != "" {
				to, _ = time.Parse(time.RFC3339, tt.to)
			}
			got, err := engine.Starts(s, from, to, 1000)
			if err != nil {
				t.Fatal(err)
			}
			if g := strings.Join(local(got, tt.zone), ", "); g != tt.want {
				t.Fatalf("got  %s\nwant %s", g, tt.want)
			}
			for _, o := range got {
				if !engine.Has(s, o) {
					t.Fatalf("Has(%v) is false", o)
				}
			}
		})
	}
}

// TestStartNotAnOccurrence: a start its rule would not give is the first
// occurrence all the same, counted in COUNT; splitting keeps the count.
func TestStartNotAnOccurrence(t *testing.T) {
	s := series(t, "Europe/Paris", "20260105T090000", "FREQ=WEEKLY;BYDAY=TU,TH;COUNT=4") // a Monday
	if err := engine.Validate(s); err != nil {
		t.Fatal(err)
	}
	got, err := engine.Starts(s, s.Start, s.Start.AddDate(1, 0, 0), 100)
	if err != nil {
		t.Fatal(err)
	}
	want := "2026-01-05 09:00, 2026-01-06 09:00, 2026-01-08 09:00, 2026-01-13 09:00"
	if g := strings.Join(local(got, "Europe/Paris"), ", "); g != want {
		t.Fatalf("got  %s\nwant %s", g, want)
	}
	if last, ok := engine.Last(s); !ok || !last.Equal(got[3]) || !engine.Has(s, s.Start) {
		t.Fatalf("Last %v %v, Has(start) %v", last, ok, engine.Has(s, s.Start))
	}
	before, after, err := engine.Split(s, got[2])
	if err != nil || !strings.Contains(after.Rule, "COUNT=2") || !strings.Contains(before.Rule, "UNTIL=") {
		t.Fatalf("split at the third: %q / %q, %v; want the last two after it", before.Rule, after.Rule, err)
	}
	one := series(t, "UTC", "20260105T090000", "FREQ=WEEKLY;BYDAY=TU;COUNT=1")
	if err := engine.Validate(one); err != nil {
		t.Fatal(err)
	}
	if got, _ := engine.Starts(one, one.Start, one.Start.AddDate(1, 0, 0), 100); len(got) != 1 || !got[0].Equal(one.Start) {
		t.Fatalf("COUNT=1 with a start off the rule: got %v, want the start alone", got)
	}
}

// TestRDateBeforeTheStart: RDATEs before the start come first.
func TestRDateBeforeTheStart(t *testing.T) {
	s := series(t, "UTC", "20260105T090000", "FREQ=DAILY;COUNT=2")
	early := time.Date(2025, 12, 24, 18, 0, 0, 0, time.UTC)
	s.Recurrence.RDates = []time.Time{early}
	if err := engine.Validate(s); err != nil {
		t.Fatal(err)
	}
	got, err := engine.Starts(s, early.AddDate(0, 0, -1), s.Start.AddDate(0, 0, 5), 100)
	if err != nil || len(got) != 3 || !got[0].Equal(early) {
		t.Fatalf("got %v, %v; want the RDATE first, then the two of the rule", got, err)
	}
	if !engine.Has(s, early) {
		t.Fatal("Has(the early RDATE) is false")
	}
}

// TestDenseRulesAreBounded: rules whose expansion would be too large are
// refused before they can cost a request seconds.
func TestDenseRulesAreBounded(t *testing.T) {
	for _, rule := range []string{
		"FREQ=MINUTELY;UNTIL=20270105T090000Z",                                   // 525,600 occurrences
		"FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR,SA,SU;BYHOUR=0,6,12,18;BYMINUTE=0,30", // 2,920 a year, for ever, from the start
		"FREQ=DAILY;BYHOUR=24",
		"FREQ=DAILY;BYSECOND=60",
	} {
		s := series(t, "UTC", "20260105T000000", rule)
		if err := engine.Validate(s); calendar.ErrorCode(err) != calendar.CodeInvalid {
			t.Errorf("%s: got %v, want it refused", rule, err)
		}
	}
	ok := series(t, "UTC", "20260105T000000", "FREQ=MINUTELY;INTERVAL=5;BYHOUR=9") // for ever, fast-forwarded
	if err := engine.Validate(ok); err != nil {
		t.Fatal(err)
	}
	begin := time.Now()
	far := time.Date(2090, 6, 1, 9, 0, 0, 0, time.UTC)
	got, err := engine.Starts(ok, far, far.Add(time.Hour), 100)
	if err != nil || len(got) != 12 || time.Since(begin) > time.Second {
		t.Fatalf("an hour of a 5-minutely rule 64 years on: %d occurrences, %v, in %v", len(got), err, time.Since(begin))
	}
	if !slices.IsSortedFunc(got, time.Time.Compare) {
		t.Fatal("out of order")
	}
}

// TestStartInADSTGap: a series whose wall-clock start does not exist on its
// first day (02:30 when New York skips from 02:00 to 03:00) starts at the
// gap's reading (03:30) and keeps 02:30 on the days after.
func TestStartInADSTGap(t *testing.T) {
	ny, _ := time.LoadLocation("America/New_York")
	wall := time.Date(2025, 3, 9, 2, 30, 0, 0, time.UTC)
	start := calendar.WallClock(calendar.DateOf(wall), 2, 30, 0, 0, ny).UTC()
	s := &calendar.Entry{ID: "s", Kind: calendar.KindTimed, Start: start, End: start.Add(time.Hour), TimeZone: "America/New_York",
		LocalStart: wall, Recurrence: &calendar.Recurrence{Rule: "FREQ=DAILY;COUNT=3"}}
	if err := engine.Validate(s); err != nil {
		t.Fatal(err)
	}
	got, err := engine.Starts(s, start, start.AddDate(0, 0, 5), 10)
	if err != nil {
		t.Fatal(err)
	}
	if g := strings.Join(local(got, "America/New_York"), ", "); g != "2025-03-09 03:30, 2025-03-10 02:30, 2025-03-11 02:30" {
		t.Fatalf("got %s", g)
	}
	s.LocalStart = time.Time{} // the instant alone: 03:30 every day
	got, _ = engine.Starts(s, start, start.AddDate(0, 0, 5), 10)
	if g := strings.Join(local(got, "America/New_York"), ", "); g != "2025-03-09 03:30, 2025-03-10 03:30, 2025-03-11 03:30" {
		t.Fatalf("without the wall clock: got %s", g)
	}
}
