package graph

import (
	"context"

	"github.com/calgraph/calgraph/graph/model"
	"github.com/calgraph/calgraph/internal/calendar"
	"github.com/calgraph/calgraph/internal/loader"
)

// node fetches any object by global ID through the authorizing loaders.
func node(ctx context.Context, gid string) (model.Node, error) {
	kind, _, err := model.DecodeGID("id", gid)
	if err != nil {
		return nil, err
	}
	l := loader.For(ctx)
	switch kind {
	case model.KindUser:
		id, err := model.DecodeAs("id", model.KindUser, gid)
		if err != nil {
			return nil, err
		}
		return l.User(ctx, id)
	case model.KindCalendar:
		id, err := model.DecodeCalendarID("id", gid)
		if err != nil {
			return nil, err
		}
		return calendarNode(l.Calendar(ctx, id))
	case model.KindMembership:
		key, err := model.DecodeMembershipID("id", gid)
		if err != nil {
			return nil, err
		}
		return l.Membership(ctx, key)
	case model.KindEntry:
		return entryNode(ctx, gid)
	case model.KindOccurrence:
		return occurrenceNode(ctx, gid)
	}
	return nil, calendar.Invalidf("id", "id is not a calgraph ID")
}

// calendarNode is a calendar as a node: nil (no node) when there is none, not
// a nil *model.Calendar, which an interface would hold as something.
func calendarNode(c *calendar.Calendar, err error) (model.Node, error) {
	if c == nil {
		return nil, err
	}
	return model.CalendarOf(c), err
}

func entryNode(ctx context.Context, gid string) (model.Node, error) {
	key, err := model.DecodeEntryID("id", gid)
	if err != nil {
		return nil, err
	}
	return onCalendar(ctx)(loader.For(ctx).Entry(ctx, key))
}

func occurrenceNode(ctx context.Context, gid string) (model.Node, error) {
	key, err := model.DecodeOccurrenceID("id", gid)
	if err != nil {
		return nil, err
	}
	return onCalendar(ctx)(loader.For(ctx).Occurrence(ctx, key))
}

// onCalendar wraps an entry a loader returned, on its calendar.
func onCalendar(ctx context.Context) func(*calendar.Entry, error) (model.Node, error) {
	return func(e *calendar.Entry, err error) (model.Node, error) {
		if err != nil {
			return nil, err
		}
		cal, err := loader.For(ctx).CalendarOfEntry(ctx, e)
		if err != nil {
			return nil, err
		}
		if e, err = visibleOne(ctx, e); err != nil {
			return nil, err
		}
		return model.EntryOf(e, cal), nil
	}
}

// calendarUpdate converts updateCalendar's input.
func calendarUpdate(in model.UpdateCalendarInput) (calendar.CalendarUpdate, error) {
	id, err := model.DecodeCalendarID("id", in.ID)
	if err != nil {
		return calendar.CalendarUpdate{}, err
	}
	u := calendar.CalendarUpdate{ID: id, ExpectedVersion: in.ExpectedVersion, Description: nullClears(in.Description)}
	if u.Name, err = notNull("name", in.Name); err != nil {
		return u, err
	}
	if u.Color, err = notNull("color", in.Color); err != nil {
		return u, err
	}
	if u.TimeZone, err = notNull("timeZone", in.TimeZone); err != nil {
		return u, err
	}
	u.IsResource, err = notNull("isResource", in.IsResource)
	return u, err
}
