package recurrence_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/calgraph/calgraph/internal/calendar"
	"github.com/calgraph/calgraph/internal/recurrence"
)

var engine = recurrence.Engine{}

// series returns a one-hour timed series starting at local in zone.
func series(t *testing.T, zone, local, rule string) *calendar.Entry {
	t.Helper()
	loc, err := time.LoadLocation(zone)
	if err != nil {
		t.Fatal(err)
	}
	start, err := time.ParseInLocation("20060102T150405", local, loc)
	if err != nil {
		t.Fatal(err)
	}
	return &calendar.Entry{ID: "s", Kind: calendar.KindTimed, Start: start.UTC(), End: start.Add(time.Hour).UTC(),
		TimeZone: zone, Recurrence: &calendar.Recurrence{Rule: rule}}
}

// localDays formats occurrence starts as local "2006-01-02 15:04" strings.
func local(starts []time.Time, zone string) []string {
	loc, _ := time.LoadLocation(zone)
	out := make([]string, len(starts))
	for i, s := range starts {
		out[i] = s.In(loc).Format("2006-01-02 15:04")
	}
	return out
}

// days expands "1997-09: 2,4,6" style lists into "1997-09-02 09:00" strings.
func days(spec string) []string {
	var out []string
	for _, group := range strings.Split(spec, ";") {
		month, list, _ := strings.Cut(strings.TrimSpace(group), ":")
		for _, d := range strings.Split(list, ",") {
			var n int
			fmt.Sscan(strings.TrimSpace(d), &n)
			out = append(out, fmt.Sprintf("%s-%02d 09:00", month, n))
		}
	}
	return out
}

func seq(from, to int) string {
	var parts []string
	for i := from; i <= to; i++ {
		parts = append(parts, fmt.Sprint(i))
	}
	return strings.Join(parts, ",")
}

