package graph

import (
	"context"

	"github.com/99designs/gqlgen/graphql"

	"github.com/calgraph/calgraph/graph/model"
	"github.com/calgraph/calgraph/internal/calendar"
	"github.com/calgraph/calgraph/internal/loader"
)

// page turns connection arguments into a page request; a null first means the
// default size.
func page(first *int, after *string) calendar.Page {
	p := calendar.Page{First: calendar.DefaultPageSize}
	if first != nil {
		p.First = *first
	}
	if after != nil {
		p.After = *after
	}
	return p
}

// pageInfo is a Relay connection's page info for a page with these cursors.
func pageInfo(cursors []string, endCursor string, hasNext bool) *model.PageInfo {
	info := &model.PageInfo{HasNextPage: hasNext}
	if len(cursors) > 0 {
		info.StartCursor = &cursors[0]
	}
	if endCursor != "" {
		info.EndCursor = &endCursor
	}
	return info
}

// membershipConnection converts a page to its Relay connection.
func membershipConnection(p *calendar.MembershipPage) *model.MembershipConnection {
	conn := &model.MembershipConnection{
		Edges:    make([]*model.MembershipEdge, len(p.Memberships)),
		PageInfo: pageInfo(p.Cursors, p.EndCursor, p.HasNextPage),
	}
	for i, m := range p.Memberships {
		conn.Edges[i] = &model.MembershipEdge{Cursor: p.Cursors[i], Node: m}
	}
	return conn
}

// orEmpty reads an optional input: omitted and null both give the zero value.
func orEmpty[T any](o graphql.Omittable[*T]) T {
	var zero T
	if v := o.Value(); v != nil {
		return *v
	}
	return zero
}

// notNull converts an optional field that may be omitted but not set to null.
func notNull[T any](field string, o graphql.Omittable[*T]) (calendar.Patch[T], error) {
	v, set := o.ValueOK()
	if !set {
		return calendar.Patch[T]{}, nil
	}
	if v == nil {
		return calendar.Patch[T]{}, calendar.Invalidf(field, "%s cannot be null; omit it to leave it unchanged", field)
	}
	return calendar.Set(*v), nil
}

// nullClears converts an optional field where null means "remove it".
func nullClears(o graphql.Omittable[*string]) calendar.Patch[string] {
	v, set := o.ValueOK()
	if !set {
		return calendar.Patch[string]{}
	}
	if v == nil {
		return calendar.Set("")
	}
	return calendar.Set(*v)
}

func invitationConnection(p *calendar.InvitationPage) *model.InvitationConnection {
	conn := &model.InvitationConnection{
		Edges:    make([]*model.InvitationEdge, len(p.Invitations)),
		PageInfo: pageInfo(p.Cursors, p.EndCursor, p.HasNextPage),
	}
	for i, inv := range p.Invitations {
		conn.Edges[i] = &model.InvitationEdge{Cursor: p.Cursors[i], Node: inv}
	}
	return conn
}

// invitationCreated is what createInvitation's write returns.
type invitationCreated struct {
	Invitation *calendar.Invitation
	Token      string
}

func newInvitation(in model.CreateInvitationInput) (calendar.NewInvitation, error) {
	id, err := model.DecodeCalendarID("calendarId", in.CalendarID)
	n := calendar.NewInvitation{CalendarID: id, Role: in.Role, ValidUntil: orEmpty(in.ValidUntil), MaxUses: orEmpty(in.MaxUses)}
	if v, set := in.MaxUses.ValueOK(); set && v == nil {
		return n, calendar.Invalidf("maxUses", "maxUses cannot be null; omit it for one use")
	}
	return n, err
}

func freeBusyView(v *loader.View, busy []loader.CalendarBusy) *model.FreeBusyView {
	out := &model.FreeBusyView{TimeZone: v.ZoneName, Start: v.Range.Start, End: v.Range.End}
	for i := range busy {
		b := &busy[i]
		if b.Busy == nil {
			b.Busy = []calendar.BusyInterval{}
		}
		out.Calendars = append(out.Calendars, b)
	}
	return out
}

// accountDeleted is what deleteAccount's writes return.
type accountDeleted struct {
	UserID    string
	Calendars []string
}

func deleteAccountPayload(d accountDeleted) *model.DeleteAccountPayload {
	out := &model.DeleteAccountPayload{DeletedUserID: model.UserGID(d.UserID), DeletedCalendarIds: []string{}}
	for _, id := range d.Calendars {
		out.DeletedCalendarIds = append(out.DeletedCalendarIds, model.CalendarGID(id))
	}
	return out
}

// calendarOut wraps a calendar a loader returned in its GraphQL type.
func calendarOut(c *calendar.Calendar, err error) (*model.Calendar, error) {
	return model.CalendarOf(c), err
}

// calendarDescription is the calendar's description for viewers who may read
// it: a FREE_BUSY member sees null.
func calendarDescription(ctx context.Context, c *calendar.Calendar) (*string, error) {
	if c.Description == "" {
		return nil, nil
	}
	role, err := loader.For(ctx).ViewerRole(ctx, c.ID)
	if calendar.ErrorCode(err) == calendar.CodeNotFound { // the calendar of an entry an invited non-member reads
		return nil, nil
	}
	if err != nil || !role.Can(calendar.ActionRead) {
		return nil, err
	}
	return &c.Description, nil
}
