package graph

import (
	"context"

	"github.com/calgraph/calgraph/graph/model"
	"github.com/calgraph/calgraph/internal/calendar"
	"github.com/calgraph/calgraph/internal/live"
	"github.com/calgraph/calgraph/internal/loader"
)

// changes converts changed objects of a calendar; cal is the calendar as
// the request read it, if it did (a change of it among cs is newer).
func changes(cs []calendar.ObjectChange, cal *calendar.Calendar) []*model.Change {
	cal = newestCalendar(cs, cal)
	out := make([]*model.Change, len(cs))
	for i, c := range cs {
		m := &model.Change{Deleted: c.Deleted, Object: c, Calendar: cal}
		switch c.Type {
		case calendar.ObjectCalendar:
			m.Type, m.ID = model.ChangeTypeCalendar, model.CalendarGID(c.ID)
		case calendar.ObjectMembership:
			m.Type, m.ID = model.ChangeTypeMembership, model.MembershipGID(calendar.MembershipKey{CalendarID: c.CalendarID, UserID: c.ID})
		default:
			m.Type, m.ID = model.ChangeTypeEntry, model.EntryGID(calendar.EntryKey{CalendarID: c.CalendarID, EntryID: c.ID})
		}
		out[i] = m
	}
	return out
}

// newestCalendar is the calendar as a change of it among cs has it, else
// cal.
func newestCalendar(cs []calendar.ObjectChange, cal *calendar.Calendar) *calendar.Calendar {
	for _, c := range cs {
		if c.Calendar != nil {
			cal = c.Calendar
		}
	}
	return cal
}

// changeCalendar is the calendar of a change's entry: as the request read
// it, else through the loaders.
func changeCalendar(ctx context.Context, c *model.Change) (*calendar.Calendar, error) {
	if c.Calendar != nil {
		return c.Calendar, nil
	}
	return loader.For(ctx).Calendar(ctx, c.Object.CalendarID)
}

// changeNode resolves Change.node.
func changeNode(ctx context.Context, c *model.Change) (model.Node, error) {
	o := c.Object
	switch {
	case c.Deleted:
		return nil, nil
	case o.Type == calendar.ObjectCalendar:
		return calendarNode(o.Calendar, nil)
	case o.Type == calendar.ObjectMembership:
		return o.Membership, nil
	case c.Invited:
		return invitedEntry(ctx, calendar.EntryKey{CalendarID: o.CalendarID, EntryID: o.ID})
	}
	cal, err := changeCalendar(ctx, c)
	if err != nil {
		return nil, err
	}
	e, err := visibleOne(ctx, o.Entry)
	if err != nil {
		return nil, err
	}
	return model.EntryOf(e, cal), nil
}

// changeExceptions resolves Change.exceptions: a series' exceptions as
// occurrences.
func changeExceptions(ctx context.Context, c *model.Change) ([]model.Entry, error) {
	s := c.Object.Series
	if c.Deleted || s == nil {
		return nil, nil
	}
	cal, err := changeCalendar(ctx, c)
	if err != nil {
		return nil, err
	}
	occs := make([]*calendar.Entry, len(s.Exceptions))
	for i, x := range s.Exceptions {
		occs[i] = s.Master.OccurrenceAt(x.OriginalStart).Overlay(x)
	}
	if occs, err = visible(ctx, occs); err != nil {
		return nil, err
	}
	out := make([]model.Entry, len(occs))
	for i, o := range occs {
		out[i] = model.EntryOf(o, cal)
	}
	return out, nil
}

func listPage(p *calendar.CalendarListPage) *model.CalendarListChangePage {
	out := &model.CalendarListChangePage{HasMore: p.More, SyncToken: p.Token, Changes: []*model.CalendarListChange{}}
	for _, c := range p.Changes {
		out.Changes = append(out.Changes, &model.CalendarListChange{CalendarID: model.CalendarGID(c.CalendarID), Removed: c.Removed, Membership: c.Membership})
	}
	return out
}

// invitationPage converts a page of the viewer's invitation changes.
func invitationPage(p *calendar.InvitationChangePage) *model.InvitationChangePage {
	out := &model.InvitationChangePage{HasMore: p.More, SyncToken: p.Token, Changes: []*model.InvitationChange{}}
	for _, c := range p.Changes {
		out.Changes = append(out.Changes, &model.InvitationChange{EntryID: model.EntryGID(c.Entry), Removed: c.Removed, Invitation: c.Attendee})
	}
	return out
}

