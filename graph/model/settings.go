package model

import (
	"time"

	"github.com/calgraph/calgraph/internal/calendar"
)

// CalendarSettings is the viewer's settings of a calendar as the schema
// shows them: with the calendar, which the resolved display fields fall
// back to.
type CalendarSettings struct {
	settings calendar.Settings
	calendar *calendar.Calendar
}

// CalendarSettingsOf shows s, the viewer's settings of c.
func CalendarSettingsOf(s calendar.Settings, c *calendar.Calendar) *CalendarSettings {
	return &CalendarSettings{settings: s, calendar: c}
}

// Color is the viewer's color, null when they set none.
func (c *CalendarSettings) Color() *string { return orNull(c.settings.Color) }

// DisplayColor is the color to show the calendar in.
func (c *CalendarSettings) DisplayColor() string { return c.settings.DisplayColor(c.calendar) }

// TextColor is the color readable on DisplayColor.
func (c *CalendarSettings) TextColor() string { return calendar.TextColor(c.DisplayColor()) }

// Name is the viewer's name, null when they set none.
func (c *CalendarSettings) Name() *string { return orNull(c.settings.Name) }

// DisplayName is the name to show the calendar under.
func (c *CalendarSettings) DisplayName() string { return c.settings.DisplayName(c.calendar) }

// Hidden reports whether the viewer hid the calendar.
func (c *CalendarSettings) Hidden() bool { return c.settings.Hidden }

// Selected reports whether the viewer's agenda reads the calendar.
func (c *CalendarSettings) Selected() bool { return c.settings.Selected }

// SortKey is the calendar's key in the viewer's list, null when none.
func (c *CalendarSettings) SortKey() *string { return orNull(c.settings.SortKey) }

// DefaultReminders are the viewer's default reminders on the calendar.
func (c *CalendarSettings) DefaultReminders() []*calendar.Reminder {
	out := make([]*calendar.Reminder, len(c.settings.DefaultReminders))
	for i := range c.settings.DefaultReminders {
		out[i] = &c.settings.DefaultReminders[i]
	}
	return out
}

// Version is the settings' own version.
func (c *CalendarSettings) Version() int { return c.settings.Version }

// UpdatedAt is when the settings last changed, null until then.
func (c *CalendarSettings) UpdatedAt() *time.Time {
	if c.settings.UpdatedAt.IsZero() {
		return nil
	}
	return &c.settings.UpdatedAt
}

func orNull(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
