package calendar

import (
	"context"
	"time"
)

// Theme is the look a user prefers for calendar apps.
type Theme string

// The themes.
const (
	ThemeSystem Theme = "SYSTEM"
	ThemeLight  Theme = "LIGHT"
	ThemeDark   Theme = "DARK"
)

// Preference limits.
const (
	MinDefaultDuration = 5 * time.Minute
	MaxDefaultDuration = 24 * time.Hour
)

// Preferences are a user's defaults for views and new entries.
type Preferences struct {
	TimeZone         string // "" for none: views fall back to the calendar's zone
	WeekStart        time.Weekday
	DefaultDuration  time.Duration // of a new timed entry given no end
	DefaultReminders []int         // of a new entry given no reminders
	Theme            Theme
}

// DefaultPreferences are a new user's preferences.
func DefaultPreferences() Preferences {
	return Preferences{WeekStart: time.Monday, DefaultDuration: time.Hour, Theme: ThemeSystem}
}

// EntryDefaults returns the defaults for an entry the user writes on cal.
func (p Preferences) EntryDefaults(cal *Calendar) Defaults {
	zone := p.TimeZone
	if zone == "" {
		zone = cal.TimeZone
	}
	return Defaults{TimeZone: zone, Duration: p.DefaultDuration, Reminders: p.DefaultReminders}
}

// PreferencesUpdate is a partial update of the viewer's preferences; they share
// the user's version. A set TimeZone of "" removes it.
type PreferencesUpdate struct {
	ExpectedVersion  int
	TimeZone         Change[string]
	WeekStart        Change[time.Weekday]
	DefaultDuration  Change[time.Duration]
	DefaultReminders Change[[]int]
	Theme            Change[Theme]
}

// Apply validates the update and returns p with it applied.
func (u PreferencesUpdate) Apply(p Preferences) (Preferences, error) {
	if u.TimeZone.Set {
		if p.TimeZone = u.TimeZone.Value; p.TimeZone != "" {
			if err := ValidateTimeZone("timeZone", p.TimeZone); err != nil {
				return p, err
			}
		}
	}
	if u.WeekStart.Set {
		if u.WeekStart.Value < time.Sunday || u.WeekStart.Value > time.Saturday {
			return p, Invalidf("weekStart", "weekStart must be a day of the week")
		}
		p.WeekStart = u.WeekStart.Value
	}
	if u.DefaultDuration.Set {
		d := u.DefaultDuration.Value
		if d < MinDefaultDuration || d > MaxDefaultDuration || d%time.Minute != 0 {
			return p, Invalidf("defaultEntryDurationMinutes", "the default duration is %d to %d whole minutes",
				int(MinDefaultDuration.Minutes()), int(MaxDefaultDuration.Minutes()))
		}
		p.DefaultDuration = d
	}
	if u.DefaultReminders.Set {
		r, err := validReminders(u.DefaultReminders.Value)
		if err != nil {
			return p, Invalidf("defaultReminders", "%s", ErrorMessage(err))
		}
		p.DefaultReminders = r
	}
	if u.Theme.Set {
		if t := u.Theme.Value; t != ThemeSystem && t != ThemeLight && t != ThemeDark {
			return p, Invalidf("theme", "theme must be SYSTEM, LIGHT or DARK")
		}
		p.Theme = u.Theme.Value
	}
	return p, nil
}

// PreferencesService changes the viewer's preferences.
type PreferencesService interface {
	// UpdatePreferences applies a partial update. Errors: CodeUnauthenticated,
	// CodeInvalid, CodeVersionConflict.
	UpdatePreferences(ctx context.Context, u PreferencesUpdate) (*User, error)
}
