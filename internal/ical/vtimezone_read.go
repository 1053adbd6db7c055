package ical

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	goical "github.com/emersion/go-ical"

	"github.com/calgraph/calgraph/internal/calendar"
)

// A TZID that is neither an IANA nor a Windows name (Outlook's "Customized
// Time Zone", say) is read through the document's VTIMEZONE of that TZID:
// calgraph stores IANA zones, so the VTIMEZONE is matched to the first IANA
// zone of CLDR's Windows table (in name order) that keeps the same offsets
// and changes them on the same days in the year read; without DAYLIGHT, to
// the Etc/GMT zone of its whole-hour offset. One that matches nothing is
// refused, saying so.

// vtimezoneZone returns the IANA zone that reads like the VTIMEZONE c in
// year.
func vtimezoneZone(c *goical.Component, year int) (string, error) {
	std, dst, err := readObservances(c)
	if err != nil {
		return "", err
	}
	if dst == nil {
		if std.offset%3600 != 0 {
			return "", fmt.Errorf("its offset %s is not whole hours", std.raw)
		}
		h := -std.offset / 3600
		if h == 0 {
			return "UTC", nil
		}
		return fmt.Sprintf("Etc/GMT%+d", h), nil
	}
	dstStart, err1 := dst.onset(year)
	stdStart, err2 := std.onset(year)
	if err1 != nil || err2 != nil {
		return "", fmt.Errorf("its STANDARD and DAYLIGHT need yearly RRULEs with BYMONTH and BYDAY")
	}
	candidates := slices.Sorted(func(yield func(string) bool) {
		seen := map[string]bool{}
		for _, iana := range windowsZones {
			if !seen[iana] && !yield(iana) {
				return
			}
			seen[iana] = true
		}
	})
	for _, name := range candidates {
		loc, err := calendar.LoadLocation(name)
		if err != nil {
			continue
		}
		if agrees(loc, dstStart, std.offset, dst.offset) && agrees(loc, stdStart, dst.offset, std.offset) {
			return name, nil
		}
	}
	return "", fmt.Errorf("no IANA zone changes from %s to %s on %s and back on %s", std.raw, dst.raw,
		dstStart.Format("2 January"), stdStart.Format("2 January"))
}

// agrees reports whether loc goes from offset before to after on the day of
// the transition t (a UTC-labelled local date).
func agrees(loc *time.Location, t time.Time, before, after int) bool {
	_, b := time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, loc).Add(-24 * time.Hour).Zone()
	_, a := time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, loc).Add(48 * time.Hour).Zone()
	return b == before && a == after
}

// tzRule is a VTIMEZONE's STANDARD or DAYLIGHT.
type tzRule struct {
	raw     string // TZOFFSETTO as written
	offset  int    // seconds east of UTC
	month   time.Month
	weekday time.Weekday
	nth     int // 1…5, or -1 for the last
}

func readObservances(c *goical.Component) (std, dst *tzRule, err error) {
	for _, sub := range c.Children {
		o, err := readObservance(sub)
		if err != nil {
			return nil, nil, err
		}
		switch sub.Name {
		case "STANDARD":
			std = o
		case "DAYLIGHT":
			dst = o
		}
	}
	if std == nil {
		return nil, nil, fmt.Errorf("it has no STANDARD")
	}
	return std, dst, nil
}

func readObservance(c *goical.Component) (*tzRule, error) {
	p := c.Props.Get("TZOFFSETTO")
	if p == nil {
		return nil, fmt.Errorf("its %s has no TZOFFSETTO", c.Name)
	}
	off, err := parseOffset(p.Value)
	if err != nil {
		return nil, err
	}
	o := &tzRule{raw: p.Value, offset: off}
	if r := c.Props.Get("RRULE"); r != nil {
		for _, part := range strings.Split(r.Value, ";") {
			k, v, _ := strings.Cut(part, "=")
			switch k {
			case "BYMONTH":
				m, _ := strconv.Atoi(v)
				o.month = time.Month(m)
			case "BYDAY":
				n := strings.TrimRight(v, "MOTUWEHFRSA")
				o.nth, _ = strconv.Atoi(cmpOr(n, "1"))
				o.weekday = time.Weekday(slices.Index([]string{"SU", "MO", "TU", "WE", "TH", "FR", "SA"}, v[len(n):]))
			}
		}
	}
	return o, nil
}

func cmpOr(s, fallback string) string {
	if s == "" {
		return fallback
	}
	return s
}

// onset is the day in year the observance begins, by its RRULE.
func (o *tzRule) onset(year int) (time.Time, error) {
	if o.month < 1 || o.month > 12 || o.nth == 0 || o.nth < -1 || o.nth > 5 || o.weekday < 0 {
		return time.Time{}, fmt.Errorf("no yearly rule")
	}
	if o.nth == -1 {
		last := time.Date(year, o.month+1, 0, 0, 0, 0, 0, time.UTC)
		return last.AddDate(0, 0, -((int(last.Weekday()) - int(o.weekday) + 7) % 7)), nil
	}
	first := time.Date(year, o.month, 1, 0, 0, 0, 0, time.UTC)
	first = first.AddDate(0, 0, (int(o.weekday)-int(first.Weekday())+7)%7)
	return first.AddDate(0, 0, 7*(o.nth-1)), nil
}

// parseOffset reads a UTC offset like -0500 or +0530 (or +053000).
func parseOffset(s string) (int, error) {
	if len(s) != 5 && len(s) != 7 || (s[0] != '+' && s[0] != '-') {
		return 0, fmt.Errorf("%q is not a UTC offset", s)
	}
	h, err1 := strconv.Atoi(s[1:3])
	m, err2 := strconv.Atoi(s[3:5])
	sec := 0
	var err3 error
	if len(s) == 7 {
		sec, err3 = strconv.Atoi(s[5:7])
	}
	if err1 != nil || err2 != nil || err3 != nil {
		return 0, fmt.Errorf("%q is not a UTC offset", s)
	}
	off := h*3600 + m*60 + sec
	if s[0] == '-' {
		off = -off
	}
	return off, nil
}
