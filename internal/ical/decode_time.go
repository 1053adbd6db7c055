package ical

import (
	"errors"
	"fmt"
	"strings"
	"time"

	goical "github.com/emersion/go-ical"

	"github.com/calgraph/calgraph/internal/calendar"
)

// day is the length of a day in DURATION: go-ical reads "P1D" as 24 hours.
const day = 24 * time.Hour

// moment is a DTSTART-like value as read: a day, or an instant with the zone
// it was written in.
type moment struct {
	dated bool
	date  calendar.Date
	at    time.Time // UTC; for a day, its midnight UTC
	zone  string    // a date-time's TZID, "UTC" for the "Z" form, or the default zone
	// local is a date-time's wall clock (labelled UTC) when no instant in its
	// zone has it (a DST gap): at is then its reading.
	local time.Time
}

// formName names a form in messages.
func formName(dated bool) string {
	if dated {
		return "a date"
	}
	return "a date-time"
}

// moment reads a property that holds one date or date-time.
func (d *decoder) moment(p *goical.Prop) (moment, error) {
	ms, err := d.moments(*p)
	if err != nil {
		return moment{}, err
	}
	if len(ms) != 1 {
		return moment{}, fmt.Errorf("%s must hold one value", p.Name)
	}
	return ms[0], nil
}

