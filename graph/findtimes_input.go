package graph

import (
	"context"
	"time"

	"github.com/calgraph/calgraph/graph/model"
	"github.com/calgraph/calgraph/internal/answercache"
	"github.com/calgraph/calgraph/internal/availability"
	"github.com/calgraph/calgraph/internal/calendar"
)

// readTimesInput reads and checks findTimes' input whole: the participants
// (each named once: a participant twice would count twice in AT_LEAST), the
// zone (asked, else the viewer's), the range in it and the search's limits
// (availability.Request.Validate). It reads nothing but the viewer's
// preferences, loaded at sign-in.
func readTimesInput(ctx context.Context, in model.FindTimesInput) (*timesAsk, error) {
	ask := &timesAsk{}
	seen := map[string]bool{}
	add := func(g *model.FindTimesGroupInput, group int) error {
		users, _ := g.Users.ValueOK()
		cals, _ := g.Calendars.ValueOK()
		for _, u := range users {
			email, err := calendar.NormalizeEmail(u)
			if err != nil {
				return calendar.Invalidf("users", "%q is not an email address", u)
			}
			if seen["u"+email] {
				return calendar.Invalidf("users", "%s is named twice", email)
			}
			seen["u"+email] = true
			ask.people = append(ask.people, timesParticipant{email: email, group: group})
		}
		for _, gid := range cals {
			id, err := model.DecodeCalendarID("calendars", gid)
			if err != nil {
				return err
			}
			if seen["c"+id] {
				return calendar.Invalidf("calendars", "calendar %s is named twice", gid)
			}
			seen["c"+id] = true
			ask.people = append(ask.people, timesParticipant{calendarID: id, group: group})
		}
		return nil
	}
	for i, g := range in.Groups {
		if g == nil {
			return nil, calendar.Invalidf("groups", "a group cannot be null")
		}
		before := len(ask.people)
		if err := add(g, i); err != nil {
			return nil, err
		}
		n, err := atLeast(g, len(ask.people)-before)
		if err != nil {
			return nil, err
		}
		ask.atLeast = append(ask.atLeast, n)
		ask.req.Groups = append(ask.req.Groups, availability.Group{AtLeast: n, Participants: make([]availability.Participant, len(ask.people)-before)})
	}
	if opt, _ := in.Optional.ValueOK(); opt != nil {
		if n, _ := opt.AtLeast.ValueOK(); n != nil {
			return nil, calendar.Invalidf("atLeast", "optional participants are never required: atLeast does not apply to them")
		}
		before := len(ask.people)
		if err := add(opt, -1); err != nil {
			return nil, err
		}
		ask.req.Optional = make([]availability.Participant, len(ask.people)-before)
	}
	if len(ask.people) > availability.MaxParticipants { // before the zone: a long list is refused first
		return nil, calendar.Invalidf("participants", "at most %d participants, got %d", availability.MaxParticipants, len(ask.people))
	}
	asked, _ := in.TimeZone.ValueOK()
	spec, err := rangeSpec(*in.Range, asked)
	if err != nil {
		return nil, err
	}
	if spec.TimeZone != "" {
		if err := calendar.ValidateTimeZone("timeZone", spec.TimeZone); err != nil {
			return nil, err
		}
	}
	zone, err := viewZone(ctx, spec.TimeZone)
	if err != nil {
		return nil, err
	}
	ask.zone = zone
	ask.spec = spec
	if !spec.Dated() && !spec.From.Before(spec.To) {
		return nil, calendar.Invalidf("range", "the range must end after it starts")
	}
	rg, err := spec.Resolve(ask.zone)
	if err != nil {
		return nil, err
	}
	respect, _ := in.RespectWorkingHours.ValueOK()
	ask.req.From, ask.req.To, ask.req.Zone = rg.Start, rg.End, rg.Zone
	ask.req.Duration = time.Duration(in.DurationMinutes) * time.Minute
	ask.req.Step = minutesOr(in.StepMinutes, 15)
	ask.req.BufferBefore = minutesOr(in.BufferBeforeMinutes, 0)
	ask.req.BufferAfter = minutesOr(in.BufferAfterMinutes, 0)
	ask.req.MinNotice = minutesOr(in.MinimumNoticeMinutes, 0)
	ask.req.WorkingHours = respect == nil || *respect
	ask.req.Now = time.Now()
	answercache.Mark(ctx, "clock")
	return ask, ask.req.Validate()
}

// atLeast reads a group's requirement: 0 for ALL, else 1 to its size.
func atLeast(g *model.FindTimesGroupInput, size int) (int, error) {
	req, _ := g.Required.ValueOK()
	n, _ := g.AtLeast.ValueOK()
	if req == nil || *req == model.FindTimesRequirementAll {
		if n != nil {
			return 0, calendar.Invalidf("atLeast", "atLeast goes with required: AT_LEAST")
		}
		return 0, nil
	}
	if n == nil || *n < 1 || *n > size {
		return 0, calendar.Invalidf("atLeast", "with AT_LEAST, atLeast must be 1 to the group's %d participants", size)
	}
	return *n, nil
}
