package model

import (
	"github.com/calgraph/calgraph/internal/calendar"
	"github.com/calgraph/calgraph/internal/loader"
)

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
	// Invited says the change is of an entry the viewer reads by
	// invitation: it is shown only while the invitation holds.
	Invited bool
}

// ChangeDelivery is one delivery of a subscription (the schema's
// ChangeDelivery). Its changes resolve with what the delivery knows as of
// its read: KnownCalendar and KnownMembership (the viewer's, which
// authorized it), when set, are primed into the delivery's loaders, which
// read through Shared, the cache of every delivery of the same read on this
// instance, so that what the subscribers select is read once, not once each.
type ChangeDelivery struct {
	Kind       DeliveryKind
	CalendarID string
	Changes    []*Change
	SyncToken  *string
	// KnownCalendar is the calendar as of the delivery's read, if known.
	KnownCalendar *calendar.Calendar
	// KnownMembership is the viewer's membership that authorized the
	// delivery, if known.
	KnownMembership *calendar.Membership
	Shared          *loader.Shared
	// Invited says the delivery is of entries the viewer is invited to.
	Invited bool
}
