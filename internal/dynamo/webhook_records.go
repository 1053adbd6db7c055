package dynamo

import (
	"strings"
	"time"

	"github.com/calgraph/calgraph/internal/calendar"
)

// webhookRecord is a webhook item (reminderWebhookKey). The secret is kept
// to sign deliveries and never leaves the store: webhook() drops it.
type webhookRecord struct {
	PK           string             `dynamodbav:"PK"`
	SK           string             `dynamodbav:"SK"`
	EntityType   string             `dynamodbav:"entityType"`
	UserID       string             `dynamodbav:"userId"`
	URL          string             `dynamodbav:"url"`
	Secret       string             `dynamodbav:"secret"`
	State        string             `dynamodbav:"state"`
	CreatedAt    time.Time          `dynamodbav:"createdAt"`
	FailingSince string             `dynamodbav:"failingSince,omitempty"` // an instantKey; absent while ACTIVE
	Waiting      int                `dynamodbav:"waiting"`
	Dropped      int                `dynamodbav:"dropped"`
	Log          []webhookLogRecord `dynamodbav:"log,omitempty"` // newest first, at most calendar.MaxWebhookLog
	LogSeq       int                `dynamodbav:"logSeq"`        // raised by each log write, its condition
}

// webhookLogRecord is one attempt of the delivery log.
type webhookLogRecord struct {
	DeliveryID string    `dynamodbav:"id"`
	At         time.Time `dynamodbav:"at"`
	Status     int       `dynamodbav:"status,omitempty"`
	LatencyMs  int64     `dynamodbav:"ms"`
	Error      string    `dynamodbav:"error,omitempty"`
}

func (r webhookRecord) webhook() *calendar.Webhook {
	return &calendar.Webhook{URL: r.URL, State: calendar.WebhookState(r.State), CreatedAt: r.CreatedAt,
		Waiting: r.Waiting, Dropped: r.Dropped, FailingSince: failingSince(r.FailingSince), Log: attempts(r.Log)}
}

// failingSince reads a webhook's failingSince: zero while it is ACTIVE.
func failingSince(s string) time.Time {
	t, _ := time.Parse(time.RFC3339Nano, s)
	return t
}

// attempts reads a webhook's delivery log (never nil: the API lists it).
func attempts(log []webhookLogRecord) []calendar.WebhookAttempt {
	out := []calendar.WebhookAttempt{}
	for _, l := range log {
		out = append(out, calendar.WebhookAttempt{DeliveryID: l.DeliveryID, At: l.At, Status: l.Status,
			Latency: time.Duration(l.LatencyMs) * time.Millisecond, Error: l.Error})
	}
	return out
}

// outboxRecord is a delivery, queued (webhookQueueKey) or waiting for a
// FAILING webhook (webhookWaitingKey).
type outboxRecord struct {
	PK         string `dynamodbav:"PK"`
	SK         string `dynamodbav:"SK"`
	EntityType string `dynamodbav:"entityType"`
	// HookPK and HookSK are the webhook's key: where the worker reads the
	// URL and secret at each attempt (so a new URL or secret applies to
	// deliveries already queued).
	HookPK     string `dynamodbav:"hookPK"`
	HookSK     string `dynamodbav:"hookSK"`
	DeliveryID string `dynamodbav:"deliveryId"`
	Event      string `dynamodbav:"event"`
	Body       []byte `dynamodbav:"body"`
	// Since is when it was first due: after webhook.RetryFor of failures
	// from then, its webhook is marked FAILING.
	Since      time.Time `dynamodbav:"since"`
	Attempts   int       `dynamodbav:"attempts"`
	LeaseUntil int64     `dynamodbav:"leaseUntil,omitempty"` // Unix ms; a worker holds it until then
	LeaseBy    string    `dynamodbav:"leaseBy,omitempty"`
}

func (r outboxRecord) hook() itemKey { return itemKey{PK: r.HookPK, SK: r.HookSK} }

// checkWebhookItem reports a webhook or delivery item that does not read
// back whole: a webhook without URL or secret or in no known state, or
// counting fewer than no deliveries waiting; a delivery without ID or
// webhook, or waiting outside its webhook's partition.
func (c *checker) checkWebhookItem(it item) error {
	if stringAttr(it, "entityType") == entityWebhook {
		r, err := unmarshal[webhookRecord](it)
		if err != nil {
			return err
		}
		switch calendar.WebhookState(r.State) {
		case calendar.WebhookActive, calendar.WebhookFailing:
		default:
			c.problem("webhook %s/%s: state %q", r.PK, r.SK, r.State)
		}
		if r.URL == "" || r.Secret == "" || len(r.Log) > calendar.MaxWebhookLog {
			c.problem("webhook %s/%s: url %q, a secret of %d bytes, %d logged", r.PK, r.SK, r.URL, len(r.Secret), len(r.Log))
		}
		seen := c.hook(itemKey{r.PK, r.SK})
		seen.found, seen.userID, seen.counted = true, r.UserID, r.Waiting
		return nil
	}
	r, err := unmarshal[outboxRecord](it)
	if err != nil {
		return err
	}
	if r.DeliveryID == "" || r.HookPK == "" || r.HookSK == "" {
		c.problem("delivery %s/%s: id %q of webhook %s/%s", r.PK, r.SK, r.DeliveryID, r.HookPK, r.HookSK)
	}
	if r.EntityType == entityWebhookWaiting {
		if r.PK != r.HookPK {
			c.problem("delivery %s/%s waits outside its webhook's partition %s", r.PK, r.SK, r.HookPK)
		}
		c.hook(r.hook()).waiting++
	}
	return nil
}

// hookSeen is what the checker found of a webhook: the item (its user and
// waiting count) and the deliveries waiting for it.
type hookSeen struct {
	found   bool
	userID  string
	counted int
	waiting int
}

func (c *checker) hook(k itemKey) *hookSeen {
	if c.hooks[k] == nil {
		c.hooks[k] = &hookSeen{}
	}
	return c.hooks[k]
}

// checkWebhooks reports webhooks of no user, waiting counts that are not
// the deliveries waiting, and deliveries waiting for no webhook (but those
// of a user whose deletion is under way, which finishes them).
func (c *checker) checkWebhooks() {
	for k, h := range c.hooks {
		userID := strings.TrimPrefix(k.PK, userPartition(""))
		switch {
		case c.pending[pendingUser+"#"+userID]:
		case !h.found:
			c.problem("%d deliveries wait for webhook %s/%s, which does not exist", h.waiting, k.PK, k.SK)
		case h.counted != h.waiting:
			c.problem("webhook %s/%s counts %d deliveries waiting, %d do", k.PK, k.SK, h.counted, h.waiting)
		case c.users[h.userID].ID == "" || h.userID != userID:
			c.problem("webhook %s/%s of user %q, who does not exist", k.PK, k.SK, h.userID)
		}
	}
}
