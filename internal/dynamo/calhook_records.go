package dynamo

import (
	"time"

	"github.com/calgraph/calgraph/internal/calendar"
)

// calHookRecord is a calendar webhook (calHookKey). The secret signs its
// deliveries and never leaves the store: webhook() drops it.
type calHookRecord struct {
	PK           string             `dynamodbav:"PK"`
	SK           string             `dynamodbav:"SK"`
	EntityType   string             `dynamodbav:"entityType"`
	ID           string             `dynamodbav:"id"`
	OwnerID      string             `dynamodbav:"ownerId"`
	CalendarID   string             `dynamodbav:"calendarId,omitempty"` // "" for every calendar the owner may read
	URL          string             `dynamodbav:"url"`
	Secret       string             `dynamodbav:"secret"`
	Calendars    []string           `dynamodbav:"calendars,omitempty"`
	Types        []int              `dynamodbav:"types,omitempty"`
	State        string             `dynamodbav:"state"`
	CreatedAt    time.Time          `dynamodbav:"createdAt"`
	FailingSince string             `dynamodbav:"failingSince,omitempty"` // an instantKey; absent while ACTIVE
	ResumedAt    int64              `dynamodbav:"resumedAt,omitempty"`    // Unix ms of the last resume
	Log          []webhookLogRecord `dynamodbav:"log,omitempty"`          // newest first, at most calendar.MaxWebhookLog
	LogSeq       int                `dynamodbav:"logSeq"`                 // raised by each log write, its condition
}

func (r calHookRecord) key() itemKey { return itemKey{r.PK, r.SK} }

func (r calHookRecord) webhook() *calendar.CalendarWebhook {
	h := &calendar.CalendarWebhook{ID: r.ID, OwnerID: r.OwnerID, CalendarID: r.CalendarID, URL: r.URL,
		Calendars: r.Calendars, State: calendar.WebhookState(r.State), CreatedAt: r.CreatedAt,
		FailingSince: failingSince(r.FailingSince), Log: attempts(r.Log)}
	for _, t := range r.Types {
		h.Types = append(h.Types, calendar.ObjectType(t))
	}
	return h
}

// cursorRecord is where a calendar webhook stands in one calendar's change
// log (calHookCursorKey): the sync token after what its receiver took, and
// the delivery under way, if any, kept whole so that every attempt (and a
// repeat after a crash) posts the same bytes under the same ID.
type cursorRecord struct {
	PK         string `dynamodbav:"PK"`
	SK         string `dynamodbav:"SK"`
	EntityType string `dynamodbav:"entityType"`
	WebhookID  string `dynamodbav:"webhookId"`
	OwnerID    string `dynamodbav:"ownerId"`
	CalendarID string `dynamodbav:"calendarId"`
	Token      string `dynamodbav:"token"`
	// Pending is the delivery being made; nil when the receiver has taken
	// everything up to Token that a read found.
	Pending    *hookDelivery `dynamodbav:"pending,omitempty"`
	LeaseUntil int64         `dynamodbav:"leaseUntil,omitempty"` // Unix ms; a worker holds it until then
	LeaseBy    string        `dynamodbav:"leaseBy,omitempty"`
}

// hookDelivery is a rendered delivery and the token it advances to.
type hookDelivery struct {
	ID   string `dynamodbav:"id"`
	Kind string `dynamodbav:"kind"`
	Body []byte `dynamodbav:"body"`
	Next string `dynamodbav:"next"`
	More bool   `dynamodbav:"more,omitempty"`
	// Since is when it was rendered (Unix ms): retried for
	// webhook.RetryFor from then (or from a resume); Due is when the next
	// attempt is due, and Tried when the last one was made.
	Since    int64 `dynamodbav:"since"`
	Due      int64 `dynamodbav:"due"`
	Tried    int64 `dynamodbav:"tried,omitempty"`
	Attempts int   `dynamodbav:"attempts"`
}

func (r cursorRecord) key() itemKey { return itemKey{r.PK, r.SK} }

func (r cursorRecord) hookKey() itemKey { return calHookKey(r.OwnerID, r.WebhookID) }
