package graph

import (
	"context"

	"github.com/calgraph/calgraph/graph/model"
	"github.com/calgraph/calgraph/internal/calendar"
)

// reminderWebhook converts a webhook for the API; its secret is no field
// of calendar.Webhook, so no read can return it.
func reminderWebhook(h *calendar.Webhook) *model.ReminderWebhook {
	if h == nil {
		return nil
	}
	out := &model.ReminderWebhook{URL: h.URL, State: model.WebhookState(h.State), CreatedAt: h.CreatedAt,
		WaitingDeliveries: h.Waiting, DroppedDeliveries: h.Dropped, DeliveryLog: []*model.WebhookAttempt{}}
	if !h.FailingSince.IsZero() {
		out.FailingSince = &h.FailingSince
	}
	for _, a := range h.Log {
		m := &model.WebhookAttempt{DeliveryID: a.DeliveryID, AttemptedAt: a.At, LatencyMs: int(a.Latency.Milliseconds())}
		if a.Status != 0 {
			m.HTTPStatus = &a.Status
		}
		if a.Error != "" {
			m.Error = &a.Error
		}
		out.DeliveryLog = append(out.DeliveryLog, m)
	}
	return out
}

// viewerReminderWebhook answers Viewer.reminderWebhook: only ever the
// viewer's own.
func (r *Resolver) viewerReminderWebhook(ctx context.Context) (*model.ReminderWebhook, error) {
	viewer, err := calendar.ViewerID(ctx)
	if err != nil {
		return nil, err
	}
	h, err := r.Service.ReminderWebhook(ctx, viewer)
	return reminderWebhook(h), err
}

// registered is what registerReminderWebhook keeps for a replay: the
// secret included, as the replay of a request must answer as it did.
type registered struct {
	Webhook *calendar.Webhook
	Secret  string
}

// registerReminderWebhook answers Mutation.registerReminderWebhook.
func (r *Resolver) registerReminderWebhook(ctx context.Context, in model.RegisterReminderWebhookInput) (*model.RegisterReminderWebhookPayload, error) {
	got, err := once(ctx, r.Service, in.IdempotencyKey, func(ctx context.Context) (registered, error) {
		h, secret, err := r.Service.RegisterReminderWebhook(ctx, in.URL)
		return registered{h, secret}, err
	})
	if err != nil {
		return nil, err
	}
	return &model.RegisterReminderWebhookPayload{ReminderWebhook: reminderWebhook(got.Webhook), Secret: got.Secret}, nil
}
