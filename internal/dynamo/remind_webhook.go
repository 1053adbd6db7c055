package dynamo

import (
	"encoding/json"
	"time"

	"github.com/calgraph/calgraph/internal/calendar"
	"github.com/calgraph/calgraph/internal/webhook"
)

// A reminder with the WEBHOOK method is also posted to its user's reminder
// webhook: the firing transaction adds the outbox item (webhookOutboxPut),
// so it is queued exactly when the alert is written, once, with the
// alert's ID as its delivery ID (what receivers deduplicate by). Its body
// is what AlertBody makes of the alert and the occurrence it reminds of;
// the server's is the GraphQL layer's (the API's global IDs), set with
// WithAlertBody.

// AlertBody renders the body of a reminder's webhook delivery.
type AlertBody func(a *calendar.Alert, occurrence *calendar.Entry) ([]byte, error)

// WithAlertBody sets how reminders' webhook deliveries are rendered.
func WithAlertBody(f AlertBody) Option { return func(s *Store) { s.alertBody = f } }

// plainAlertBody is the body of a store without WithAlertBody (tests): the
// alert and the occurrence with the store's own IDs.
func plainAlertBody(a *calendar.Alert, occ *calendar.Entry) ([]byte, error) {
	return json.Marshal(map[string]any{"event": "reminder", "id": a.ID.String(), "calendarId": a.CalendarID,
		"entryId": a.EntryID, "dueAt": a.DueAt, "start": a.Start, "minutes": a.Reminder.Minutes, "title": occ.Title})
}

// webhookOfAlert is the outbox action of an alert with the WEBHOOK method,
// none for one without.
func (s *Store) webhookOfAlert(a *calendar.Alert, occ *calendar.Entry, now time.Time) ([]txOp, error) {
	if a.Reminder.Method != calendar.ReminderWebhook {
		return nil, nil
	}
	render := s.alertBody
	if render == nil {
		render = plainAlertBody
	}
	body, err := render(a, occ)
	if err != nil {
		return nil, err
	}
	return []txOp{webhookOutboxPut(a.UserID, webhook.Delivery{ID: a.ID.String(), Event: "reminder", Body: body}, now)}, nil
}
