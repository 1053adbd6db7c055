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

// form is how a component writes its moments: as dates (VALUE=DATE), or as
// date-times in a zone (TZID and local time, or UTC's "Z" form).
type form struct {
	dated bool
	loc   *time.Location
}

// formOf returns the form of e's timing: dates for an entry of whole days,
// else date-times in e's zone.
func formOf(e *calendar.Entry) (form, error) {
	if e.Dated() {
		return form{dated: true}, nil
	}
	loc, err := location(e.TimeZone)
	return form{loc: loc}, err
}

// location loads an entry's zone; "" and "UTC" are UTC, written in the "Z" form.
func location(zone string) (*time.Location, error) {
	if zone == "" || zone == calendar.DefaultTimeZone {
		return time.UTC, nil
	}
	loc, err := time.LoadLocation(zone)
	if err != nil {
		return nil, fmt.Errorf("time zone %q: %w", zone, err)
	}
	return loc, nil
}

// prop returns the property name with the moments ts in this form, as one
// comma-separated list (RDATE and EXDATE take several).
func (f form) prop(name string, ts ...time.Time) *goical.Prop {
	p := goical.NewProp(name)
	values := make([]string, len(ts))
	for i, t := range ts {
		one := goical.NewProp(name)
		if f.dated {
			one.SetDate(t.UTC())
		} else {
			one.SetDateTime(t.In(f.loc))
		}
		values[i], p.Params = one.Value, one.Params
	}
	p.Value = strings.Join(values, ",")
	return p
}

// entryComponent returns e as a VTODO (a task) or a VEVENT, with its series'
// recurrence, as every reader reads it alike (RecurrenceEngine.Portable),
// and the EXDATEs of its cancelled exceptions.
func entryComponent(eng calendar.RecurrenceEngine, e *calendar.Entry, exceptions []*calendar.Entry, now time.Time) (*goical.Component, error) {
	if e.Kind == calendar.KindTask {
		return taskComponent(e, now)
	}
	c := goical.NewComponent(goical.CompEvent)
	if err := eventTiming(c.Props, e); err != nil {
		return nil, err
	}
	if e.Recurrence != nil {
		r, err := eng.Portable(e)
		if err != nil {
			return nil, err
		}
		if err := recurrenceProps(c.Props, e, &r, exceptions); err != nil {
			return nil, err
		}
	}
	commonProps(c, e, now, "")
	return c, nil
}

// exceptionComponent returns a changed occurrence x of series as a VEVENT
// with the series' UID and the RECURRENCE-ID of its original start.
func exceptionComponent(series, x *calendar.Entry, now time.Time) (*goical.Component, error) {
	seriesForm, err := formOf(series)
	if err != nil {
		return nil, err
	}
	c := goical.NewComponent(goical.CompEvent)
	if err := eventTiming(c.Props, x); err != nil {
		return nil, err
	}
	c.Props.Set(seriesForm.prop(goical.PropRecurrenceID, x.OriginalStart))
	commonProps(c, x, now, "")
	c.Props.SetText(goical.PropUID, series.ICalUID) // the series' UID, whoever built x
	return c, nil
}

// eventTiming sets DTSTART and DTEND (exclusive, as calgraph stores it).
func eventTiming(props goical.Props, e *calendar.Entry) error {
	f, err := formOf(e)
	if err != nil {
		return err
	}
	start, end := e.Start, e.End
	if f.dated {
		start, end = e.StartDate.In(time.UTC), e.EndDate.In(time.UTC)
	}
	dtstart := f.prop(goical.PropDateTimeStart, start)
	if !f.dated && !e.LocalStart.IsZero() {
		// A start in a DST gap is written as given: its wall clock (which
		// RFC 5545 reads with the offset before the gap, as calgraph does).
		dtstart.Value = e.LocalStart.Format("20060102T150405")
	}
	props.Set(dtstart)
	props.Set(f.prop(goical.PropDateTimeEnd, end))
	return nil
}

// recurrenceProps sets a series' RRULE, RDATE and EXDATE from its recurrence
// r, in the form of its DTSTART; cancelled exceptions are EXDATEs too.
func recurrenceProps(props goical.Props, e *calendar.Entry, r *calendar.Recurrence, exceptions []*calendar.Entry) error {
	f, err := formOf(e)
	if err != nil {
		return err
	}
	rule := goical.NewProp(goical.PropRecurrenceRule)
	rule.Value = strings.TrimPrefix(r.Rule, "RRULE:")
	props.Set(rule)
	exdates := slices.Clone(r.ExDates)
	for _, x := range exceptions {
		if x.Cancelled {
			exdates = append(exdates, x.OriginalStart)
		}
	}
	if rdates := sortedTimes(r.RDates); len(rdates) > 0 {
		props.Set(f.prop(goical.PropRecurrenceDates, rdates...))
	}
	if exdates := sortedTimes(exdates); len(exdates) > 0 {
		props.Set(f.prop(goical.PropExceptionDates, exdates...))
	}
	return nil
}

