package recurrence_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/calgraph/calgraph/internal/recurrence"
)

// TestFastForwardChangesNothing compares, for rules that fast-forward, the
// occurrences of many windows with those found by walking from the start.
func TestFastForwardChangesNothing(t *testing.T) {
	rules := []struct{ zone, start, rule string }{
		{"America/New_York", "20160107T093000", "FREQ=WEEKLY"},
		{"America/New_York", "20160106T093000", "FREQ=WEEKLY;BYDAY=MO,WE,FR"},
		{"America/New_York", "20160106T023000", "FREQ=WEEKLY;INTERVAL=3;BYDAY=WE,SU;WKST=SU"},
		{"Europe/Paris", "20160101T020000", "FREQ=DAILY;INTERVAL=5"},
		{"Europe/Paris", "20160108T090000", "FREQ=WEEKLY;INTERVAL=2;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-1"},
		{"Australia/Sydney", "20160101T183000", "FREQ=DAILY;BYMONTH=1,7;UNTIL=20300101T000000Z"},
		{"UTC", "20160229T120000", "FREQ=DAILY;BYMONTHDAY=29,-1"},
		{"America/New_York", "20160106T013000", "FREQ=HOURLY;INTERVAL=7;BYDAY=SU"},
		{"Europe/Paris", "20160106T090000", "FREQ=MINUTELY;INTERVAL=997;BYHOUR=1,2,3"},
		{"Asia/Kolkata", "20160106T090000", "FREQ=DAILY;BYHOUR=2,14;BYMINUTE=15,45"},
	}
	for _, r := range rules {
		s := series(t, r.zone, r.start, r.rule)
		s.Recurrence.ExDates = []time.Time{s.Start.AddDate(3, 0, 0)}
		if err := engine.Validate(s); err != nil {
			t.Fatalf("%s: %v", r.rule, err)
		}
		end := 2031
		if strings.Contains(r.rule, "HOURLY") || strings.Contains(r.rule, "MINUTELY") {
			end = 2018 // expanded from the start for each window, these are slow
		}
		for from := s.Start.AddDate(0, 0, -3); from.Year() < end; from = from.AddDate(0, 1, 9) {
			to := from.AddDate(0, 0, 40)
			t.Run(fmt.Sprint(r.rule, " ", from.Format("2006-01-02")), func(t *testing.T) {
				got, err := engine.Starts(s, from, to, 1000)
				if err != nil {
					t.Fatal(err)
				}
				want := recurrence.StartsFromTheBeginning(s, from, to)
				if !slices.EqualFunc(got, want, time.Time.Equal) {
					t.Fatalf("got %v\nwant %v", got, want)
				}
				for _, w := range want {
					if !engine.Has(s, w) {
						t.Fatalf("Has(%v) is false", w)
					}
				}
			})
		}
	}
}
