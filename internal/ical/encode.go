package ical

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	goical "github.com/emersion/go-ical"

	"github.com/calgraph/calgraph/internal/calendar"
)

// productID is the PRODID of every document Encode writes.
const productID = "-//calgraph//calgraph//EN"

// refreshInterval is how often subscribers are asked to fetch the feed again
// (REFRESH-INTERVAL and its older spelling X-PUBLISHED-TTL).
const refreshInterval = "PT15M"

// Feed is what a calendar's feed holds.
type Feed struct {
	Calendar *calendar.Calendar
	// Entries are the calendar's single entries and series (Recurrence set).
	Entries []*calendar.Entry
	// Exceptions are the series' exceptions as their occurrences look
	// (master.OccurrenceAt(orig).Overlay(exception)): IsException, SeriesID,
	// OriginalStart set; Cancelled ones become EXDATEs of their series.
	Exceptions []*calendar.Entry
	// Attendees and Organizers are the people on entries and series
	// (calendar.Feed's): an entry with attendees gets ORGANIZER and one
	// ATTENDEE each (people.go).
	Attendees  map[string][]*calendar.Attendee
	Organizers map[string]*calendar.User
	Now        time.Time // DTSTAMP
	// Engine writes each series' recurrence so that every reader finds the
	// occurrences calgraph does (RecurrenceEngine.Portable).
	Engine calendar.RecurrenceEngine
}

// Encode writes f as an iCalendar document (METHOD:PUBLISH) to w: one VEVENT
// or VTODO per entry, one VEVENT per changed occurrence of a series, and a
// VTIMEZONE per zone in use other than UTC, covering the years around the
// entries and ten years ahead (see zoneWindow). The output depends only on f,
// not on the order of its slices, so feeds can be compared and cached by
// their bytes; lines are folded at 75 octets as RFC 5545 asks.
//
// An exception whose series is not among f.Entries, or an entry in a zone Go
// does not know, is an error: the caller assembled an inconsistent feed.
func Encode(w io.Writer, f Feed) error {
	if f.Calendar == nil || f.Now.IsZero() || f.Engine == nil {
		return errors.New("encode iCalendar feed: Calendar, Now and Engine must be set")
	}
	cal := goical.NewCalendar()
	calendarProps(cal.Props, f.Calendar)
	comps, zones, err := entryComponents(f)
	if err != nil {
		return fmt.Errorf("encode iCalendar feed of calendar %s: %w", f.Calendar.ID, err)
	}
	if len(comps) == 0 {
		// go-ical refuses an empty VCALENDAR (RFC 5545 wants at least one
		// component), so an empty feed describes the calendar's own zone.
		zones.add(cmp.Or(f.Calendar.TimeZone, calendar.DefaultTimeZone), f.Now)
	}
	tzs, err := zones.components(f.Now)
	if err != nil {
		return fmt.Errorf("encode iCalendar feed of calendar %s: %w", f.Calendar.ID, err)
	}
	cal.Children = append(tzs, comps...)
	fw := newFoldWriter(w)
	if err := goical.NewEncoder(fw).Encode(cal); err != nil {
		return fmt.Errorf("encode iCalendar feed of calendar %s: %w", f.Calendar.ID, err)
	}
	return fw.Flush()
}

// calendarProps sets the VCALENDAR's own properties, with the X-WR names that
// Google, Apple and Outlook read alongside RFC 7986's.
func calendarProps(props goical.Props, c *calendar.Calendar) {
	props.SetText(goical.PropVersion, "2.0")
	props.SetText(goical.PropProductID, productID)
	props.SetText(goical.PropCalendarScale, "GREGORIAN")
	props.SetText(goical.PropMethod, "PUBLISH")
	props.SetText(goical.PropName, c.Name)
	props.Set(textProp("X-WR-CALNAME", c.Name))
	props.Set(textProp("X-WR-TIMEZONE", c.TimeZone))
	if c.Description != "" {
		props.SetText(goical.PropDescription, c.Description)
		props.Set(textProp("X-WR-CALDESC", c.Description))
	}
	refresh := goical.NewProp(goical.PropRefreshInterval)
	// RFC 7986 requires VALUE=DURATION here, but go-ical's SetValueType drops
	// a VALUE that is the property's default type, so set it directly.
	refresh.Params.Set(goical.ParamValue, string(goical.ValueDuration))
	refresh.Value = refreshInterval
	props.Set(refresh)
	ttl := goical.NewProp("X-PUBLISHED-TTL")
	ttl.Value = refreshInterval
	props.Set(ttl)
}

// textProp returns a TEXT property, escaped by go-ical, with line breaks
// normalized to LF (go-ical refuses CR in a value) and without the
// VALUE=TEXT that go-ical adds to properties it does not know, such as X-WR-*.
func textProp(name, text string) *goical.Prop {
	p := goical.NewProp(name)
	p.SetText(normalizeNewlines(text))
	p.Params.Del(goical.ParamValue)
	return p
}

