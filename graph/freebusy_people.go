package graph

import (
	"context"
	"errors"

	"github.com/calgraph/calgraph/graph/model"
	"github.com/calgraph/calgraph/internal/availability"
	"github.com/calgraph/calgraph/internal/calendar"
	"github.com/calgraph/calgraph/internal/loader"
)

// freeBusy answers Query.freeBusy: the calendars asked for (loader.FreeBusy)
// and, with `people`, each person's busy time and working hours
// (peopleBusy). Calendars may be left out only when people are named.
func (r *Resolver) freeBusy(ctx context.Context, calendarIDs []string, rangeArg model.TimeRangeInput, timeZone *string, people []string) (*model.FreeBusyView, error) {
	spec, err := rangeSpec(rangeArg, timeZone)
	if err != nil {
		return nil, err
	}
	ids, err := decodeCalendarIDs("calendarIds", calendarIDs)
	if err != nil {
		return nil, err
	}
	emails, err := peopleEmails(people)
	if err != nil {
		return nil, err
	}
	out := &model.FreeBusyView{Calendars: []*loader.CalendarBusy{}, People: []*model.PersonBusy{}}
	if len(ids) > 0 || len(emails) == 0 {
		v, busy, err := loader.For(ctx).FreeBusy(ctx, ids, spec)
		if err != nil {
			return nil, err
		}
		reportPartial(ctx, v)
		out = freeBusyView(v, busy)
		out.People = []*model.PersonBusy{}
	}
	if len(emails) > 0 {
		rg, people, err := r.peopleBusy(ctx, emails, spec)
		if err != nil {
			return nil, err
		}
		out.TimeZone, out.Start, out.End, out.People = rg.Zone.String(), rg.Start, rg.End, people
	}
	return out, nil
}

// peopleEmails checks freeBusy's `people`: at most
// availability.MaxParticipants addresses, each once.
func peopleEmails(people []string) ([]string, error) {
	if len(people) > availability.MaxParticipants {
		return nil, calendar.Invalidf("people", "freeBusy covers at most %d people", availability.MaxParticipants)
	}
	seen := map[string]bool{}
	out := make([]string, 0, len(people))
	for _, p := range people {
		email, err := calendar.NormalizeEmail(p)
		if err != nil {
			return nil, calendar.Invalidf("people", "%q is not an email address", p)
		}
		if seen[email] {
			return nil, calendar.Invalidf("people", "%s is named twice", email)
		}
		seen[email] = true
		out = append(out, email)
	}
	return out, nil
}

// peopleBusy reads the busy time and working hours of each person of
// emails, as findTimes counts a user participant (loader.TimesOf: the
// calendars they own that the viewer reaches at FREE_BUSY or more, and the
// viewer's own invitations when they are among them), with freeBusy's
// consistency. Working hours are shown only of a person whose calendars
// the viewer reaches: an unknown email and one none of whose calendars the
// viewer reaches are the same NOT_FOUND. Waves: the users by email, then
// TimesOf's (the hours beside its memberships).
func (r *Resolver) peopleBusy(ctx context.Context, emails []string, spec calendar.RangeSpec) (calendar.Range, []*model.PersonBusy, error) {
	if err := spec.Validate(); err != nil {
		return calendar.Range{}, nil, err
	}
	zone, err := viewZone(ctx, spec.TimeZone)
	if err != nil {
		return calendar.Range{}, nil, err
	}
	userIDs, err := r.peopleIDs(ctx, emails)
	if err != nil {
		return calendar.Range{}, nil, err
	}
	var hours map[string]*calendar.WorkingHours
	hoursErr := make(chan error, 1)
	go func() {
		var err error
		hours, _, err = r.Service.HoursOf(ctx, userIDs, nil)
		hoursErr <- err
	}()
	times, err := loader.For(ctx).TimesOf(ctx, nil, userIDs, spec, zone)
	if err := errors.Join(err, <-hoursErr); err != nil {
		return calendar.Range{}, nil, err
	}
	viewer, err := calendar.ViewerID(ctx)
	if err != nil {
		return calendar.Range{}, nil, err
	}
	out := make([]*model.PersonBusy, len(emails))
	for i, id := range userIDs {
		var lists [][]calendar.BusyInterval
		for _, c := range times.Owned[id] {
			lists = append(lists, times.Busy[c])
		}
		if id == viewer {
			lists = append(lists, times.Invited)
		}
		p := &model.PersonBusy{Email: emails[i], Busy: []*calendar.BusyInterval{}}
		for _, b := range calendar.MergeBusy(lists...) {
			p.Busy = append(p.Busy, &b)
		}
		if p.OutsideWorkingHours, err = outsideHours(hours[id], times.Range); err != nil {
			return calendar.Range{}, nil, err
		}
		out[i] = p
	}
	return times.Range, out, nil
}

// peopleIDs maps emails to their users' IDs, in order: one wave (none
// for no emails); an email of no user is errPersonNotFound.
func (r *Resolver) peopleIDs(ctx context.Context, emails []string) ([]string, error) {
	if len(emails) == 0 {
		return nil, nil
	}
	ids, err := r.Service.UserIDs(ctx, emails)
	if err != nil {
		return nil, err
	}
	userIDs := make([]string, len(emails))
	for i, e := range emails {
		if userIDs[i] = ids[e]; userIDs[i] == "" {
			return nil, errPersonNotFound
		}
	}
	return userIDs, nil
}

// errPersonNotFound is the one answer for an unknown email and for a
// person none of whose calendars the viewer reaches (findTimes gives it too).
var errPersonNotFound = calendar.Errorf(calendar.CodeNotFound, "a user participant was not found (or has no calendar you can see)")

// viewZone is the zone a read asked in tz is made in: tz, else the viewer's
// preferred zone (their item, read only then), else UTC.
func viewZone(ctx context.Context, tz string) (string, error) {
	prefs := calendar.DefaultPreferences()
	if tz == "" {
		viewer, err := loader.For(ctx).Viewer(ctx)
		if err != nil {
			return "", err
		}
		if viewer != nil {
			prefs = viewer.Preferences
		}
	}
	return calendar.ViewZone(tz, prefs, nil), nil
}
