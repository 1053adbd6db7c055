package graph

import (
	"context"
	"errors"
	"time"

	"github.com/calgraph/calgraph/graph/model"
	"github.com/calgraph/calgraph/internal/availability"
	"github.com/calgraph/calgraph/internal/calendar"
	"github.com/calgraph/calgraph/internal/loader"
)

// maxSlots bounds findTimes' answer: 500 slots of 50 states is about 1 MB
// of JSON at most; past it the answer says truncated, and the client asks
// again from after the last slot.
const maxSlots = 500

// timesParticipant is one participant of findTimes as asked: a user by
// email or a calendar by ID, in its group (-1: optional).
type timesParticipant struct {
	email, calendarID string
	group             int
}

// timesAsk is findTimes' input read and checked, before anything is read.
type timesAsk struct {
	people  []timesParticipant
	req     availability.Request
	spec    calendar.RangeSpec
	zone    string
	atLeast []int
}

// findTimes answers Query.findTimes: the input checked whole (nothing is
// read for bad input but the viewer's preferences, which sign-in loaded),
// then the people found by email, then their busy time
// (loader.TimesOf), then availability.Find.
func (r *Resolver) findTimes(ctx context.Context, in model.FindTimesInput) (*model.FindTimesResult, error) {
	ask, err := readTimesInput(ctx, in)
	if err != nil {
		return nil, err
	}
	var emails, calIDs []string
	for _, p := range ask.people {
		if p.email != "" {
			emails = append(emails, p.email)
		} else {
			calIDs = append(calIDs, p.calendarID)
		}
	}
	userIDs, err := r.peopleIDs(ctx, emails)
	if err != nil {
		return nil, err
	}
	ids := make(map[string]string, len(emails))
	for i, e := range emails {
		ids[e] = userIDs[i]
	}
	// Busy time matters from a buffer before the range to one after it.
	read := calendar.RangeSpec{TimeZone: ask.zone, From: ask.req.From.Add(-ask.req.BufferAfter), To: ask.req.To.Add(ask.req.BufferBefore)}
	var hours, opening map[string]*calendar.WorkingHours
	hoursErr := make(chan error, 1)
	go func() { // beside the users' memberships: the hours of those not counted are never used
		var err error
		hours, opening, err = r.Service.HoursOf(ctx, userIDs, calIDs)
		hoursErr <- err
	}()
	times, err := loader.For(ctx).TimesOf(ctx, calIDs, userIDs, read, ask.zone)
	if err := errors.Join(err, <-hoursErr); err != nil {
		return nil, err
	}
	viewer, err := calendar.ViewerID(ctx)
	if err != nil {
		return nil, err
	}
	// Now the participants themselves, in place of Validate's placeholders.
	ask.req.Groups, ask.req.Optional = make([]availability.Group, len(ask.atLeast)), nil
	for i, n := range ask.atLeast {
		ask.req.Groups[i].AtLeast = n
	}
	for _, p := range ask.people {
		var part availability.Participant
		if p.email != "" {
			id := ids[p.email]
			for _, c := range times.Owned[id] {
				part.Marks = appendMarks(part.Marks, times.Busy[c])
			}
			if id == viewer {
				part.Marks = appendMarks(part.Marks, times.Invited)
			}
			part.Hours = hours[id]
		} else {
			part.Marks = appendMarks(nil, times.Busy[p.calendarID])
			if times.Calendars[p.calendarID].IsResource {
				part.Hours = opening[p.calendarID] // a room's opening hours are its working hours
			}
		}
		if p.group < 0 {
			ask.req.Optional = append(ask.req.Optional, part)
		} else {
			ask.req.Groups[p.group].Participants = append(ask.req.Groups[p.group].Participants, part)
		}
	}
	return answerTimes(ctx, ask)
}

// appendMarks adds busy intervals to a participant's marks.
func appendMarks(marks []availability.Mark, busy []calendar.BusyInterval) []availability.Mark {
	for _, b := range busy {
		s := availability.Busy
		switch b.Status {
		case calendar.TransparencyTentative:
			s = availability.Tentative
		case calendar.TransparencyOutOfOffice:
			s = availability.OutOfOffice
		}
		marks = append(marks, availability.Mark{Start: b.Start, End: b.End, State: s})
	}
	return marks
}

// answerTimes runs the search and shapes its answer; when nothing suits,
// each group is tried alone to say which cannot meet even so.
func answerTimes(ctx context.Context, ask *timesAsk) (*model.FindTimesResult, error) {
	ans, err := availability.Find(ask.req)
	if err != nil {
		return nil, err
	}
	out := &model.FindTimesResult{TimeZone: ask.zone, MaxSlots: maxSlots, Slots: []*model.FindTimesSlot{}, GroupReasons: []*model.FindTimesGroupReason{}}
	for _, p := range ask.people {
		fp := &model.FindTimesParticipant{}
		if p.group >= 0 {
			fp.Group = &p.group
		}
		if p.email != "" {
			fp.Email = &p.email
		} else {
			c, err := loader.For(ctx).Calendar(ctx, p.calendarID) // loaded already
			if err != nil {
				return nil, err
			}
			fp.Calendar = model.CalendarOf(c)
		}
		out.Participants = append(out.Participants, fp)
	}
	for i, s := range ans.Slots {
		if i == maxSlots {
			out.Truncated = true
			break
		}
		slot := &model.FindTimesSlot{Start: s.Start, End: s.End}
		for _, st := range s.States {
			slot.States = append(slot.States, model.ParticipantState(st.String()))
		}
		out.Slots = append(out.Slots, slot)
	}
	if len(ans.Slots) > 0 {
		return out, nil
	}
	reason := model.FindTimesReason(ans.Reason.String())
	out.Reason = &reason
	for g := range ask.req.Groups {
		alone := ask.req
		alone.Groups, alone.Optional = alone.Groups[g:g+1], nil
		a, err := availability.Find(alone)
		if err != nil {
			return nil, err
		}
		if len(a.Slots) == 0 {
			out.GroupReasons = append(out.GroupReasons, &model.FindTimesGroupReason{Group: g, Reason: model.FindTimesReason(a.Reason.String())})
		}
	}
	return out, nil
}

// minutesOr reads an optional count of minutes, def when absent or null.
func minutesOr(v interface{ ValueOK() (*int, bool) }, def int) time.Duration {
	if n, ok := v.ValueOK(); ok && n != nil {
		return time.Duration(*n) * time.Minute
	}
	return time.Duration(def) * time.Minute
}
