package calendar

import (
	"cmp"
	"slices"
)

// ReminderMethod is how a user's reminder reaches them.
type ReminderMethod string

// The reminder methods.
const (
	// ReminderInApp is delivered to the user's open apps over the
	// `reminders` subscription.
	ReminderInApp ReminderMethod = "IN_APP"
	// ReminderWebhook is posted, signed, to the webhook the user registered
	// for reminders.
	ReminderWebhook ReminderMethod = "WEBHOOK"
)

// Valid reports whether m is a defined method.
func (m ReminderMethod) Valid() bool { return m == ReminderInApp || m == ReminderWebhook }

// Reminder is one of a user's own reminders: due Minutes before an
// occurrence starts, delivered by Method. Reminders belong to one user and
// never change the entry they remind of.
type Reminder struct {
	Minutes int
	Method  ReminderMethod
}

// ValidReminders checks a user's reminders given as input under field and
// returns them sorted (earliest due first: the most minutes first, then by
// method) without repeats. At most MaxReminders, each 0 to
// MaxReminderMinutes minutes before the start.
func ValidReminders(field string, in []Reminder) ([]Reminder, error) {
	out := slices.Clone(in)
	for i, r := range out {
		if r.Method == "" {
			out[i].Method = ReminderInApp
		} else if !r.Method.Valid() {
			return nil, Invalidf(field, "a reminder's method is IN_APP or WEBHOOK, got %q", r.Method)
		}
		if r.Minutes < 0 || r.Minutes > MaxReminderMinutes {
			return nil, Invalidf(field, "a reminder is 0 to %d minutes before the entry, got %d", MaxReminderMinutes, r.Minutes)
		}
	}
	slices.SortFunc(out, func(a, b Reminder) int {
		return cmp.Or(cmp.Compare(b.Minutes, a.Minutes), cmp.Compare(a.Method, b.Method))
	})
	out = slices.Compact(out)
	if len(out) > MaxReminders {
		return nil, Invalidf(field, "at most %d reminders, got %d", MaxReminders, len(out))
	}
	return out, nil
}
