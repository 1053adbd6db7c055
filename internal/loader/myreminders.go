package loader

import (
	"context"

	"github.com/calgraph/calgraph/internal/calendar"
)

// MyReminders returns the viewer's own reminder setting on entry e (an
// entry, a series or an occurrence they were shown: an occurrence's is its
// series'), nil when they set none there. The settings of every entry of one
// level of a request are read in one batch, with whatever else that level
// loads; nothing is read for a redacted entry, whose reminders the viewer may
// not set. An entry whose creator set none keeps its shared reminders as the
// creator's own (calendar.LegacyReminders).
func (l *Loaders) MyReminders(ctx context.Context, e *calendar.Entry) (*calendar.ReminderSetting, error) {
	viewer, err := calendar.ViewerID(ctx)
	if err != nil || e.Redacted {
		return nil, err
	}
	root := e.Key()
	if e.SeriesID != "" {
		root = calendar.EntryKey{CalendarID: e.CalendarID, EntryID: e.SeriesID}
	}
	set, err := loadAs(ctx, l, myRemindersRef(calendar.MyRemindersKey{Root: root, UserID: viewer}), item.getReminders)()
	if err != nil || set != nil {
		return set, err
	}
	return calendar.LegacyReminders(e, viewer), nil
}

// PrimeMyReminders records the viewer's setting just written (PrimeUser).
func (l *Loaders) PrimeMyReminders(ctx context.Context, s *calendar.ReminderSetting) {
	l.prime(ctx, myRemindersRef(calendar.MyRemindersKey{Root: s.Root, UserID: s.UserID}), item{reminders: s})
}
