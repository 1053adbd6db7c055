package ical_test

import (
	"fmt"
	"slices"
	"testing"
	"time"

	goical "github.com/emersion/go-ical"

	"github.com/calgraph/calgraph/internal/calendar"
	"github.com/calgraph/calgraph/internal/ical"
)

// observance is a STANDARD or DAYLIGHT sub-component as written.
type observance struct {
	Kind, Start, From, To, Name string
}

// zoneFeed encodes one timed entry in zone during 2026 and returns the
// observances of the zone's VTIMEZONE.
func zoneFeed(t *testing.T, zone string) []observance {
	t.Helper()
	e := &calendar.Entry{ID: "e", Kind: calendar.KindTimed, Title: "x", ICalUID: "e@test", TimeZone: zone,
		Start: utc(t, "2026-06-01T10:00:00Z"), End: utc(t, "2026-06-01T11:00:00Z")}
	cal := parse(t, encode(t, ical.Feed{Calendar: &calendar.Calendar{Name: "c", TimeZone: zone},
		Entries: []*calendar.Entry{e}, Now: utc(t, "2026-01-15T00:00:00Z")}))
	tzs := children(cal, goical.CompTimezone)
	if len(tzs) != 1 || value(tzs[0], goical.PropTimezoneID) != zone {
		t.Fatalf("got %d VTIMEZONEs, want one for %s", len(tzs), zone)
	}
	var out []observance
	for _, c := range tzs[0].Children {
		out = append(out, observance{c.Name, value(c, goical.PropDateTimeStart), value(c, goical.PropTimezoneOffsetFrom),
			value(c, goical.PropTimezoneOffsetTo), value(c, goical.PropTimezoneName)})
	}
	return out
}

// in2026 keeps the observances that change the offset during 2026.
func in2026(obs []observance) []observance {
	return slices.DeleteFunc(slices.Clone(obs), func(o observance) bool {
		return o.Start[:4] != "2026" || o.From == o.To
	})
}

func TestVTimezoneTransitions(t *testing.T) {
	tests := []struct {
		zone string
		want []observance
	}{
		{"America/New_York", []observance{
			{"DAYLIGHT", "20260308T020000", "-0500", "-0400", "EDT"},
			{"STANDARD", "20261101T020000", "-0400", "-0500", "EST"}}},
		{"Europe/Paris", []observance{
			{"DAYLIGHT", "20260329T020000", "+0100", "+0200", "CEST"},
			{"STANDARD", "20261025T030000", "+0200", "+0100", "CET"}}},
		{"Australia/Sydney", []observance{ // southern hemisphere: summer time ends in April
			{"STANDARD", "20260405T030000", "+1100", "+1000", "AEST"},
			{"DAYLIGHT", "20261004T020000", "+1000", "+1100", "AEDT"}}},
		{"Asia/Tokyo", nil},
	}
	for _, tt := range tests {
		t.Run(tt.zone, func(t *testing.T) {
			obs := zoneFeed(t, tt.zone)
			got := in2026(obs)
			if !slices.Equal(got, tt.want) {
				t.Errorf("2026 transitions: got %+v, want %+v", got, tt.want)
			}
			if gotGo := goTransitions(t, tt.zone, 2026); !slices.Equal(got, gotGo) {
				t.Errorf("2026 transitions: got %+v, Go's time zone data has %+v", got, gotGo)
			}
			// The window: from 1 January of the year before the entry, with
			// the offset then in force, to ten years after now.
			if len(obs) == 0 || obs[0].Start != "20250101T000000" || obs[0].From != obs[0].To {
				t.Errorf("first observance: got %+v, want one at 20250101T000000 with the offset then", obs)
			}
			if last := obs[len(obs)-1].Start[:4]; len(tt.want) > 0 && last != "2036" {
				t.Errorf("last transition in %s, want 2036 (ten years after now)", last)
			}
		})
	}
	if got := zoneFeed(t, "Asia/Tokyo"); !slices.Equal(got, []observance{{"STANDARD", "20250101T000000", "+0900", "+0900", "JST"}}) {
		t.Errorf("a zone without DST: got %+v, want one STANDARD observance", got)
	}
}

// goTransitions finds the offset changes of zone in year independently of
// the package: hour by hour, then to the second by bisection.
func goTransitions(t *testing.T, zone string, year int) []observance {
	t.Helper()
	loc, err := time.LoadLocation(zone)
	if err != nil {
		t.Fatal(err)
	}
	offset := func(at time.Time) int { _, o := at.In(loc).Zone(); return o }
	var out []observance
	end := time.Date(year+1, time.January, 1, 0, 0, 0, 0, loc)
	for at := time.Date(year, time.January, 1, 0, 0, 0, 0, loc); at.Before(end); at = at.Add(time.Hour) {
		before, after := offset(at), offset(at.Add(time.Hour))
		if before == after {
			continue
		}
		lo, hi := at, at.Add(time.Hour) // offset(lo) == before, offset(hi) == after
		for hi.Sub(lo) > time.Second {
			mid := lo.Add(hi.Sub(lo) / 2)
			if offset(mid) == before {
				lo = mid
			} else {
				hi = mid
			}
		}
		kind := "STANDARD"
		if hi.In(loc).IsDST() && after > before {
			kind = "DAYLIGHT"
		}
		name, _ := hi.In(loc).Zone()
		local := hi.UTC().Add(time.Duration(before) * time.Second).Format("20060102T150405")
		out = append(out, observance{kind, local, hhmm(before), hhmm(after), name})
	}
	return out
}

func hhmm(seconds int) string {
	sign := "+"
	if seconds < 0 {
		sign, seconds = "-", -seconds
	}
	return fmt.Sprintf("%s%02d%02d", sign, seconds/3600, seconds/60%60)
}

func TestVTimezoneOnlyForZonesInUse(t *testing.T) {
	f := newFixture(t)
	paris := &calendar.Entry{ID: "p", Kind: calendar.KindTimed, Title: "Paris", ICalUID: "p@test", TimeZone: "Europe/Paris",
		Start: utc(t, "2026-05-01T08:00:00Z"), End: utc(t, "2026-05-01T09:00:00Z")}
	f.feed.Entries = append(f.feed.Entries, paris)
	f.feed.Calendar.TimeZone = "Asia/Tokyo"
	var got []string
	for _, c := range children(parse(t, encode(t, f.feed)), goical.CompTimezone) {
		got = append(got, value(c, goical.PropTimezoneID))
	}
	// Sorted; none for the UTC task, nor for the calendar's own zone, which no entry uses.
	if want := []string{"America/New_York", "Europe/Paris"}; !slices.Equal(got, want) {
		t.Errorf("got VTIMEZONEs %q, want %q", got, want)
	}
}
