package graph

import (
	"context"
	"time"

	"github.com/calgraph/calgraph/graph/model"
	"github.com/calgraph/calgraph/internal/calendar"
	"github.com/calgraph/calgraph/internal/loader"
)

// calendarDefaultReminders is the viewer's default reminders for entry e's
// calendar (their calendar settings), which their own reminders fall back
// to: the one place the default is decided, as the scheduler decides it
// (remind_people.go). The viewer's membership is the one the view read.
func calendarDefaultReminders(ctx context.Context, e *calendar.Entry) ([]calendar.Reminder, error) {
	return loader.For(ctx).ViewerDefaultReminders(ctx, e.CalendarID)
}

// myRemindersOf resolves the viewer's reminders at entry e: their own, or
// their calendar default, whether they are their own, and their setting's
// version (none on a redacted entry). The setting is read through the loaders: one batch for a view,
// and once per entry however many of the fields are selected.
func myRemindersOf(ctx context.Context, e *calendar.Entry) (rs []*calendar.Reminder, set bool, version int, err error) {
	if e.Redacted { // the viewer may not set reminders on it, nor get the default's
		return []*calendar.Reminder{}, false, 0, nil
	}
	own, err := loader.For(ctx).MyReminders(ctx, e)
	if err != nil {
		return nil, false, 0, err
	}
	_, set = own.At(e.OriginalStart)
	def, err := calendarDefaultReminders(ctx, e)
	if err != nil {
		return nil, false, 0, err
	}
	if own != nil {
		version = own.Version
	}
	return reminderList(calendar.EffectiveReminders(own, e.OriginalStart, def)), set, version, nil
}

func myReminders(ctx context.Context, e *calendar.Entry) ([]*calendar.Reminder, error) {
	rs, _, _, err := myRemindersOf(ctx, e)
	return rs, err
}

func myRemindersSet(ctx context.Context, e *calendar.Entry) (bool, error) {
	_, set, _, err := myRemindersOf(ctx, e)
	return set, err
}

func myRemindersVersion(ctx context.Context, e *calendar.Entry) (int, error) {
	_, _, v, err := myRemindersOf(ctx, e)
	return v, err
}

func reminderList(rs []calendar.Reminder) []*calendar.Reminder {
	out := make([]*calendar.Reminder, len(rs))
	for i := range rs {
		out[i] = &rs[i]
	}
	return out
}

// myRemindersChange converts setMyReminders' input: the entry or series,
// and the occurrence named by its ID or by occurrenceStart (not both).
func myRemindersChange(in model.SetMyRemindersInput) (calendar.MyRemindersChange, error) {
	key, occurrence, err := answeredEntry(in.EntryID)
	if err != nil {
		return calendar.MyRemindersChange{}, err
	}
	if start := orEmpty(in.OccurrenceStart); !start.IsZero() {
		if !occurrence.IsZero() {
			return calendar.MyRemindersChange{}, calendar.Invalidf("occurrenceStart", "entryId names an occurrence already: omit occurrenceStart, or give the series' ID")
		}
		occurrence = start.UTC()
	}
	c := calendar.MyRemindersChange{Key: key, Occurrence: occurrence, Scope: orEmpty(in.Scope), ExpectedVersion: in.ExpectedVersion.Value()}
	rs, given := in.Reminders.ValueOK()
	c.Default = !given || rs == nil
	for _, r := range rs {
		c.Reminders = append(c.Reminders, calendar.Reminder{Minutes: r.Minutes, Method: orEmpty(r.Method)})
	}
	return c, nil
}

// myRemindersPayload is setMyReminders' answer: the setting as written,
// resolved where it was set.
func myRemindersPayload(ctx context.Context, set *calendar.ReminderSetting, at time.Time) (*model.SetMyRemindersPayload, error) {
	def, err := calendarDefaultReminders(ctx, &calendar.Entry{ID: set.Root.EntryID, CalendarID: set.Root.CalendarID})
	if err != nil {
		return nil, err
	}
	_, own := set.At(at)
	loader.For(ctx).PrimeMyReminders(ctx, set)
	return &model.SetMyRemindersPayload{
		MyReminders: reminderList(calendar.EffectiveReminders(set, at, def)), MyRemindersSet: own, Version: set.Version,
	}, nil
}
