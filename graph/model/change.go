package model

import "github.com/calgraph/calgraph/internal/calendar"

// Change is a changed object of a calendar (the schema's Change). Its node
// and exceptions resolve when marshalled: an entry needs its calendar, which
// a subscription's delivery reads with that delivery's loaders.
type Change struct {
	Type    ChangeType
	ID      string
	Deleted bool
	// Object is the change as the store read it.
	Object calendar.ObjectChange
	// Calendar is the calendar as the request read it, when it did.
	Calendar *calendar.Calendar
}