func normalizeNewlines(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n")
}

// entryComponents returns the VEVENTs and VTODOs of f in a stable order (by
// UID, each series followed by its exceptions by RECURRENCE-ID) and the zones
// they use.
func entryComponents(f Feed) ([]*goical.Component, *zoneSet, error) {
	entries := slices.Clone(f.Entries)
	entries = slices.DeleteFunc(entries, func(e *calendar.Entry) bool { return e == nil })
	slices.SortFunc(entries, func(a, b *calendar.Entry) int {
		return cmp.Or(strings.Compare(a.ICalUID, b.ICalUID), strings.Compare(a.ID, b.ID))
	})
	exceptions, err := exceptionsBySeries(entries, f.Exceptions)
	if err != nil {
		return nil, nil, err
	}
	uids := map[string]string{}
	for _, e := range entries {
		uids[e.ID] = e.ICalUID
	}
	zones := newZoneSet()
	var comps []*goical.Component
	for _, e := range entries {
		excs := exceptions[e.ID]
		c, err := entryComponent(f.Engine, e, excs, f.Now)
		if err != nil {
			return nil, nil, fmt.Errorf("entry %s: %w", e.ID, err)
		}
		peopleProps(c.Props, f.Organizers[calendar.OrganizerOf(e)], f.Attendees[e.ID])
		if prev := uids[e.PreviousSeriesID]; prev != "" {
			// A series split off another (THIS_AND_FOLLOWING) names it.
			related := goical.NewProp(goical.PropRelatedTo)
			related.Value = prev
			related.Params.Set("RELTYPE", "SIBLING")
			c.Props.Set(related)
		}
		comps = append(comps, c)
		zones.addEntry(e)
		overrides, err := overrideComponents(f, e, excs, zones)
		if err != nil {
			return nil, nil, err
		}
		comps = append(comps, overrides...)
	}
	return comps, zones, nil
}

// overrideComponents returns series e's overrides (RECURRENCE-ID) by
// original start: one per exception that is not cancelled, and one per
// occurrence without an exception that someone answered apart
// (answerOverrides), each with the attendees' answers there.
func overrideComponents(f Feed, e *calendar.Entry, excs []*calendar.Entry, zones *zoneSet) ([]*goical.Component, error) {
	as := f.Attendees[e.ID]
	occs := slices.Clone(excs)
	if e.IsSeries() && len(as) > 0 {
		for _, t := range answerOverrides(f.Engine, e, as, excs, f.Now) {
			occs = append(occs, e.OccurrenceAt(t))
		}
		slices.SortStableFunc(occs, func(a, b *calendar.Entry) int { return a.OriginalStart.Compare(b.OriginalStart) })
	}
	var out []*goical.Component
	for _, x := range occs {
		if !e.Dated() { // its RECURRENCE-ID or EXDATE is in the series' zone
			zones.addInstant(e.TimeZone, x.OriginalStart)
		}
		if x.Cancelled {
			continue
		}
		zones.addEntry(x)
		xc, err := exceptionComponent(e, x, f.Now)
		if err != nil {
			return nil, fmt.Errorf("exception %s: %w", x.ID, err)
		}
		if len(as) > 0 {
			peopleProps(xc.Props, f.Organizers[calendar.OrganizerOf(e)], attendeesAt(as, x.OriginalStart, e.Attendance.ResetOf(x.OriginalStart)))
		}
		out = append(out, xc)
	}
	return out, nil
}

// exceptionsBySeries groups exceptions by their series' ID, each group by
// original start.
func exceptionsBySeries(entries, exceptions []*calendar.Entry) (map[string][]*calendar.Entry, error) {
	series := map[string]bool{}
	for _, e := range entries {
		if e.IsSeries() {
			series[e.ID] = true
		}
	}
	out := map[string][]*calendar.Entry{}
	for _, x := range exceptions {
		if x == nil {
			continue
		}
		if !series[x.SeriesID] {
			return nil, fmt.Errorf("exception %s: its series %q is not in the feed", x.ID, x.SeriesID)
		}
		out[x.SeriesID] = append(out[x.SeriesID], x)
	}
	for _, xs := range out {
		slices.SortFunc(xs, func(a, b *calendar.Entry) int {
			return cmp.Or(a.OriginalStart.Compare(b.OriginalStart), strings.Compare(a.ID, b.ID))
		})
	}
	return out, nil
}

// attendeesAt returns a series' attendees with their answers at its
// occurrence originally at orig, last moved alone at count reset (an
// exception's override carries them).
func attendeesAt(as []*calendar.Attendee, orig time.Time, reset int) []*calendar.Attendee {
	out := make([]*calendar.Attendee, len(as))
	for i, a := range as {
		out[i] = a.AtOccurrence(orig, reset)
	}
	return out
}
