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
	byID := make(map[string]*calendar.Calendar, len(ids))
	var list []*calendar.Calendar
	for i, id := range ids {
		c, err := cals[i]()
		if err != nil {
			return nil, nil, err
		}
		if c == nil { // deleted since the membership was read; its clean-up is under way
			return nil, nil, calendar.Errorf(calendar.CodeNotFound, "calendar not found")
		}
		byID[id] = c
		list = append(list, c)
	}
	from, to := spec.Window()
	candidates, err := l.agendaCandidates(ctx, list, from, to)
	if err != nil {
		return nil, nil, err
	}
	p, err := prefs()
	if err != nil {
		return nil, nil, err
	}
	v, err := l.view(ctx, spec, calendar.ViewZone(spec.TimeZone, p, nil), candidates, calendar.Filter{}, byID)
	if err != nil {
		return nil, nil, err
	}
	held, err := l.holds(ctx, list, from, to)
	if err != nil {
		return nil, nil, err
	}
	out := make([]CalendarBusy, len(ids))
	for i, id := range ids {
		mine := held[id]
		for _, e := range v.Entries {
			if e.CalendarID == id {
				mine = append(mine, e)
			}
		}
		out[i] = CalendarBusy{Calendar: byID[id], Busy: calendar.Busy(mine, v.Range)}
	}
	return v, out, nil
}
