package graph

import (
	"context"
	"encoding/json"
	"time"

	"github.com/calgraph/calgraph/graph/model"
	"github.com/calgraph/calgraph/internal/calendar"
	"github.com/calgraph/calgraph/internal/loader"
)

// snoozeReminder runs Mutation.snoozeReminder.
func (r *Resolver) snoozeReminder(ctx context.Context, in model.SnoozeReminderInput) (*model.ReminderAlertPayload, error) {
	a, err := once(ctx, r.Service, in.IdempotencyKey, func(ctx context.Context) (*calendar.Alert, error) {
		return r.Service.SnoozeAlert(ctx, in.ID, in.Minutes.Value(), in.Until.Value())
	})
	if err != nil {
		return nil, err
	}
	return &model.ReminderAlertPayload{Alert: a}, nil
}

// dismissReminder runs Mutation.dismissReminder.
func (r *Resolver) dismissReminder(ctx context.Context, in model.DismissReminderInput) (*model.ReminderAlertPayload, error) {
	a, err := once(ctx, r.Service, in.IdempotencyKey, func(ctx context.Context) (*calendar.Alert, error) {
		return r.Service.DismissAlert(ctx, in.ID)
	})
	if err != nil {
		return nil, err
	}
	return &model.ReminderAlertPayload{Alert: a}, nil
}

// reminderAlerts runs Viewer.reminderAlerts.
func (r *Resolver) reminderAlerts(ctx context.Context, includeDismissed *bool, first *int, after *string) (*model.ReminderAlertConnection, error) {
	p, err := r.Service.Alerts(ctx, includeDismissed != nil && *includeDismissed, page(first, after))
	if err != nil {
		return nil, err
	}
	conn := &model.ReminderAlertConnection{Edges: make([]*model.ReminderAlertEdge, len(p.Alerts))}
	end := ""
	for i, a := range p.Alerts {
		conn.Edges[i] = &model.ReminderAlertEdge{Cursor: p.Cursors[i], Node: a}
		end = p.Cursors[i]
	}
	conn.PageInfo = pageInfo(p.Cursors, end, p.HasNextPage)
	return conn, nil
}

// alertEntry resolves ReminderAlert.entry: the entry or occurrence as the
// viewer reads it now, or null when it is gone or they no longer read it.
func alertEntry(ctx context.Context, a *calendar.Alert) (model.Entry, error) {
	l := loader.For(ctx)
	var e *calendar.Entry
	var err error
	if a.OriginalStart.IsZero() {
		e, err = l.Entry(ctx, calendar.EntryKey{CalendarID: a.CalendarID, EntryID: a.EntryID})
	} else {
		e, err = l.Occurrence(ctx, calendar.OccurrenceKey{CalendarID: a.CalendarID, SeriesID: a.EntryID, OriginalStart: a.OriginalStart})
	}
	n, err := onCalendar(ctx)(e, err)
	switch code := calendar.ErrorCode(err); {
	case err == nil:
		return n.(model.Entry), nil
	case code == calendar.CodeNotFound || code == calendar.CodeForbidden:
		return nil, nil
	default:
		return nil, err
	}
}

// optionalTime is t, or null when it is zero.
func optionalTime(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	return &t
}

// reminders starts Subscription.reminders.
func (r *Resolver) reminders(ctx context.Context, resume *string) (<-chan *model.ReminderDelivery, error) {
	if r.Live == nil {
		return nil, calendar.Errorf(calendar.CodeInternal, "live delivery is not running")
	}
	from := ""
	if resume != nil {
		if *resume == "" {
			return nil, calendar.Invalidf("resume", "resume must be a token, or be omitted")
		}
		from = *resume
	}
	release, err := holdSubscription(ctx)
	if err != nil {
		return nil, err
	}
	sub, err := r.Live.SubscribeReminders(ctx, from)
	if err != nil {
		release()
		return nil, err
	}
	out := make(chan *model.ReminderDelivery)
	go func() {
		defer release()
		defer close(out)
		for d := range sub.Deliveries() {
			select {
			case out <- &model.ReminderDelivery{Alerts: d.Alerts, SyncToken: d.Token}:
			case <-ctx.Done():
				return
			}
		}
		r.subscriptionEnded(ctx, sub.Err())
	}()
	return out, nil
}

// ReminderWebhookBody is the body of a reminder's webhook delivery
// (dynamo.WithAlertBody): the alert as ReminderAlert shows it, with the
// entry or occurrence it reminds of under the API's global IDs, so that a
// receiver can read it (node(id:)) and snooze or dismiss the reminder.
func ReminderWebhookBody(a *calendar.Alert, occ *calendar.Entry) ([]byte, error) {
	entryID := model.EntryGID(calendar.EntryKey{CalendarID: a.CalendarID, EntryID: a.EntryID})
	if !a.OriginalStart.IsZero() {
		entryID = model.OccurrenceGID(a.CalendarID, calendar.OccurrenceID(a.EntryID, a.OriginalStart))
	}
	type entry struct {
		ID         string `json:"id"`
		CalendarID string `json:"calendarId"`
		Title      string `json:"title"`
	}
	type alert struct {
		ID         string    `json:"id"`
		State      string    `json:"state"`
		Minutes    int       `json:"minutes"`
		DueAt      time.Time `json:"dueAt"`
		Start      time.Time `json:"start"`
		FiredAt    time.Time `json:"firedAt"`
		TimesFired int       `json:"timesFired"`
		Entry      entry     `json:"entry"`
	}
	return json.Marshal(struct {
		Event string `json:"event"`
		Alert alert  `json:"alert"`
	}{"reminder", alert{ID: a.ID.String(), State: string(a.State), Minutes: a.Reminder.Minutes, DueAt: a.DueAt, Start: a.Start,
		FiredAt: a.FiredAt, TimesFired: a.Fired, Entry: entry{ID: entryID, CalendarID: model.CalendarGID(a.CalendarID), Title: occ.Title}}})
}
