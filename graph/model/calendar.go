package model

import "github.com/calgraph/calgraph/internal/calendar"

// Calendar is the GraphQL Calendar: the domain's calendar with its global ID.
// The ID is a method, not a resolver, because gqlgen runs an object's
// resolver fields on goroutines of their own once there are two, and a
// calendar is shown beside every entry of a view (an agenda's `calendar { id
// viewerRole }` cost a goroutine per entry).
type Calendar struct{ *calendar.Calendar }

// CalendarOf wraps c; nil stays nil.
func CalendarOf(c *calendar.Calendar) *Calendar {
	if c == nil {
		return nil
	}
	return &Calendar{c}
}

// ID is the calendar's global ID.
func (c *Calendar) ID() string { return CalendarGID(c.Calendar.ID) }
