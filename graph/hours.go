package graph

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/calgraph/calgraph/graph/model"
	"github.com/calgraph/calgraph/internal/availability"
	"github.com/calgraph/calgraph/internal/calendar"
	"github.com/calgraph/calgraph/internal/loader"
)

// Working hours between the schema's shape (days of the week from Monday,
// dated exceptions, windows as HH:MM) and calendar.WorkingHours.

// workingHoursInput reads the input of updatePreferences' workingHours: a
// null removes them.
func workingHoursInput(o *model.WorkingHoursInput) (*calendar.WorkingHours, error) {
	if o == nil {
		return nil, nil
	}
	h := &calendar.WorkingHours{TimeZone: o.TimeZone}
	seen := map[time.Weekday]bool{}
	for _, d := range o.Days {
		wd := time.Weekday(slices.Index(weekdays, d.Day))
		if seen[wd] {
			return nil, calendar.Invalidf("workingHours.days", "%s is given twice", d.Day)
		}
		seen[wd] = true
		ws, err := windowsInput("workingHours.days", d.Windows)
		if err != nil {
			return nil, err
		}
		h.Weekly[wd] = ws
	}
	exceptions, _ := o.Exceptions.ValueOK()
	if len(exceptions) > calendar.MaxDatedDays {
		return nil, calendar.Invalidf("workingHours.exceptions", "at most %d dated days, got %d", calendar.MaxDatedDays, len(exceptions))
	}
	for _, d := range exceptions {
		if _, twice := h.Dated[d.Date]; twice {
			return nil, calendar.Invalidf("workingHours.exceptions", "%s is given twice", d.Date)
		}
		ws, err := windowsInput("workingHours.exceptions", d.Windows)
		if err != nil {
			return nil, err
		}
		if h.Dated == nil {
			h.Dated = map[calendar.Date][]calendar.TimeWindow{}
		}
		h.Dated[d.Date] = ws
	}
	return h, h.Validate("workingHours")
}

func windowsInput(field string, in []*model.TimeWindowInput) ([]calendar.TimeWindow, error) {
	ws := []calendar.TimeWindow{}
	for _, w := range in {
		from, err := clockMinutes(field, w.Start, false)
		if err != nil {
			return nil, err
		}
		to, err := clockMinutes(field, w.End, true)
		if err != nil {
			return nil, err
		}
		ws = append(ws, calendar.TimeWindow{From: from, To: to})
	}
	return ws, nil
}

// clockMinutes reads "HH:MM" as minutes after midnight; "24:00" only as an
// end.
func clockMinutes(field, s string, end bool) (int, error) {
	h, m, ok := strings.Cut(s, ":")
	hh, err1 := strconv.Atoi(h)
	mm, err2 := strconv.Atoi(m)
	switch {
	case !ok || len(h) != 2 || len(m) != 2 || err1 != nil || err2 != nil || hh < 0 || mm < 0 || mm > 59:
	case hh < 24, end && hh == 24 && mm == 0:
		return hh*60 + mm, nil
	}
	limit := "23:59"
	if end {
		limit = "24:00"
	}
	return 0, calendar.Invalidf(field, "a time of day must be HH:MM from 00:00 to %s, got %q", limit, s)
}

func clockText(minutes int) string { return fmt.Sprintf("%02d:%02d", minutes/60, minutes%60) }

func timeWindows(ws []calendar.TimeWindow) []*model.TimeWindow {
	out := make([]*model.TimeWindow, len(ws))
	for i, w := range ws {
		out[i] = &model.TimeWindow{Start: clockText(w.From), End: clockText(w.To)}
	}
	return out
}

// workingHours is h in the schema's shape, nil for none.
func workingHours(h *calendar.WorkingHours) *model.WorkingHours {
	if h == nil {
		return nil
	}
	out := &model.WorkingHours{TimeZone: h.TimeZone, Exceptions: []*model.DatedWorkingDay{}}
	for i := range 7 {
		wd := (time.Monday + time.Weekday(i)) % 7
		out.Days = append(out.Days, &model.WorkingDay{Day: weekdays[wd], Windows: timeWindows(h.Weekly[wd])})
	}
	for _, d := range slices.SortedFunc(maps.Keys(h.Dated), func(a, b calendar.Date) int { return a.In(time.UTC).Compare(b.In(time.UTC)) }) {
		out.Exceptions = append(out.Exceptions, &model.DatedWorkingDay{Date: d, Windows: timeWindows(h.Dated[d])})
	}
	return out
}