// sortedTimes returns ts sorted without repeated instants.
func sortedTimes(ts []time.Time) []time.Time {
	out := slices.Clone(ts)
	slices.SortFunc(out, time.Time.Compare)
	return slices.CompactFunc(out, time.Time.Equal)
}

// taskComponent returns a task as a VTODO: DUE on its date or at its instant,
// and its status. Its reminders are relative to DUE, as a VTODO without
// DTSTART requires (RFC 5545 section 3.8.6.3).
func taskComponent(e *calendar.Entry, now time.Time) (*goical.Component, error) {
	c := goical.NewComponent(goical.CompToDo)
	f, err := formOf(e)
	if err != nil {
		return nil, err
	}
	due := e.Start
	if f.dated {
		due = e.StartDate.In(time.UTC)
	}
	c.Props.Set(f.prop(goical.PropDue, due))
	if e.Completed {
		c.Props.SetText(goical.PropStatus, "COMPLETED")
		if !e.CompletedAt.IsZero() {
			c.Props.SetDateTime(goical.PropCompleted, e.CompletedAt.UTC())
		}
	} else {
		c.Props.SetText(goical.PropStatus, "NEEDS-ACTION")
	}
	commonProps(c, e, now, "END")
	return c, nil
}

// commonProps sets what every VEVENT and VTODO carries: identity, change
// stamps, text fields and reminders. related is the TRIGGER's RELATED
// parameter ("" for the default, START).
func commonProps(c *goical.Component, e *calendar.Entry, now time.Time, related string) {
	c.Props.SetText(goical.PropUID, e.ICalUID)
	seq := goical.NewProp(goical.PropSequence)
	seq.Value = strconv.Itoa(e.Sequence)
	c.Props.Set(seq)
	c.Props.SetDateTime(goical.PropDateTimeStamp, now.UTC())
	if !e.CreatedAt.IsZero() {
		c.Props.SetDateTime(goical.PropCreated, e.CreatedAt.UTC())
	}
	if !e.UpdatedAt.IsZero() {
		c.Props.SetDateTime(goical.PropLastModified, e.UpdatedAt.UTC())
	}
	c.Props.Set(textProp(goical.PropSummary, e.Title))
	if e.Description != "" {
		c.Props.Set(textProp(goical.PropDescription, e.Description))
	}
	if e.Location != "" {
		c.Props.Set(textProp(goical.PropLocation, e.Location))
	}
	if len(e.Tags) > 0 {
		tags := goical.NewProp(goical.PropCategories)
		tags.SetTextList(e.Tags)
		c.Props.Set(tags)
	}
	if e.Color != "" {
		c.Props.SetText(goical.PropColor, e.Color)
	}
	if e.Kind != calendar.KindTask {
		transparency(c, e)
	}
	if e.Visibility() == calendar.VisibilityPrivate {
		// A feed is its owner's secret address: it carries the details, as
		// Google Calendar's secret address does, and says the entry is
		// private so the subscribing app can treat it so.
		c.Props.SetText(goical.PropClass, "PRIVATE")
	}
	for _, m := range e.Reminders {
		c.Children = append(c.Children, alarm(e.Title, m, related))
	}
}

// alarm returns a VALARM that displays title minutes before the start (or
// the end, for related "END").
func alarm(title string, minutes int, related string) *goical.Component {
	a := goical.NewComponent(goical.CompAlarm)
	a.Props.SetText(goical.PropAction, "DISPLAY")
	a.Props.Set(textProp(goical.PropDescription, title))
	trigger := goical.NewProp(goical.PropTrigger)
	trigger.Value = "PT0S"
	if minutes > 0 {
		trigger.Value = fmt.Sprintf("-PT%dM", minutes)
	}
	if related != "" {
		trigger.Params.Set(goical.ParamRelated, related)
	}
	a.Props.Set(trigger)
	return a
}

// busyStatus is Outlook's X-MICROSOFT-CDO-BUSYSTATUS, which says what
// TRANSP cannot: tentative and out of office.
const busyStatus = "X-MICROSOFT-CDO-BUSYSTATUS"

// transparency writes how an event counts in free/busy time: TRANSP where
// it differs from RFC 5545's default (OPAQUE) or from calgraph's for the
// kind (a whole-day event is FREE unless set), so that any reader and
// calgraph's own import find it; TENTATIVE and OUT_OF_OFFICE also as
// Outlook's busy status (TENTATIVE, OOF), which Outlook and Google read.
func transparency(c *goical.Component, e *calendar.Entry) {
	t := e.Transparency()
	switch {
	case t == calendar.TransparencyFree:
		c.Props.SetText(goical.PropTransparency, "TRANSPARENT")
	case e.Dated() || t != calendar.TransparencyBusy:
		c.Props.SetText(goical.PropTransparency, "OPAQUE")
	}
	status := goical.NewProp(busyStatus)
	switch t {
	case calendar.TransparencyTentative:
		status.Value = "TENTATIVE"
	case calendar.TransparencyOutOfOffice:
		status.Value = "OOF"
	default:
		return
	}
	c.Props.Set(status)
}
