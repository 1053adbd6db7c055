package calendar

import (
	"context"
	"time"
)

// MaxCalendarWebhooks bounds the calendar webhooks one user holds, those on
// single calendars and those for everything they can read together, so
// that what each write wakes and each sweep reads stays bounded.
const MaxCalendarWebhooks = 10

// The kinds of a calendar webhook's deliveries (the body's "kind").
const (
	// HookChanges carries a calendar's changes, as Calendar.changes
	// returns them, and the sync token after them.
	HookChanges = "CHANGES"
	// HookSyncTokenExpired says the webhook's place in the calendar's
	// change log is older than the log's retention: the receiver reads the
	// calendar whole (Calendar.changes without a token); deliveries go on
	// from the token it carries.
	HookSyncTokenExpired = "SYNC_TOKEN_EXPIRED"
	// HookAccessLost says the webhook's owner may no longer read the
	// calendar (removed, demoted to FREE_BUSY, the calendar deleted):
	// nothing more of it is delivered.
	HookAccessLost = "ACCESS_LOST"
)

// CalendarWebhook is a URL that a calendar's changes are posted to, signed:
// those of one calendar (CalendarID set, registered by an owner) or of
// every calendar its owner can read (CalendarID ""), now and later.
type CalendarWebhook struct {
	ID      string
	OwnerID string
	// CalendarID is the one calendar followed; "" follows every calendar
	// the owner may read.
	CalendarID string
	URL        string
	// Calendars and Types filter what is delivered: only these calendars
	// (of a webhook for everything) and these kinds of objects; empty for
	// all.
	Calendars []string
	Types     []ObjectType
	State     WebhookState
	CreatedAt time.Time
	// FailingSince is when it was marked FAILING (zero while ACTIVE).
	FailingSince time.Time
	// Log is its latest attempts, newest first, at most MaxWebhookLog.
	Log []WebhookAttempt
}

// Follows reports whether h delivers the changes of calendarID.
func (h *CalendarWebhook) Follows(calendarID string) bool {
	if h.CalendarID != "" {
		return h.CalendarID == calendarID
	}
	if len(h.Calendars) == 0 {
		return true
	}
	for _, c := range h.Calendars {
		if c == calendarID {
			return true
		}
	}
	return false
}

// Delivers reports whether h delivers a change of an object of type t.
func (h *CalendarWebhook) Delivers(t ObjectType) bool {
	if len(h.Types) == 0 {
		return true
	}
	for _, x := range h.Types {
		if x == t {
			return true
		}
	}
	return false
}

// HookRequest is what a calendar webhook's delivery is rendered from:
// for HookChanges, the changes of CalendarID after Token, at most
// First, as OwnerID may read them and of Types (all when empty); for the
// other kinds, the notice alone (Token is then the one to go on from).
type HookRequest struct {
	Kind       string
	WebhookID  string
	OwnerID    string
	CalendarID string
	Token      string
	First      int
	Types      []ObjectType
}

// HookBody is a rendered delivery: its JSON body, how many changes
// it carries (those the filter kept), and the sync token after them (Next),
// with More when the log holds more after it.
type HookBody struct {
	Body  []byte
	Count int
	Next  string
	More  bool
}

// NewCalendarWebhook is what registerCalendarWebhook asks for.
type NewCalendarWebhook struct {
	CalendarID string // "" for every calendar the viewer can read
	URL        string
	Calendars  []string
	Types      []ObjectType
}

// CalendarWebhookService keeps calendar webhooks. Every method acts as the
// viewer, on the viewer's own webhooks (or, for Calendar webhooks, those
// of a calendar they own).
type CalendarWebhookService interface {
	// RegisterCalendarWebhook registers a webhook and returns it with its
	// signing secret, which nothing returns again. Errors:
	// CodeUnauthenticated, CodeNotFound (a calendar the viewer cannot
	// see), CodeForbidden (not its owner), CodeInvalid (fields url,
	// calendarIds, types; or MaxCalendarWebhooks reached).
	RegisterCalendarWebhook(ctx context.Context, in NewCalendarWebhook) (*CalendarWebhook, string, error)
	// CalendarWebhooks returns the viewer's webhooks, oldest first.
	CalendarWebhooks(ctx context.Context) ([]*CalendarWebhook, error)
	// WebhooksOfCalendar returns the webhooks registered on calendarID;
	// owners only (CodeForbidden, CodeNotFound).
	WebhooksOfCalendar(ctx context.Context, calendarID string) ([]*CalendarWebhook, error)
	// DeleteCalendarWebhook deletes the viewer's webhook id; false when
	// there was none.
	DeleteCalendarWebhook(ctx context.Context, id string) (bool, error)
	// RotateCalendarWebhookSecret gives webhook id a new signing secret,
	// returned once; deliveries not yet taken are signed with it.
	// CodeNotFound without it.
	RotateCalendarWebhookSecret(ctx context.Context, id string) (*CalendarWebhook, string, error)
	// ResumeCalendarWebhook makes a FAILING webhook ACTIVE: its deliveries
	// go on from where they stopped. CodeNotFound without it.
	ResumeCalendarWebhook(ctx context.Context, id string) (*CalendarWebhook, error)
	// RedeliverCalendarWebhook restarts webhook id's deliveries of
	// calendarID from syncToken (a token of Calendar.changes). Errors:
	// CodeNotFound, CodeInvalid (field syncToken, or calendarId when the
	// webhook does not follow it), CodeSyncTokenExpired.
	RedeliverCalendarWebhook(ctx context.Context, id, calendarID, syncToken string) (*CalendarWebhook, error)
}