// viewerWorkingHours reads the viewer's hours: Preferences are only ever the
// viewer's own.
func (r *Resolver) viewerWorkingHours(ctx context.Context) (*model.WorkingHours, error) {
	viewer, err := calendar.ViewerID(ctx)
	if err != nil {
		return nil, err
	}
	h, err := r.Service.WorkingHours(ctx, viewer)
	if err != nil {
		return nil, err
	}
	return workingHours(h), nil
}

// setOpeningHours answers Mutation.setOpeningHours: the hours read as
// updatePreferences reads working hours, stored by the calendar's owner.
func (r *Resolver) setOpeningHours(ctx context.Context, in model.SetOpeningHoursInput) (*model.SetOpeningHoursPayload, error) {
	id, err := model.DecodeCalendarID("calendarId", in.CalendarID)
	if err != nil {
		return nil, err
	}
	given, _ := in.OpeningHours.ValueOK()
	h, err := workingHoursInput(given)
	if err != nil {
		return nil, err
	}
	c, err := once(ctx, r.Service, in.IdempotencyKey, func(ctx context.Context) (*calendar.Calendar, error) {
		return r.Service.SetOpeningHours(ctx, id, h)
	})
	if err != nil {
		return nil, err
	}
	out := &model.SetOpeningHoursPayload{Calendar: model.CalendarOf(c)}
	if h != nil {
		n := h.Normalized(time.Now())
		out.OpeningHours = workingHours(&n)
	}
	return out, nil
}

// closed answers CalendarBusy.closed: for a resource calendar with opening
// hours, the stretches of the range outside them. The hours are read only
// for this field (a GetItem per resource calendar, side by side), not for
// every freeBusy.
func (r *Resolver) closed(ctx context.Context, b *loader.CalendarBusy) ([]*calendar.Interval, error) {
	out := []*calendar.Interval{}
	if !b.Calendar.IsResource {
		return out, nil
	}
	_, hours, err := r.Service.HoursOf(ctx, nil, []string{b.Calendar.ID})
	if err != nil || hours[b.Calendar.ID] == nil {
		return out, err
	}
	return outsideHours(hours[b.Calendar.ID], b.Range)
}

// outsideHours returns the stretches of r outside h's windows, in order.
func outsideHours(h *calendar.WorkingHours, r calendar.Range) ([]*calendar.Interval, error) {
	out := []*calendar.Interval{}
	if h == nil {
		return out, nil
	}
	open, err := availability.WorkingIntervals(h, r.Start, r.End)
	if err != nil {
		return nil, err
	}
	at := r.Start
	for _, iv := range append(open, calendar.Interval{Start: r.End, End: r.End}) {
		if at.Before(iv.Start) {
			out = append(out, &calendar.Interval{Start: at.UTC(), End: iv.Start.UTC()})
		}
		if iv.End.After(at) {
			at = iv.End
		}
	}
	return out, nil
}

// openingHours answers Calendar.openingHours: a resource calendar's hours,
// for a viewer who sees when it is busy (else the field's error, as other
// fields a role may not read); null for a calendar that is no resource or
// has none.
func (r *Resolver) openingHours(ctx context.Context, c *calendar.Calendar) (*model.WorkingHours, error) {
	role, err := loader.For(ctx).ViewerRole(ctx, c.ID)
	if err != nil {
		return nil, err
	}
	if !role.Can(calendar.ActionFreeBusy) {
		return nil, calendar.Errorf(calendar.CodeForbidden, "your role cannot %s", calendar.ActionFreeBusy)
	}
	if !c.IsResource {
		return nil, nil
	}
	_, hours, err := r.Service.HoursOf(ctx, nil, []string{c.ID})
	if err != nil || hours[c.ID] == nil {
		return nil, err
	}
	return workingHours(hours[c.ID]), nil
}

// mustNotOverlapOut answers an entry's mustNotOverlap: its holds' global
// IDs, none on a redacted entry (they name calendars the reader may not
// know of).
func mustNotOverlapOut(e *calendar.Entry) []string {
	out := []string{}
	if e.Redacted {
		return out
	}
	for _, id := range e.Holds {
		out = append(out, model.CalendarGID(id))
	}
	return out
}
