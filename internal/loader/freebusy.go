package loader

import (
	"context"
	"slices"

	"github.com/calgraph/calgraph/internal/calendar"
)

// CalendarBusy is when one calendar is busy in a range.
type CalendarBusy struct {
	Calendar *calendar.Calendar
	Busy     []calendar.BusyInterval
	Range    calendar.Range // the range read
}

// FreeBusy returns when each of the given calendars is busy in a range, to
// any member, FREE_BUSY members included, and nothing of what makes them busy:
// their entries and the holds of entries elsewhere booked on them.
// Dates are read in the asked zone, else the viewer's, else UTC.
func (l *Loaders) FreeBusy(ctx context.Context, ids []string, spec calendar.RangeSpec) (*View, []CalendarBusy, error) {
	if err := spec.Validate(); err != nil {
		return nil, nil, err
	}
	ids = slices.Compact(slices.Sorted(slices.Values(ids)))
	if len(ids) == 0 || len(ids) > maxAgendaCalendars {
		return nil, nil, calendar.Invalidf("calendarIds", "freeBusy covers 1 to %d calendars", maxAgendaCalendars)
	}
	prefs := l.viewerPreferences(ctx)
	cals := make([]func() (*calendar.Calendar, error), len(ids))
	for i, id := range ids {
		cals[i] = l.loadCalendar(ctx, id)
	}
	if err := l.viewerCanAll(ctx, ids, calendar.ActionFreeBusy); err != nil {
		return nil, nil, err
	}
	var list []*calendar.Calendar
	for i := range ids {
		c, err := cals[i]()
		if err != nil {
			return nil, nil, err
		}
		if c == nil { // deleted since the membership was read; its clean-up is under way
			return nil, nil, calendar.Errorf(calendar.CodeNotFound, "calendar not found")
		}
		list = append(list, c)
	}
	p, err := prefs()
	if err != nil {
		return nil, nil, err
	}
	return l.calendarsBusy(ctx, list, spec, calendar.ViewZone(spec.TimeZone, p, nil))
}

// calendarsBusy reads when each of cals is busy in spec, read in zone: their
// entries and series (one wave of range Queries, side by side), expanded
// with their exceptions as views expand them, and their busy intervals
// (calendar.Busy), in the order of cals. It is the one read of busy time:
// freeBusy and findTimes both use it, and what makes a calendar busy is
// added here. It checks no rights: its callers do.
func (l *Loaders) calendarsBusy(ctx context.Context, cals []*calendar.Calendar, spec calendar.RangeSpec, zone string) (*View, []CalendarBusy, error) {
	byID := make(map[string]*calendar.Calendar, len(cals))
	for _, c := range cals {
		byID[c.ID] = c
	}
	from, to := spec.Window()
	candidates, err := l.agendaCandidates(ctx, cals, from, to)
	if err != nil {
		return nil, nil, err
	}
	v, err := l.view(ctx, spec, zone, candidates, calendar.Filter{}, byID)
	if err != nil {
		return nil, nil, err
	}
	held, err := l.holds(ctx, cals, from, to)
	if err != nil {
		return nil, nil, err
	}
	out := make([]CalendarBusy, len(cals))
	for i, c := range cals {
		mine := held[c.ID]
		for _, e := range v.Entries {
			if e.CalendarID == c.ID {
				mine = append(mine, e)
			}
		}
		out[i] = CalendarBusy{Calendar: c, Busy: calendar.Busy(mine, v.Range), Range: v.Range}
	}
	return v, out, nil
}
