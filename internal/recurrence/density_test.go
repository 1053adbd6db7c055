package recurrence_test

import (
	"testing"
	"time"

	"github.com/calgraph/calgraph/internal/calendar"
)

// TestDensityBound: a rule may put at most calendar.MaxViewEntries
// occurrences (RDATEs counted in) in any range the longest view covers, so
// that every view of one series can show it whole; SECONDLY is refused, and
// a series of whole days recurs on dates, not at times of day.
func TestDensityBound(t *testing.T) {
	hours := "BYHOUR=9,10,11,12,13,14,15,16,17,18,19,20,21"
	tests := []struct {
		name, rule string
		rdates     int
		dated      bool
		ok         bool
	}{
		{"every minute, for ever", "FREQ=MINUTELY", 0, false, false},
		{"every hour, for ever", "FREQ=HOURLY", 0, false, false},
		{"every two hours, for ever", "FREQ=HOURLY;INTERVAL=2", 0, false, true},
		{"every hour on Mondays", "FREQ=HOURLY;BYDAY=MO", 0, false, true},
		{"every minute, a day long", "FREQ=MINUTELY;UNTIL=20260106T090000Z", 0, false, true},
		{"every minute, 5,000 times", "FREQ=MINUTELY;COUNT=5000", 0, false, true},
		{"every minute, 5,001 times", "FREQ=MINUTELY;COUNT=5001", 0, false, false},
		{"4,900 times and 101 extra dates", "FREQ=MINUTELY;COUNT=4900", 101, false, false},
		{"every 15 minutes from 9 to 12", "FREQ=MINUTELY;INTERVAL=15;BYHOUR=9,10,11", 0, false, true},
		{"every hour, for ever, written daily", "FREQ=DAILY;BYHOUR=0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23", 0, false, false},
		{"13 times a day", "FREQ=DAILY;" + hours, 0, false, true},
		{"26 times a day", "FREQ=DAILY;" + hours + ";BYMINUTE=0,30", 0, false, false},
		{"26 times a day, monthly, 9,000 times", "FREQ=MONTHLY;BYMONTHDAY=1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31;" + hours + ";BYMINUTE=0,30;COUNT=9000", 0, false, false},
		{"every 30 seconds, 10 times", "FREQ=SECONDLY;INTERVAL=30;COUNT=10", 0, false, false},
		{"daily, whole days", "FREQ=DAILY", 0, true, true},
		{"hourly, whole days", "FREQ=HOURLY;COUNT=5", 0, true, false},
		{"at 09:00, whole days", "FREQ=DAILY;BYHOUR=9", 0, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := series(t, "UTC", "20260105T090000", tt.rule)
			if tt.dated {
				d := calendar.DateOf(s.Start)
				s = &calendar.Entry{ID: "s", Kind: calendar.KindAllDay, StartDate: d, EndDate: d.AddDays(1), Recurrence: s.Recurrence}
			}
			for i := range tt.rdates {
				s.Recurrence.RDates = append(s.Recurrence.RDates, time.Date(2030, 1, 1, 0, 0, i, 0, time.UTC))
			}
			err := engine.Validate(s)
			switch {
			case tt.ok && err != nil:
				t.Fatalf("got %v, want it accepted", err)
			case !tt.ok && (calendar.ErrorCode(err) != calendar.CodeInvalid || calendar.ErrorField(err) != "recurrence.rule"):
				t.Fatalf("got %v, want BAD_USER_INPUT on recurrence.rule", err)
			}
		})
	}
}

// TestDensityIsCheckedQuickly: checking a rule whose times of day are few
// among many candidates (rrule-go walks every minute of each day) stays
// quick.
func TestDensityIsCheckedQuickly(t *testing.T) {
	s := series(t, "UTC", "20260105T090000", "FREQ=MINUTELY;BYHOUR=9;BYMINUTE=0")
	begin := time.Now()
	if err := engine.Validate(s); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(begin); d > 2*time.Second {
		t.Fatalf("took %v", d)
	}
}

// TestLegacyDenseSeriesStillExpand: a series stored before rules were
// bounded (every minute, for ever) is refused by Validate but still expands,
// so that the views that hold it can say how many occurrences it has.
func TestLegacyDenseSeriesStillExpand(t *testing.T) {
	s := series(t, "UTC", "20260105T090000", "FREQ=MINUTELY")
	if err := engine.Validate(s); err == nil {
		t.Fatal("a rule of every minute is accepted")
	}
	from := time.Date(2026, 7, 1, 0, 0, 0, 0, time.UTC)
	got, err := engine.Starts(s, from, from.Add(time.Hour), 100)
	if err != nil || len(got) != 60 {
		t.Fatalf("an hour: got %d, %v; want 60", len(got), err)
	}
	if _, err := engine.Starts(s, from, from.AddDate(0, 0, 7), calendar.MaxViewEntries); calendar.ErrorCode(err) != calendar.CodeInvalid {
		t.Fatalf("a week: got %v, want the cap's error", err)
	}
}
