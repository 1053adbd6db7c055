package calendar

import (
	"context"
	"slices"
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
	MinArchiveDelay    = time.Hour
	MaxArchiveDelay    = 90 * 24 * time.Hour
)

// CalendarIncrements are the steps a calendar app's grid may snap to.
var CalendarIncrements = []time.Duration{10 * time.Minute, 15 * time.Minute, 30 * time.Minute, time.Hour}

// Preferences are a user's defaults for views and new entries (seed 002's
// USER_META preferences).
type Preferences struct {
	TimeZone          string // "" for none: views fall back to the calendar's zone
	WeekStart         time.Weekday
	DefaultDuration   time.Duration // of a new timed entry given no end
	DefaultReminders  []int         // of a new entry given no reminders
	Theme             Theme
	CalendarIncrement time.Duration // the step of the app's time grid: one of CalendarIncrements
	// AutoArchive moves the user's view of completed tasks to the archive
	// once they were completed ArchiveDelay ago (Calendar.tasks).
	AutoArchive          bool
	ArchiveDelay         time.Duration
	BrowserNotifications bool
	SoundNotifications   bool
}

// DefaultPreferences are a new user's preferences.
func DefaultPreferences() Preferences {
	return Preferences{WeekStart: time.Monday, DefaultDuration: time.Hour, Theme: ThemeSystem,
		CalendarIncrement: 15 * time.Minute, ArchiveDelay: 24 * time.Hour,
		BrowserNotifications: true, SoundNotifications: true}
}

// ArchivedBefore is when the user's archive begins at now: the zero time
// when the user does not archive.
func (p Preferences) ArchivedBefore(now time.Time) time.Time {
	if !p.AutoArchive {
		return time.Time{}
	}
	return now.Add(-p.ArchiveDelay)
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
	TimeZone         Patch[string]
	WeekStart        Patch[time.Weekday]
	DefaultDuration  Patch[time.Duration]
	DefaultReminders Patch[[]int]
	Theme            Patch[Theme]

	CalendarIncrement    Patch[time.Duration]
	AutoArchive          Patch[bool]
	ArchiveDelay         Patch[time.Duration]
	BrowserNotifications Patch[bool]
	SoundNotifications   Patch[bool]
	// WorkingHours replaces the user's working hours; nil removes them
	// (always working). They are kept apart from the rest (Apply checks
	// them and leaves Preferences alone).
	WorkingHours Patch[*WorkingHours]
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
	if u.CalendarIncrement.Set {
		if !slices.Contains(CalendarIncrements, u.CalendarIncrement.Value) {
			return p, Invalidf("calendarIncrementMinutes", "calendarIncrementMinutes must be 10, 15, 30 or 60")
		}
		p.CalendarIncrement = u.CalendarIncrement.Value
	}
	if u.ArchiveDelay.Set {
		d := u.ArchiveDelay.Value
		if d < MinArchiveDelay || d > MaxArchiveDelay || d%time.Hour != 0 {
			return p, Invalidf("autoArchiveDelayHours", "autoArchiveDelayHours must be 1 to %d whole hours", int(MaxArchiveDelay.Hours()))
		}
		p.ArchiveDelay = d
	}
	if u.AutoArchive.Set {
		p.AutoArchive = u.AutoArchive.Value
	}
	if u.BrowserNotifications.Set {
		p.BrowserNotifications = u.BrowserNotifications.Value
	}
	if u.SoundNotifications.Set {
		p.SoundNotifications = u.SoundNotifications.Value
	}
	if u.WorkingHours.Set && u.WorkingHours.Value != nil {
		if err := u.WorkingHours.Value.Validate("workingHours"); err != nil {
			return p, err
		}
	}
	return p, nil
}

// PreferencesService changes the viewer's preferences.
type PreferencesService interface {
	// UpdatePreferences applies a partial update. Errors: CodeUnauthenticated,
	// CodeInvalid, CodeVersionConflict.
	UpdatePreferences(ctx context.Context, u PreferencesUpdate) (*User, error)
	// WorkingHours returns a user's working hours, nil when they set none.
	WorkingHours(ctx context.Context, userID string) (*WorkingHours, error)
	// UserIDs finds users by (normalized) email, for findTimes, in one
	// batch: the IDs of those emails that name a user. It checks no rights:
	// the caller must not reveal what it finds (findTimes answers only for
	// users whose calendars the viewer reaches).
	UserIDs(ctx context.Context, emails []string) (map[string]string, error)
	// HoursOf returns the working hours of users and the opening hours of
	// calendars, in one batch (one without any is absent). It checks no
	// rights (as UserIDs).
	HoursOf(ctx context.Context, userIDs, calendarIDs []string) (users, calendars map[string]*WorkingHours, err error)
}
