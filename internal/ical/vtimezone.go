package ical

import (
	"fmt"
	"slices"
	"time"

	goical "github.com/emersion/go-ical"

	"github.com/calgraph/calgraph/internal/calendar"
)

// floatingLayout is a DATE-TIME without zone: how an observance's DTSTART is
// written (RFC 5545 section 3.6.5).
const floatingLayout = "20060102T150405"

// zoneYearsAhead is how many years past the current year (or the latest start,
// if later) a VTIMEZONE describes, for series that go on.
const zoneYearsAhead = 10

// zoneSet collects the zones a feed's date-times use, with the earliest and
// latest instant written in each.
type zoneSet struct {
	spans map[string]*zoneSpan
}

type zoneSpan struct{ first, last time.Time }

func newZoneSet() *zoneSet { return &zoneSet{spans: map[string]*zoneSpan{}} }

// add records that t is written in zone, which may be UTC.
func (z *zoneSet) add(zone string, t time.Time) {
	s := z.spans[zone]
	if s == nil {
		z.spans[zone] = &zoneSpan{first: t, last: t}
		return
	}
	s.first, s.last = minTime(s.first, t), maxTime(s.last, t)
}

// addInstant records that t is written in zone, unless that is UTC, which
// needs no VTIMEZONE, being written in the "Z" form.
func (z *zoneSet) addInstant(zone string, t time.Time) {
	if zone != "" && zone != calendar.DefaultTimeZone {
		z.add(zone, t)
	}
}

// addEntry records the zone of a timed entry, occurrence or task due at an
// instant, with a series' RDATEs and EXDATEs.
func (z *zoneSet) addEntry(e *calendar.Entry) {
	if e.Dated() {
		return
	}
	z.addInstant(e.TimeZone, e.Start)
	if e.Recurrence != nil {
		for _, t := range slices.Concat(e.Recurrence.RDates, e.Recurrence.ExDates) {
			z.addInstant(e.TimeZone, t)
		}
	}
}

// components returns one VTIMEZONE per zone, sorted by TZID.
func (z *zoneSet) components(now time.Time) ([]*goical.Component, error) {
	names := make([]string, 0, len(z.spans))
	for name := range z.spans {
		names = append(names, name)
	}
	slices.Sort(names)
	out := make([]*goical.Component, 0, len(names))
	for _, name := range names {
		loc, err := time.LoadLocation(name)
		if err != nil {
			return nil, fmt.Errorf("time zone %q: %w", name, err)
		}
		from, to := zoneWindow(loc, z.spans[name].first, z.spans[name].last, now)
		out = append(out, vtimezone(name, transitions(loc, from, to)))
	}
	return out, nil
}

// zoneWindow returns the years a VTIMEZONE of loc covers, from and to
// midnight on 1 January in loc: from the year before the earliest date-time
// in the zone to the end of the tenth year after the current year or the
// latest date-time, whichever is later. Subscribers such as Google Calendar
// and Apple Calendar map an IANA TZID to their own tz data and ignore the
// VTIMEZONE; it is there for clients that do not, and those need the offsets
// of the entries' own dates and of a series' occurrences for the years ahead
// that anyone is likely to look at. A zone's full history would make every
// feed large for no one's benefit.
func zoneWindow(loc *time.Location, first, last, now time.Time) (from, to time.Time) {
	end := max(now.In(loc).Year(), last.In(loc).Year()) + zoneYearsAhead + 1
	from = time.Date(first.In(loc).Year()-1, time.January, 1, 0, 0, 0, 0, loc)
	return from, time.Date(end, time.January, 1, 0, 0, 0, 0, loc)
}

// observance is one STANDARD or DAYLIGHT period of a zone: from the instant
// start, the offset is to (seconds east of UTC) instead of from.
type observance struct {
	start    time.Time
	from, to int
	name     string
	daylight bool
}

// transitions returns the observances of loc in [from, to): one at from with
// the offset then in force, so that the VTIMEZONE is never empty and covers
// its whole window, then one per change of offset or abbreviation in Go's
// time zone data, found with time.Time.ZoneBounds.
func transitions(loc *time.Location, from, to time.Time) []observance {
	at := from.In(loc)
	name, off := at.Zone()
	wasDST := at.IsDST()
	out := []observance{{start: from, from: off, to: off, name: name}}
	for {
		_, next := at.ZoneBounds()
		if next.IsZero() || !next.After(at) || !next.Before(to) {
			break
		}
		at = next.In(loc)
		n, o := at.Zone()
		if o != off || n != name {
			out = append(out, observance{start: next, from: off, to: o, name: n, daylight: daylight(o, off, at.IsDST(), wasDST)})
		}
		name, off, wasDST = n, o, at.IsDST()
	}
	if len(out) > 1 {
		// The first period is daylight time if the next change leaves it.
		out[0].daylight = daylight(out[0].to, out[1].to, from.In(loc).IsDST(), out[1].start.In(loc).IsDST())
	}
	return out
}

// daylight reports whether an offset is daylight time against the other one
// it alternates with: the larger of the two, where tz data flags either as
// daylight saving. Comparing offsets rather than trusting the flag alone keeps
// Europe/Dublin's summer as DAYLIGHT although tz data flags its winter (a
// "negative" saving); a lasting change of standard offset is flagged neither
// way and stays STANDARD. Clients compute with the offsets, which are exact
// whatever the label.
func daylight(offset, other int, isDST, otherIsDST bool) bool {
	return offset > other && (isDST || otherIsDST)
}

// vtimezone returns the VTIMEZONE of zone with the given observances.
func vtimezone(zone string, obs []observance) *goical.Component {
	tz := goical.NewComponent(goical.CompTimezone)
	tz.Props.SetText(goical.PropTimezoneID, zone)
	for _, o := range obs {
		kind := goical.CompTimezoneStandard
		if o.daylight {
			kind = goical.CompTimezoneDaylight
		}
		c := goical.NewComponent(kind)
		start := goical.NewProp(goical.PropDateTimeStart)
		// The local time at which it happens, read in the offset before it.
		start.Value = o.start.UTC().Add(time.Duration(o.from) * time.Second).Format(floatingLayout)
		c.Props.Set(start)
		c.Props.Set(offsetProp(goical.PropTimezoneOffsetFrom, o.from))
		c.Props.Set(offsetProp(goical.PropTimezoneOffsetTo, o.to))
		c.Props.SetText(goical.PropTimezoneName, o.name)
		tz.Children = append(tz.Children, c)
	}
	return tz
}

// offsetProp returns a UTC-OFFSET property ("+0100", or "-045602" when the
// offset has seconds, as old local mean times do); go-ical has no setter.
func offsetProp(name string, seconds int) *goical.Prop {
	sign := '+'
	if seconds < 0 {
		sign, seconds = '-', -seconds
	}
	p := goical.NewProp(name)
	p.Value = fmt.Sprintf("%c%02d%02d", sign, seconds/3600, seconds/60%60)
	if s := seconds % 60; s != 0 {
		p.Value += fmt.Sprintf("%02d", s)
	}
	return p
}

func minTime(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

func maxTime(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}