// moments reads a property's dates or date-times, a comma-separated list in
// RDATE and EXDATE.
func (d *decoder) moments(p goical.Prop) ([]moment, error) {
	valueType := strings.ToUpper(p.Params.Get(goical.ParamValue))
	if valueType != "" && valueType != string(goical.ValueDate) && valueType != string(goical.ValueDateTime) {
		return nil, fmt.Errorf("%s: VALUE=%s is not supported", p.Name, clip(valueType))
	}
	values := strings.Split(p.Value, ",")
	out := make([]moment, 0, len(values))
	for _, v := range values {
		m, err := d.value(p.Name, valueType, p.Params.Get(goical.ParamTimezoneID), strings.TrimSpace(v))
		if err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, nil
}

// value reads one date or date-time. go-ical parses it, as a wall-clock time;
// the instant is then found with calendar.WallClock, which reads a time in a
// DST gap or overlap as RFC 5545 does (go-ical's time.Date does not). A date
// written without VALUE=DATE, as some producers do, is still read as a date.
func (d *decoder) value(name, valueType, tzid, v string) (moment, error) {
	if valueType == "" && len(v) == len("20060102") {
		valueType = string(goical.ValueDate)
	}
	dated := valueType == string(goical.ValueDate)
	q := goical.NewProp(name)
	if dated {
		q.SetValueType(goical.ValueDate)
	}
	q.Value = v
	wall, err := q.DateTime(time.UTC)
	if err != nil {
		return moment{}, fmt.Errorf("%s: %q is not %s", name, clip(v), formName(dated))
	}
	switch {
	case dated:
		return moment{dated: true, date: calendar.DateOf(wall), at: wall}, nil
	case strings.HasSuffix(v, "Z"):
		return moment{at: wall, zone: calendar.DefaultTimeZone}, nil
	}
	zone, loc := d.zone, d.loc
	if tzid != "" {
		if zone, loc, err = d.location(tzid, wall.Year()); err != nil {
			return moment{}, fmt.Errorf("%s: %s", name, calendar.ErrorMessage(err))
		}
	}
	at := calendar.WallClock(calendar.DateOf(wall), wall.Hour(), wall.Minute(), wall.Second(), 0, loc)
	m := moment{at: at.UTC(), zone: zone}
	if r := at.In(loc); r.Hour() != wall.Hour() || r.Minute() != wall.Minute() || calendar.DateOf(r) != calendar.DateOf(wall) {
		m.local = wall
	}
	return m, nil
}

// location loads a TZID: an IANA name that calgraph accepts, a Windows zone
// name as Outlook and Exchange write them ("Eastern Standard Time"), read as
// the IANA zone CLDR maps it to (windowsZones), or else the name of one of
// the document's VTIMEZONEs, read as the IANA zone that matches it in year
// (vtimezoneZone). It returns the IANA zone's name. Zones are kept:
// time.LoadLocation reads the zone's file on every call.
func (d *decoder) location(tzid string, year int) (string, *time.Location, error) {
	if iana, ok := windowsZones[tzid]; ok {
		tzid = iana
	}
	if iana, ok := d.matched[tzid]; ok {
		tzid = iana
	}
	if loc, ok := d.zones[tzid]; ok {
		return tzid, loc, nil
	}
	if err := calendar.ValidateTimeZone("TZID", tzid); err != nil {
		vtz, ok := d.vtimezones[tzid]
		if !ok {
			return "", nil, err
		}
		iana, verr := vtimezoneZone(vtz, year)
		if verr != nil {
			return "", nil, calendar.Invalidf("TZID", "TZID %q: its VTIMEZONE matches no IANA zone: %s", clip(tzid), verr)
		}
		loc, lerr := time.LoadLocation(iana)
		if lerr != nil {
			return "", nil, lerr
		}
		d.matched[tzid], d.zones[iana] = iana, loc
		return iana, loc, nil
	}
	loc, err := time.LoadLocation(tzid)
	if err != nil {
		return "", nil, err
	}
	d.zones[tzid] = loc
	return tzid, loc, nil
}

// eventTiming reads a VEVENT's DTSTART with its DTEND or DURATION, and
// returns DTSTART as read too.
func (d *decoder) eventTiming(c *goical.Component) (calendar.Timing, moment, error) {
	p := c.Props.Get(goical.PropDateTimeStart)
	if p == nil {
		return calendar.Timing{}, moment{}, errors.New("DTSTART is missing")
	}
	start, err := d.moment(p)
	if err != nil {
		return calendar.Timing{}, moment{}, err
	}
	if start.dated {
		days, err := d.days(c, start)
		switch {
		case err != nil:
			return calendar.Timing{}, moment{}, err
		case days == 1:
			return calendar.Timing{AllDay: &start.date}, start, nil
		}
		return calendar.Timing{MultiDay: &calendar.DaySpan{Start: start.date, End: start.date.AddDays(days)}}, start, nil
	}
	end, err := d.end(c, start)
	if err != nil {
		return calendar.Timing{}, moment{}, err
	}
	t := &calendar.TimedTiming{Start: start.at, End: end, TimeZone: start.zone}
	if !start.local.IsZero() { // a start in a DST gap keeps its wall clock
		t.Start, t.LocalStart = time.Time{}, start.local
	}
	return calendar.Timing{Timed: t}, start, nil
}

// days returns how many days an event of whole days lasts: up to DTEND
// (exclusive), for DURATION, or one day when it has neither.
func (d *decoder) days(c *goical.Component, start moment) (int, error) {
	if p := c.Props.Get(goical.PropDateTimeEnd); p != nil {
		end, err := d.moment(p)
		switch {
		case err != nil:
			return 0, err
		case !end.dated:
			return 0, errors.New("DTEND must be a date, as DTSTART is")
		case !start.date.Before(end.date):
			return 0, errors.New("DTEND must be after DTSTART")
		}
		return start.date.DaysUntil(end.date), nil
	}
	if p := c.Props.Get(goical.PropDuration); p != nil {
		dur, err := duration(p)
		if err != nil {
			return 0, err
		}
		if dur <= 0 || dur%day != 0 {
			return 0, errors.New("DURATION of an event of whole days must be a positive number of days")
		}
		return int(dur / day), nil
	}
	return 1, nil
}

// end returns when a timed event ends: at DTEND, or after DURATION. It is
// zero, for calgraph's default duration, when the event has neither or ends
// when it starts. A DURATION in days is read as 24 hours each, as go-ical
// reads it, although RFC 5545 keeps the time of day across a DST change.
func (d *decoder) end(c *goical.Component, start moment) (time.Time, error) {
	var end time.Time
	if p := c.Props.Get(goical.PropDateTimeEnd); p != nil {
		m, err := d.moment(p)
		switch {
		case err != nil:
			return time.Time{}, err
		case m.dated:
			return time.Time{}, errors.New("DTEND must be a date-time, as DTSTART is")
		}
		end = m.at
	} else if p := c.Props.Get(goical.PropDuration); p != nil {
		dur, err := duration(p)
		if err != nil {
			return time.Time{}, err
		}
		end = start.at.Add(dur)
	}
	switch {
	case end.IsZero() || end.Equal(start.at):
		return time.Time{}, nil
	case end.Before(start.at):
		return time.Time{}, errors.New("the event ends before it starts")
	}
	return end, nil
}

func duration(p *goical.Prop) (time.Duration, error) {
	dur, err := p.Duration()
	if err != nil {
		return 0, fmt.Errorf("%s: %q is not a duration", p.Name, clip(p.Value))
	}
	return dur, nil
}

// recurrence reads a series' RRULE, RDATE and EXDATE, or returns nil for an
// event that does not recur. The rule itself is left to the recurrence
// engine; its dates must have DTSTART's form.
func (d *decoder) recurrence(c *goical.Component, start moment) (*calendar.Recurrence, error) {
	rules := c.Props.Values(goical.PropRecurrenceRule)
	switch {
	case len(rules) > 1:
		return nil, errors.New("more than one RRULE is not supported")
	case len(rules) == 0 && c.Props.Get(goical.PropRecurrenceDates) != nil:
		return nil, errors.New("RDATE without RRULE is not supported")
	case len(rules) == 0:
		return nil, nil
	}
	r := &calendar.Recurrence{Rule: strings.TrimSpace(rules[0].Value)}
	if r.Rule == "" {
		return nil, errors.New("RRULE is empty")
	}
	var err error
	if r.RDates, err = d.dates(c, goical.PropRecurrenceDates, start.dated); err != nil {
		return nil, err
	}
	if r.ExDates, err = d.dates(c, goical.PropExceptionDates, start.dated); err != nil {
		return nil, err
	}
	return r, nil
}

// dates reads every value of every property name, which must all be dates or
// all be date-times.
func (d *decoder) dates(c *goical.Component, name string, dated bool) ([]time.Time, error) {
	var out []time.Time
	for _, p := range c.Props.Values(name) {
		ms, err := d.moments(p)
		if err != nil {
			return nil, err
		}
		for _, m := range ms {
			if m.dated != dated {
				return nil, fmt.Errorf("%s values must be %ss, as DTSTART is", name, strings.TrimPrefix(formName(dated), "a "))
			}
			out = append(out, m.at)
		}
	}
	return out, nil
}