// TestRFC5545Examples runs the examples of RFC 5545 section 3.8.5.3 that use
// supported rule parts (all but the sub-daily ones), in America/New_York at
// 09:00 local time on both sides of DST changes.
func TestRFC5545Examples(t *testing.T) {
	tests := []struct {
		name, start, rule string
		until             string // for open-ended rules, where to stop looking
		want              string
	}{
		{"daily for 10", "19970902T090000", "FREQ=DAILY;COUNT=10", "", "1997-09:" + seq(2, 11)},
		{"daily until December 24", "19970902T090000", "FREQ=DAILY;UNTIL=19971224T000000Z", "",
			"1997-09:" + seq(2, 30) + ";1997-10:" + seq(1, 31) + ";1997-11:" + seq(1, 30) + ";1997-12:" + seq(1, 23)},
		{"every other day", "19970902T090000", "FREQ=DAILY;INTERVAL=2", "1997-10-10",
			"1997-09:2,4,6,8,10,12,14,16,18,20,22,24,26,28,30;1997-10:2,4,6,8"},
		{"every 10 days, 5 times", "19970902T090000", "FREQ=DAILY;INTERVAL=10;COUNT=5", "", "1997-09:2,12,22;1997-10:2,12"},
		{"every day in January for 3 years (yearly)", "19980101T090000", "FREQ=YEARLY;UNTIL=20000131T140000Z;BYMONTH=1;BYDAY=SU,MO,TU,WE,TH,FR,SA", "",
			"1998-01:" + seq(1, 31) + ";1999-01:" + seq(1, 31) + ";2000-01:" + seq(1, 31)},
		{"every day in January for 3 years (daily)", "19980101T090000", "FREQ=DAILY;UNTIL=20000131T140000Z;BYMONTH=1", "",
			"1998-01:" + seq(1, 31) + ";1999-01:" + seq(1, 31) + ";2000-01:" + seq(1, 31)},
		{"weekly for 10", "19970902T090000", "FREQ=WEEKLY;COUNT=10", "", "1997-09:2,9,16,23,30;1997-10:7,14,21,28;1997-11:4"},
		{"weekly until December 24", "19970902T090000", "FREQ=WEEKLY;UNTIL=19971224T000000Z", "",
			"1997-09:2,9,16,23,30;1997-10:7,14,21,28;1997-11:4,11,18,25;1997-12:2,9,16,23"},
		{"every other week", "19970902T090000", "FREQ=WEEKLY;INTERVAL=2;WKST=SU", "1998-02-18",
			"1997-09:2,16,30;1997-10:14,28;1997-11:11,25;1997-12:9,23;1998-01:6,20;1998-02:3,17"},
		{"Tuesday and Thursday for five weeks (until)", "19970902T090000", "FREQ=WEEKLY;UNTIL=19971007T000000Z;WKST=SU;BYDAY=TU,TH", "",
			"1997-09:2,4,9,11,16,18,23,25,30;1997-10:2"},
		{"Tuesday and Thursday for five weeks (count)", "19970902T090000", "FREQ=WEEKLY;COUNT=10;WKST=SU;BYDAY=TU,TH", "",
			"1997-09:2,4,9,11,16,18,23,25,30;1997-10:2"},
		{"every other week on MO, WE, FR", "19970901T090000", "FREQ=WEEKLY;INTERVAL=2;UNTIL=19971224T000000Z;WKST=SU;BYDAY=MO,WE,FR", "",
			"1997-09:1,3,5,15,17,19,29;1997-10:1,3,13,15,17,27,29,31;1997-11:10,12,14,24,26,28;1997-12:8,10,12,22"},
		{"every other week on TU and TH, 8 times", "19970902T090000", "FREQ=WEEKLY;INTERVAL=2;COUNT=8;WKST=SU;BYDAY=TU,TH", "",
			"1997-09:2,4,16,18,30;1997-10:2,14,16"},
		{"first Friday, 10 times", "19970905T090000", "FREQ=MONTHLY;COUNT=10;BYDAY=1FR", "",
			"1997-09:5;1997-10:3;1997-11:7;1997-12:5;1998-01:2;1998-02:6;1998-03:6;1998-04:3;1998-05:1;1998-06:5"},
		{"first Friday until December 24", "19970905T090000", "FREQ=MONTHLY;UNTIL=19971224T000000Z;BYDAY=1FR", "", "1997-09:5;1997-10:3;1997-11:7;1997-12:5"},
		{"every other month, first and last Sunday", "19970907T090000", "FREQ=MONTHLY;INTERVAL=2;COUNT=10;BYDAY=1SU,-1SU", "",
			"1997-09:7,28;1997-11:2,30;1998-01:4,25;1998-03:1,29;1998-05:3,31"},
		{"second-to-last Monday, 6 months", "19970922T090000", "FREQ=MONTHLY;COUNT=6;BYDAY=-2MO", "",
			"1997-09:22;1997-10:20;1997-11:17;1997-12:22;1998-01:19;1998-02:16"},
		{"third-to-last day", "19970928T090000", "FREQ=MONTHLY;BYMONTHDAY=-3", "1998-03-01",
			"1997-09:28;1997-10:29;1997-11:28;1997-12:29;1998-01:29;1998-02:26"},
		{"2nd and 15th, 10 times", "19970902T090000", "FREQ=MONTHLY;COUNT=10;BYMONTHDAY=2,15", "",
			"1997-09:2,15;1997-10:2,15;1997-11:2,15;1997-12:2,15;1998-01:2,15"},
		{"first and last day, 10 times", "19970930T090000", "FREQ=MONTHLY;COUNT=10;BYMONTHDAY=1,-1", "",
			"1997-09:30;1997-10:1,31;1997-11:1,30;1997-12:1,31;1998-01:1,31;1998-02:1"},
		{"every 18 months, 10th to 15th", "19970910T090000", "FREQ=MONTHLY;INTERVAL=18;COUNT=10;BYMONTHDAY=10,11,12,13,14,15", "",
			"1997-09:10,11,12,13,14,15;1999-03:10,11,12,13"},
		{"every Tuesday, every other month", "19970902T090000", "FREQ=MONTHLY;INTERVAL=2;BYDAY=TU", "1998-04-01",
			"1997-09:2,9,16,23,30;1997-11:4,11,18,25;1998-01:6,13,20,27;1998-03:3,10,17,24,31"},
		{"June and July, 10 times", "19970610T090000", "FREQ=YEARLY;COUNT=10;BYMONTH=6,7", "",
			"1997-06:10;1997-07:10;1998-06:10;1998-07:10;1999-06:10;1999-07:10;2000-06:10;2000-07:10;2001-06:10;2001-07:10"},
		{"every other year, January to March", "19970310T090000", "FREQ=YEARLY;INTERVAL=2;COUNT=10;BYMONTH=1,2,3", "",
			"1997-03:10;1999-01:10;1999-02:10;1999-03:10;2001-01:10;2001-02:10;2001-03:10;2003-01:10;2003-02:10;2003-03:10"},
		{"every third year, days 1, 100, 200", "19970101T090000", "FREQ=YEARLY;INTERVAL=3;COUNT=10;BYYEARDAY=1,100,200", "",
			"1997-01:1;1997-04:10;1997-07:19;2000-01:1;2000-04:9;2000-07:18;2003-01:1;2003-04:10;2003-07:19;2006-01:1"},
		{"every 20th Monday", "19970519T090000", "FREQ=YEARLY;BYDAY=20MO", "1999-12-31", "1997-05:19;1998-05:18;1999-05:17"},
		{"Monday of week 20", "19970512T090000", "FREQ=YEARLY;BYWEEKNO=20;BYDAY=MO", "1999-12-31", "1997-05:12;1998-05:11;1999-05:17"},
		{"every Thursday in March", "19970313T090000", "FREQ=YEARLY;BYMONTH=3;BYDAY=TH", "1999-12-31",
			"1997-03:13,20,27;1998-03:5,12,19,26;1999-03:4,11,18,25"},
		{"Thursdays in June, July and August", "19970605T090000", "FREQ=YEARLY;BYDAY=TH;BYMONTH=6,7,8", "1998-01-01",
			"1997-06:5,12,19,26;1997-07:3,10,17,24,31;1997-08:7,14,21,28"},
		{"the first Saturday after the first Sunday", "19970913T090000", "FREQ=MONTHLY;BYDAY=SA;BYMONTHDAY=7,8,9,10,11,12,13", "1998-07-01",
			"1997-09:13;1997-10:11;1997-11:8;1997-12:13;1998-01:10;1998-02:7;1998-03:7;1998-04:11;1998-05:9;1998-06:13"},
		{"US presidential election day", "19961105T090000", "FREQ=YEARLY;INTERVAL=4;BYMONTH=11;BYDAY=TU;BYMONTHDAY=2,3,4,5,6,7,8", "2005-01-01",
			"1996-11:5;2000-11:7;2004-11:2"},
		{"third of TU, WE or TH, 3 months (BYSETPOS)", "19970904T090000", "FREQ=MONTHLY;COUNT=3;BYDAY=TU,WE,TH;BYSETPOS=3", "",
			"1997-09:4;1997-10:7;1997-11:6"},
		{"second-to-last weekday (BYSETPOS)", "19970929T090000", "FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-2", "1998-04-01",
			"1997-09:29;1997-10:30;1997-11:27;1997-12:30;1998-01:29;1998-02:26;1998-03:30"},
		{"WKST=MO", "19970805T090000", "FREQ=WEEKLY;INTERVAL=2;COUNT=4;BYDAY=TU,SU;WKST=MO", "", "1997-08:5,10,19,24"},
		{"WKST=SU", "19970805T090000", "FREQ=WEEKLY;INTERVAL=2;COUNT=4;BYDAY=TU,SU;WKST=SU", "", "1997-08:5,17,19,31"},
		{"February 30 is skipped", "20070115T090000", "FREQ=MONTHLY;BYMONTHDAY=15,30;COUNT=5", "", "2007-01:15,30;2007-02:15;2007-03:15,30"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := series(t, "America/New_York", tt.start, tt.rule)
			if err := engine.Validate(s); err != nil {
				t.Fatalf("validate: %v", err)
			}
			to := time.Date(2100, 1, 1, 0, 0, 0, 0, time.UTC)
			if tt.until != "" {
				to, _ = time.Parse(time.DateOnly, tt.until)
			}
			got, err := engine.Starts(s, s.Start, to, 1000)
			if err != nil {
				t.Fatal(err)
			}
			if want := days(tt.want); !slices.Equal(local(got, "America/New_York"), want) {
				t.Fatalf("got  %q\nwant %q", local(got, "America/New_York"), want)
			}
		})
	}
}
