package graph

import (
	"context"

	"github.com/calgraph/calgraph/graph/model"
	"github.com/calgraph/calgraph/internal/calendar"
)

// changeTypes maps the API's change types to the domain's, both ways.
var changeTypes = map[model.ChangeType]calendar.ObjectType{
	model.ChangeTypeCalendar: calendar.ObjectCalendar, model.ChangeTypeMembership: calendar.ObjectMembership, model.ChangeTypeEntry: calendar.ObjectEntry,
}

// calendarWebhook converts a calendar webhook for the API; its secret is
// no field of calendar.CalendarWebhook, so no read can return it.
func calendarWebhook(h *calendar.CalendarWebhook) *model.CalendarWebhook {
	out := &model.CalendarWebhook{ID: h.ID, URL: h.URL, State: model.WebhookState(h.State), CreatedAt: h.CreatedAt,
		DeliveryLog: reminderWebhook(&calendar.Webhook{Log: h.Log}).DeliveryLog}
	if h.CalendarID != "" {
		id := model.CalendarGID(h.CalendarID)
		out.CalendarID = &id
	}
	for _, c := range h.Calendars {
		out.CalendarIds = append(out.CalendarIds, model.CalendarGID(c))
	}
	for _, t := range h.Types {
		for m, d := range changeTypes {
			if d == t {
				out.Types = append(out.Types, m)
			}
		}
	}
	if !h.FailingSince.IsZero() {
		out.FailingSince = &h.FailingSince
	}
	return out
}

func calendarWebhooks(hs []*calendar.CalendarWebhook, err error) ([]*model.CalendarWebhook, error) {
	out := make([]*model.CalendarWebhook, len(hs))
	for i, h := range hs {
		out[i] = calendarWebhook(h)
	}
	return out, err
}

// hookSecret is what registerCalendarWebhook and rotateCalendarWebhookSecret
// keep for a replay: the secret included, as a replay must answer as the
// first request did.
type hookSecret struct {
	Webhook *calendar.CalendarWebhook
	Secret  string
}

func (h hookSecret) payload() *model.CalendarWebhookSecretPayload {
	return &model.CalendarWebhookSecretPayload{Webhook: calendarWebhook(h.Webhook), Secret: h.Secret}
}

// registerCalendarWebhook answers Mutation.registerCalendarWebhook.
func (r *Resolver) registerCalendarWebhook(ctx context.Context, in model.RegisterCalendarWebhookInput) (*model.CalendarWebhookSecretPayload, error) {
	n := calendar.NewCalendarWebhook{URL: in.URL}
	var err error
	if id := in.CalendarID.Value(); id != nil {
		if n.CalendarID, err = model.DecodeCalendarID("calendarId", *id); err != nil {
			return nil, err
		}
	}
	if n.Calendars, err = calendarIDs("calendarIds", in.CalendarIds.Value()); err != nil {
		return nil, err
	}
	for _, t := range in.Types.Value() {
		n.Types = append(n.Types, changeTypes[t])
	}
	got, err := once(ctx, r.Service, in.IdempotencyKey, func(ctx context.Context) (hookSecret, error) {
		h, secret, err := r.Service.RegisterCalendarWebhook(ctx, n)
		return hookSecret{h, secret}, err
	})
	if err != nil {
		return nil, err
	}
	return got.payload(), nil
}

// rotateCalendarWebhookSecret answers Mutation.rotateCalendarWebhookSecret.
func (r *Resolver) rotateCalendarWebhookSecret(ctx context.Context, in model.CalendarWebhookInput) (*model.CalendarWebhookSecretPayload, error) {
	got, err := once(ctx, r.Service, in.IdempotencyKey, func(ctx context.Context) (hookSecret, error) {
		h, secret, err := r.Service.RotateCalendarWebhookSecret(ctx, in.ID)
		return hookSecret{h, secret}, err
	})
	if err != nil {
		return nil, err
	}
	return got.payload(), nil
}

// redeliverWebhook answers Mutation.redeliverWebhook.
func (r *Resolver) redeliverWebhook(ctx context.Context, in model.RedeliverWebhookInput) (*model.CalendarWebhookPayload, error) {
	calID, err := model.DecodeCalendarID("calendarId", in.CalendarID)
	if err != nil {
		return nil, err
	}
	h, err := once(ctx, r.Service, in.IdempotencyKey, func(ctx context.Context) (*calendar.CalendarWebhook, error) {
		return r.Service.RedeliverCalendarWebhook(ctx, in.ID, calID, in.SyncToken)
	})
	if err != nil {
		return nil, err
	}
	return &model.CalendarWebhookPayload{Webhook: calendarWebhook(h)}, nil
}
