package graph

import (
	"context"

	"github.com/calgraph/calgraph/graph/model"
	"github.com/calgraph/calgraph/internal/calendar"
	"github.com/calgraph/calgraph/internal/loader"
)

// The viewer's own settings of their calendars (calendar.Settings): shown
// only on their own membership, which is the one rule that keeps them
// private wherever a membership is shown (lists, node(id:), changes, live
// deliveries shared between subscribers).

// membershipSettings resolves Membership.settings: the viewer's own, with
// the calendar they fall back to; null on anyone else's membership and
// where they were not read.
func membershipSettings(ctx context.Context, m *calendar.Membership) (*model.CalendarSettings, error) {
	viewer, err := calendar.ViewerID(ctx)
	if err != nil || m.UserID != viewer || m.Settings == nil {
		return nil, err
	}
	c, err := loader.For(ctx).CalendarOf(ctx, m)
	if err != nil {
		return nil, err
	}
	return model.CalendarSettingsOf(*m.Settings, c), nil
}

// settingsUpdate converts updateCalendarSettings' input.
func settingsUpdate(in model.UpdateCalendarSettingsInput) (calendar.SettingsUpdate, error) {
	id, err := model.DecodeCalendarID("calendarId", in.CalendarID)
	if err != nil {
		return calendar.SettingsUpdate{}, err
	}
	u := calendar.SettingsUpdate{CalendarID: id, ExpectedVersion: in.ExpectedVersion, SortKey: nullClears(in.SortKey)}
	if v, set := in.Color.ValueOK(); set {
		u.Color = calendar.Set(v)
	}
	if v, set := in.Name.ValueOK(); set {
		u.Name = calendar.Set(v)
	}
	if v, set := in.Hidden.ValueOK(); set {
		u.Hidden = calendar.Set(v != nil && *v)
	}
	if v, set := in.Selected.ValueOK(); set {
		u.Selected = calendar.Set(v == nil || *v)
	}
	if v, set := in.DefaultReminders.ValueOK(); set {
		rs := make([]calendar.Reminder, len(v))
		for i, r := range v {
			rs[i] = calendar.Reminder{Minutes: r.Minutes, Method: orEmpty(r.Method)}
		}
		u.DefaultReminders = calendar.Set(rs)
	}
	return u, nil
}
