package calendar

import (
	"context"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"
)

// Calendar defaults and limits.
const (
	DefaultColor         = "#3B82F6"
	DefaultTimeZone      = "UTC"
	MaxDescriptionLength = 2000
)

// Calendar is a shared calendar. A resource calendar (a room, a car) may never hold
// two overlapping entries.
type Calendar struct {
	ID          string
	Name        string
	Color       string // "#RRGGBB"
	Description string // empty when there is none
	TimeZone    string // IANA name, the default zone of the calendar's views
	IsResource  bool
	Version     int
	CreatedAt   time.Time
	UpdatedAt   time.Time

	// NeverHeldSeries says that no recurring series was ever created in the
	// calendar, so a range view need not look for one. The store keeps it:
	// true from creation until the first series, then false for good (also
	// for calendars older than the record of it).
	NeverHeldSeries bool

	// HasHolds says that an entry of another calendar once held time on
	// this one (mustNotOverlap, booking.go), so its busy time reads holds
	// too. The store sets it with the first hold and never clears it.
	HasHolds bool

	// Revision counts the changes to the calendar's entries, series and
	// memberships, as of the strongly consistent read that returned the
	// calendar: every write that changes them raises it in the same
	// transaction, so two reads that find the same Revision would find the
	// same entries and members. 0 means unknown (a calendar a write returned);
	// the store keeps per-instance caches of views by it.
	Revision int64
}

// NewCalendar is the input for creating a calendar; zero values take defaults.
type NewCalendar struct {
	Name        string
	Color       string
	Description string
	TimeZone    string
	IsResource  bool
}

// Build validates n and returns the calendar it describes, with defaults applied
// and without ID, version or timestamps (the store sets those).
func (n NewCalendar) Build() (Calendar, error) {
	c := Calendar{
		Name:        strings.TrimSpace(n.Name),
		Color:       n.Color,
		Description: strings.TrimSpace(n.Description),
		TimeZone:    n.TimeZone,
		IsResource:  n.IsResource,
	}
	if c.Color == "" {
		c.Color = DefaultColor
	}
	if c.TimeZone == "" {
		c.TimeZone = DefaultTimeZone
	}
	return c, c.validate()
}

// CalendarUpdate is a partial update. Name, Color and TimeZone cannot be null;
// a null or empty Description removes it.
type CalendarUpdate struct {
	ID              string
	ExpectedVersion int
	Name            Patch[string]
	Color           Patch[string]
	Description     Patch[string]
	TimeZone        Patch[string]
	IsResource      Patch[bool]
}

// Apply validates the update and returns c with it applied.
func (u CalendarUpdate) Apply(c Calendar) (Calendar, error) {
	if u.Name.Set {
		c.Name = strings.TrimSpace(u.Name.Value)
	}
	if u.Color.Set {
		c.Color = u.Color.Value
	}
	if u.Description.Set {
		c.Description = strings.TrimSpace(u.Description.Value)
	}
	if u.TimeZone.Set && u.TimeZone.Value != c.TimeZone {
		if c.IsResource {
			return c, Invalidf("timeZone", "a resource calendar's zone is fixed when it is created: its bookings of whole days are days of that zone")
		}
		c.TimeZone = u.TimeZone.Value
	}
	if u.IsResource.Set && u.IsResource.Value != c.IsResource {
		return c, Invalidf("isResource", "whether a calendar is a resource is fixed when it is created")
	}
	return c, c.validate()
}

func (c Calendar) validate() error {
	if err := ValidateName("name", c.Name); err != nil {
		return err
	}
	if err := ValidateColor("color", c.Color); err != nil {
		return err
	}
	if n := utf8.RuneCountInString(c.Description); n > MaxDescriptionLength {
		return Invalidf("description", "description is %d characters long; the limit is %d", n, MaxDescriptionLength)
	}
	if !utf8.ValidString(c.Description) {
		return Invalidf("description", "description must be valid UTF-8")
	}
	return ValidateTimeZone("timeZone", c.TimeZone)
}

var colorPattern = regexp.MustCompile(`^#[0-9A-Fa-f]{6}$`)

// ValidateColor checks a "#RRGGBB" hex color.
func ValidateColor(field, color string) error {
	if !colorPattern.MatchString(color) {
		return Invalidf(field, "%s must be a hex color like #3B82F6, got %q", field, color)
	}
	return nil
}

// ValidateTimeZone checks an IANA time zone name such as "Europe/Paris" or "UTC".
// "Local" is refused: it would mean whatever zone the server runs in.
func ValidateTimeZone(field, name string) error {
	if name == "" || name == "Local" || len(name) > 64 {
		return Invalidf(field, "%s must be an IANA time zone name like Europe/Paris, got %q", field, name)
	}
	if _, err := LoadLocation(name); err != nil {
		return Invalidf(field, "unknown time zone %q", name)
	}
	return nil
}

// CalendarService changes calendars for the signed-in viewer. Every method checks
// the viewer's role inside the write, so a concurrent role change cannot slip by.
type CalendarService interface {
	// CreateCalendar creates a calendar with the viewer as its only owner.
	// Errors: CodeUnauthenticated, CodeInvalid.
	CreateCalendar(ctx context.Context, n NewCalendar) (*Calendar, *Membership, error)

	// UpdateCalendar applies a partial update. Errors: CodeUnauthenticated,
	// CodeNotFound (missing or not a member), CodeForbidden (not an owner),
	// CodeInvalid, CodeVersionConflict.
	UpdateCalendar(ctx context.Context, u CalendarUpdate) (*Calendar, error)

	// DeleteCalendar deletes a calendar and its memberships. Errors: as UpdateCalendar.
	DeleteCalendar(ctx context.Context, id string, expectedVersion int) error
}
