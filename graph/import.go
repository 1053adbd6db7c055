package graph

import (
	"context"
	"slices"
	"strings"

	"github.com/99designs/gqlgen/graphql"

	"github.com/calgraph/calgraph/graph/model"
	"github.com/calgraph/calgraph/internal/calendar"
	"github.com/calgraph/calgraph/internal/ical"
	"github.com/calgraph/calgraph/internal/loader"
)

// importCalendar reads an iCalendar document, with floating times in the
// calendar's zone, and creates its entries through the service.
func importCalendar(ctx context.Context, svc calendar.Service, in model.ImportCalendarInput) (*model.ImportCalendarPayload, error) {
	id, err := model.DecodeCalendarID("calendarId", in.CalendarID)
	if err != nil {
		return nil, err
	}
	l := loader.For(ctx)
	cal, err := l.Calendar(ctx, id)
	if err != nil {
		return nil, err
	}
	role, err := l.ViewerRole(ctx, id)
	if err != nil {
		return nil, err
	}
	if !role.Can(calendar.ActionWriteEntries) {
		return nil, calendar.Errorf(calendar.CodeForbidden, "your role on this calendar (%s) cannot %s", role, calendar.ActionWriteEntries)
	}
	imp, err := ical.Decode(strings.NewReader(in.Ics), cal.TimeZone)
	if err != nil {
		return nil, err
	}
	if slices.ContainsFunc(imp.Items, func(it ical.Item) bool { return it.Organizer != nil }) {
		me, err := l.Viewer(ctx)
		if err != nil {
			return nil, err
		}
		imp.OrganizedBy(me.Email)
	}
	rep, err := once(ctx, svc, in.IdempotencyKey, func(ctx context.Context) (*ical.Report, error) {
		return ical.Apply(ctx, svc, id, imp)
	})
	if err != nil && (rep == nil || len(rep.Created) == 0) {
		return nil, err
	}
	if err != nil {
		// Stopped midway: the client must still learn what was created, or a
		// retry would create it twice.
		graphql.AddError(ctx, err)
	}
	out := &model.ImportCalendarPayload{
		Entries: model.EntriesOf(rep.Created, map[string]*calendar.Calendar{id: cal}),
		Errors:  make([]*model.ImportError, len(rep.Errors)),
	}
	for i, e := range rep.Errors {
		out.Errors[i] = &model.ImportError{Index: e.Index, Message: e.Message, Code: extensionCodes[e.Code], Imported: e.Imported}
		if e.UID != "" {
			out.Errors[i].UID = &e.UID
		}
	}
	return out, nil
}
