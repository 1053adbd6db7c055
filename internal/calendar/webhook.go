package calendar

import (
	"context"
	"time"
)

// WebhookState is whether a webhook is being delivered to.
type WebhookState string

// The webhook states.
const (
	// WebhookActive webhooks get their deliveries, retried on failure.
	WebhookActive WebhookState = "ACTIVE"
	// WebhookFailing webhooks failed every attempt of a delivery for
	// longer than a day: their deliveries wait, kept, until the user
	// resumes the webhook (or registers it again). Never deleted, never
	// expiring.
	WebhookFailing WebhookState = "FAILING"
)

// MaxWebhookLog is how many of a webhook's latest attempts its delivery
// log keeps; older ones are dropped as new ones come.
const MaxWebhookLog = 20

// MaxWebhookWaiting is how many deliveries may wait for a FAILING webhook;
// past it, further deliveries are dropped and counted (Webhook.Dropped)
// instead of piling up for a receiver that may never come back.
const MaxWebhookWaiting = 1000

// Webhook is a URL of the user's own server that calgraph posts signed
// deliveries to. Its signing secret is given once, when it is registered,
// and never shown again.
type Webhook struct {
	URL       string
	State     WebhookState
	CreatedAt time.Time
	// FailingSince is when it was marked FAILING (zero while ACTIVE).
	FailingSince time.Time
	// Waiting counts the deliveries waiting for a FAILING webhook; Dropped
	// those dropped past MaxWebhookWaiting.
	Waiting, Dropped int
	// Log is its latest attempts, newest first, at most MaxWebhookLog.
	Log []WebhookAttempt
}

// WebhookAttempt is one attempt at a delivery: when, the receiver's HTTP
// status (0 when none came), how long it took and why it failed ("" when
// the receiver took it).
type WebhookAttempt struct {
	DeliveryID string
	At         time.Time
	Status     int
	Latency    time.Duration
	Error      string
}

// ReminderWebhookService keeps the viewer's reminder webhook: where the
// reminders they set with the WEBHOOK method are posted.
type ReminderWebhookService interface {
	// RegisterReminderWebhook registers url as the viewer's reminder
	// webhook with a new signing secret, replacing the one they had (which
	// rotates the secret), and resumes it if it was FAILING. It returns the
	// webhook and the secret, which nothing returns again. Errors:
	// CodeUnauthenticated, CodeInvalid (field url).
	RegisterReminderWebhook(ctx context.Context, url string) (*Webhook, string, error)
	// ReminderWebhook returns userID's reminder webhook, nil when none.
	ReminderWebhook(ctx context.Context, userID string) (*Webhook, error)
	// DeleteReminderWebhook removes the viewer's reminder webhook and the
	// deliveries waiting for it; false when there was none. Errors:
	// CodeUnauthenticated, CodeUnavailable (deliveries kept arriving while
	// it was being deleted: try again).
	DeleteReminderWebhook(ctx context.Context) (bool, error)
	// ResumeReminderWebhook makes the viewer's reminder webhook ACTIVE and
	// sends the deliveries that waited for it again. Errors:
	// CodeUnauthenticated, CodeNotFound (none registered).
	ResumeReminderWebhook(ctx context.Context) (*Webhook, error)
}
