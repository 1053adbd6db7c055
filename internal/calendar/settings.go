package calendar

import (
	"context"
	"math"
	"strconv"
	"time"
)

// MaxSortKeyLength bounds a calendar's sort key in the viewer's list: room
// for a fractional index after many drags, small enough to keep every
// membership item small.
const MaxSortKeyLength = 128

// Settings are one member's own layer over a shared calendar, as Google's
// CalendarList holds them: how the calendar shows in their list and agenda,
// and the reminders they get on its entries. They live on the member's
// membership, never on the calendar: nobody else sees them, and changing
// them changes nothing of the calendar (not its revision, not its log).
type Settings struct {
	Color            string // "#RRGGBB" over the calendar's color; "" for none
	Name             string // over the calendar's name; "" for none
	Hidden           bool   // left out of the viewer's list and agenda
	Selected         bool   // read by the viewer's agenda (true by default)
	SortKey          string // the list is ordered by it, bytewise; "" sorts last
	DefaultReminders []Reminder
	// Version counts the changes of the settings alone (the role has its
	// own Membership.Version); 0 until they are first changed.
	Version   int
	UpdatedAt time.Time // zero until they are first changed
}

// DefaultSettings are the settings of a membership whose member never
// changed them: nothing overridden, shown and selected.
func DefaultSettings() Settings { return Settings{Selected: true} }

// Shown reports whether the viewer's agenda without calendarIds reads the
// calendar: selected and not hidden (a hidden calendar is out of sight
// everywhere, as in Google Calendar, whatever its selection).
func (s Settings) Shown() bool { return s.Selected && !s.Hidden }

// DisplayColor is the color the viewer sees c in: their override, else c's.
func (s Settings) DisplayColor(c *Calendar) string {
	if s.Color != "" {
		return s.Color
	}
	return c.Color
}

// DisplayName is the name the viewer sees c under: their override, else c's.
func (s Settings) DisplayName(c *Calendar) string {
	if s.Name != "" {
		return s.Name
	}
	return c.Name
}

// SettingsUpdate is a partial update of the viewer's settings of a
// calendar: a field not Set is left as it is; Color and Name set to nil, and
// SortKey set to "", clear the override.
type SettingsUpdate struct {
	CalendarID       string
	ExpectedVersion  int // the settings' Version as read
	Color            Patch[*string]
	Name             Patch[*string]
	Hidden           Patch[bool]
	Selected         Patch[bool]
	SortKey          Patch[string]
	DefaultReminders Patch[[]Reminder]
}

// Apply validates u and returns s with it applied (Version and UpdatedAt
// are the store's to set). Errors: CodeInvalid, naming the field.
func (u SettingsUpdate) Apply(s Settings) (Settings, error) {
	if u.Color.Set && u.Color.Value != nil {
		if err := ValidateColor("color", *u.Color.Value); err != nil {
			return s, err
		}
	}
	if u.Name.Set && u.Name.Value != nil {
		if err := ValidateName("name", *u.Name.Value); err != nil {
			return s, err
		}
	}
	if u.SortKey.Set {
		if err := ValidateSortKey("sortKey", u.SortKey.Value); err != nil {
			return s, err
		}
	}
	if u.DefaultReminders.Set {
		rs, err := ValidReminders("defaultReminders", u.DefaultReminders.Value)
		if err != nil {
			return s, err
		}
		s.DefaultReminders = nil // none, however the input said it
		if len(rs) > 0 {
			s.DefaultReminders = rs
		}
	}
	s.Color, s.Name, s.SortKey = orClear(u.Color, s.Color), orClear(u.Name, s.Name), pick(u.SortKey, s.SortKey)
	s.Hidden, s.Selected = pick(u.Hidden, s.Hidden), pick(u.Selected, s.Selected)
	return s, nil
}

func pick[T any](p Patch[T], was T) T {
	if p.Set {
		return p.Value
	}
	return was
}

// orClear is what an override becomes: as it was when not Set, none ("")
// when Set to nil.
func orClear(p Patch[*string], was string) string {
	switch {
	case !p.Set:
		return was
	case p.Value == nil:
		return ""
	}
	return *p.Value
}

// ValidateSortKey checks a sort key given as input: up to MaxSortKeyLength
// printable ASCII characters without spaces (what fractional-index
// libraries write), or "" for none.
func ValidateSortKey(field, key string) error {
	if len(key) > MaxSortKeyLength {
		return Invalidf(field, "%s is %d characters long; the limit is %d", field, len(key), MaxSortKeyLength)
	}
	for i := 0; i < len(key); i++ {
		if key[i] <= ' ' || key[i] > '~' {
			return Invalidf(field, "%s must be printable ASCII without spaces, got %q", field, key)
		}
	}
	return nil
}

// TextColor is the color readable on background bg ("#RRGGBB"): black or
// white, whichever contrasts more with it by WCAG 2's contrast ratio of
// relative luminances ((L1 + 0.05) / (L2 + 0.05)); black on a tie.
func TextColor(bg string) string {
	l := RelativeLuminance(bg)
	if (l+0.05)/0.05 >= 1.05/(l+0.05) {
		return "#000000"
	}
	return "#FFFFFF"
}

// RelativeLuminance is WCAG 2's relative luminance of "#RRGGBB", 0 (black)
// to 1 (white); 0 for text that is not such a color.
func RelativeLuminance(hex string) float64 {
	if ValidateColor("", hex) != nil {
		return 0
	}
	channel := func(i int) float64 {
		v, _ := strconv.ParseUint(hex[i:i+2], 16, 8)
		c := float64(v) / 255
		if c <= 0.04045 {
			return c / 12.92
		}
		return math.Pow((c+0.055)/1.055, 2.4)
	}
	return 0.2126*channel(1) + 0.7152*channel(3) + 0.0722*channel(5)
}

// SettingsService changes the viewer's own settings of their calendars.
type SettingsService interface {
	// UpdateCalendarSettings applies u to the viewer's settings of
	// u.CalendarID, whatever their role (FREE_BUSY too), and returns their
	// membership with the settings as written, and the calendar. It raises
	// no revision and writes nothing to the calendar's log, only to the
	// viewer's own (their calendar list). Errors: CodeUnauthenticated,
	// CodeNotFound (not a member), CodeInvalid (nothing written),
	// CodeVersionConflict (the settings changed since ExpectedVersion).
	UpdateCalendarSettings(ctx context.Context, u SettingsUpdate) (*Membership, *Calendar, error)
}