// syncArgs reads a sync field's arguments.
func syncArgs(syncToken *string, first *int) (string, int) {
	token := ""
	if syncToken != nil {
		token = *syncToken
	}
	n := calendar.DefaultChangePage
	if first != nil {
		n = *first
	}
	return token, n
}

// calendarChanges starts Subscription.calendarChanges: it decodes the
// arguments, subscribes, and converts each delivery.
func (r *Resolver) calendarChanges(ctx context.Context, calendarIDs []string, resume []*model.CalendarSyncTokenInput, resumeInvitations *string) (<-chan *model.ChangeDelivery, error) {
	if r.Live == nil {
		return nil, calendar.Errorf(calendar.CodeInternal, "live delivery is not running")
	}
	f := live.Follow{Resume: map[string]string{}}
	if resumeInvitations != nil {
		if *resumeInvitations == "" {
			return nil, calendar.Invalidf("resumeInvitations", "resumeInvitations must be a token, or be omitted")
		}
		f.ResumeInvitations = *resumeInvitations
	}
	if calendarIDs != nil {
		if len(calendarIDs) == 0 {
			return nil, calendar.Invalidf("calendarIds", "calendarIds must name at least one calendar, or be omitted to follow all")
		}
		ids, err := decodeCalendarIDs("calendarIds", calendarIDs)
		if err != nil {
			return nil, err
		}
		f.CalendarIDs = ids
	}
	for _, in := range resume {
		id, err := model.DecodeCalendarID("resume", in.CalendarID)
		if err != nil {
			return nil, err
		}
		f.Resume[id] = in.SyncToken
	}
	release, err := holdSubscription(ctx)
	if err != nil {
		return nil, err
	}
	sub, err := r.Live.Subscribe(ctx, f)
	if err != nil {
		release()
		return nil, err
	}
	out := make(chan *model.ChangeDelivery)
	go func() {
		defer release()
		defer close(out)
		for d := range sub.Deliveries() {
			select {
			case out <- delivery(d):
			case <-ctx.Done():
				return
			}
		}
		r.subscriptionEnded(ctx, sub.Err())
	}()
	return out, nil
}

// delivery converts a delivery, with what it knows and shares for its
// changes to resolve (deliveryChanges).
func delivery(d live.Delivery) *model.ChangeDelivery {
	cal := newestCalendar(d.Changes, d.Calendar)
	out := &model.ChangeDelivery{CalendarID: model.CalendarGID(d.CalendarID), Changes: changes(d.Changes, cal),
		KnownCalendar: cal, KnownMembership: d.Membership}
	if d.Shared != nil {
		out.Shared = d.Shared.Value(func() any { return loader.NewShared() }).(*loader.Shared)
	}
	switch d.Kind {
	case live.Changes:
		out.Kind, out.SyncToken = model.DeliveryKindChanges, &d.Token
	case live.Joined:
		out.Kind = model.DeliveryKindJoined
	case live.Settings:
		out.Kind = model.DeliveryKindSettings
	case live.Invited:
		out.Kind, out.Invited = model.DeliveryKindInvitation, true
		if d.Token != "" {
			out.SyncToken = &d.Token
		}
		for _, c := range out.Changes {
			c.Invited = true
		}
	default:
		out.Kind = model.DeliveryKindEnded
	}
	return out
}

// deliveryChanges resolves ChangeDelivery.changes, readying the delivery's
// loaders first: the calendar and the viewer's membership as the delivery
// knows them are primed (the subscription authorized the delivery with that
// membership, from the same change log), and whatever else the subscriber
// selects is read through the cache every delivery of the same read shares.
// So a delivery reads nothing for itself that the change's read holds, and
// the rest once per instance, whatever the number of subscribers.
func deliveryChanges(ctx context.Context, d *model.ChangeDelivery) []*model.Change {
	l := loader.For(ctx)
	if d.Shared != nil {
		l.ReadThrough(d.Shared)
	}
	if d.KnownCalendar != nil {
		l.PrimeCalendar(ctx, d.KnownCalendar)
	}
	if d.KnownMembership != nil {
		l.PrimeMembership(ctx, d.KnownMembership)
	}
	return d.Changes
}
