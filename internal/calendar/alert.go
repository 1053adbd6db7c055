package calendar

import (
	"context"
	"strconv"
	"strings"
	"time"
)

// Alerts: a user's reminder that fell due. A reminder of Minutes before an
// occurrence falls due at the occurrence's start (as an instant: a timed
// entry's, in its own zone, so a DST change moves nothing; a dated entry's
// midnight in its calendar's zone) minus Minutes, for every occurrence of a
// series, moved ones at their new time and cancelled ones never. It fires
// once per user: an Alert is what firing made of it, and what the user's
// devices receive, snooze and dismiss.

// ArmHorizon is how far before an occurrence starts its reminders are armed
// (written to the schedule of due reminders): the longest reminder, and an
// hour for the scheduler to be late by.
const ArmHorizon = MaxReminderMinutes*time.Minute + time.Hour

// Snooze bounds.
const (
	// MaxSnooze is how far ahead an alert may be snoozed.
	MaxSnooze = 7 * 24 * time.Hour
)

// AlertState is where an alert stands.
type AlertState string

// The alert states.
const (
	AlertFired     AlertState = "FIRED"     // due, shown, not yet acted on
	AlertSnoozed   AlertState = "SNOOZED"   // to fire again at SnoozedUntil
	AlertDismissed AlertState = "DISMISSED" // done with, on every device
)

// Alert is one of a user's reminders that fell due.
type Alert struct {
	ID         AlertID
	UserID     string
	CalendarID string
	// EntryID is the entry's ID, or for an occurrence of a series the
	// series' (OriginalStart names the occurrence).
	EntryID       string
	OriginalStart time.Time // zero for a single entry
	// Start is when the occurrence starts, as it did when the alert fired.
	Start    time.Time
	Reminder Reminder
	DueAt    time.Time
	FiredAt  time.Time // when it last fired (again, after a snooze)
	State    AlertState
	// SnoozedUntil is when a SNOOZED alert fires again.
	SnoozedUntil time.Time
	// Fired counts its firings: 1, plus one per snooze that ran out.
	Fired   int
	Version int
}

// AlertID names an alert of a user: which reminder of which occurrence, as
// it started when the reminder fell due (a moved occurrence's reminders
// fall due again, at their new time). It starts with the due instant, so
// that a user's alerts sort by when they fell due.
type AlertID struct {
	DueAt         time.Time
	CalendarID    string
	EntryID       string
	OriginalStart time.Time
	Reminder      Reminder
}

// alertTime is the fixed-width, sortable form of an instant in an AlertID.
const alertTime = "20060102T150405.000Z"

// String is the alert ID's text: DueAt_CalendarID_EntryID_OriginalStart_Minutes_Method.
func (id AlertID) String() string {
	orig := "-"
	if !id.OriginalStart.IsZero() {
		orig = id.OriginalStart.UTC().Format(alertTime)
	}
	return strings.Join([]string{id.DueAt.UTC().Format(alertTime), id.CalendarID, id.EntryID, orig,
		strconv.Itoa(id.Reminder.Minutes), string(id.Reminder.Method)}, "_")
}

// ParseAlertID reads an AlertID's text; field names the input for the error
// (CodeInvalid).
func ParseAlertID(field, s string) (AlertID, error) {
	bad := Invalidf(field, "%s is not a reminder ID", field)
	parts := strings.SplitN(s, "_", 6) // the method (IN_APP) comes last
	if len(parts) != 6 {
		return AlertID{}, bad
	}
	var id AlertID
	var err error
	if id.DueAt, err = time.Parse(alertTime, parts[0]); err != nil {
		return AlertID{}, bad
	}
	if ValidateID(field, parts[1]) != nil || ValidateID(field, parts[2]) != nil {
		return AlertID{}, bad
	}
	id.CalendarID, id.EntryID = parts[1], parts[2]
	if parts[3] != "-" {
		if id.OriginalStart, err = time.Parse(alertTime, parts[3]); err != nil {
			return AlertID{}, bad
		}
	}
	if id.Reminder.Minutes, err = strconv.Atoi(parts[4]); err != nil || id.Reminder.Minutes < 0 || id.Reminder.Minutes > MaxReminderMinutes {
		return AlertID{}, bad
	}
	if id.Reminder.Method = ReminderMethod(parts[5]); !id.Reminder.Method.Valid() {
		return AlertID{}, bad
	}
	if !id.DueAt.Equal(id.DueAt.Truncate(time.Millisecond)) || id.String() != s {
		return AlertID{}, bad
	}
	return id, nil
}

// DueAt is when reminder r of an occurrence starting at start falls due.
func DueAt(start time.Time, r Reminder) time.Time {
	return start.Add(-time.Duration(r.Minutes) * time.Minute)
}

// ReminderStart is the instant an occurrence's reminders count back from:
// a timed entry's start, a dated entry's first midnight in loc (its
// calendar's zone), a task's due time. Ok is false for what no reminder
// fires for: a cancelled occurrence, a completed task.
func ReminderStart(e *Entry, loc *time.Location) (time.Time, bool) {
	if e.Cancelled || e.Completed {
		return time.Time{}, false
	}
	start, _ := e.Interval(loc)
	return start, true
}

// SnoozeUntil checks when an alert is snoozed to, given either minutes from
// now or an instant (exactly one), and returns the instant. Errors
// (CodeInvalid): neither or both, an instant not after now (snoozing into the
// past), or one more than MaxSnooze ahead.
func SnoozeUntil(now time.Time, minutes *int, until *time.Time) (time.Time, error) {
	switch {
	case (minutes == nil) == (until == nil):
		return time.Time{}, Invalidf("minutes", "give either minutes or until")
	case minutes != nil && (*minutes < 1 || time.Duration(*minutes)*time.Minute > MaxSnooze):
		return time.Time{}, Invalidf("minutes", "minutes is 1 to %d", int(MaxSnooze/time.Minute))
	case minutes != nil:
		return now.Add(time.Duration(*minutes) * time.Minute).UTC().Truncate(time.Millisecond), nil
	case !until.After(now):
		return time.Time{}, Invalidf("until", "until must be in the future: a reminder cannot be snoozed into the past")
	case until.Sub(now) > MaxSnooze:
		return time.Time{}, Invalidf("until", "a reminder is snoozed at most %d days ahead", int(MaxSnooze/(24*time.Hour)))
	}
	return until.UTC().Truncate(time.Millisecond), nil
}

// ReminderTask is one thing of the reminder schedule that fell due, as the
// store names it (its scheduler hands it back to the store): a wake, whose
// entry's reminders are to be armed, or a due item.
type ReminderTask struct {
	Wake bool
	Ref  [2]string
}

// AlertPage is a page of a user's alerts; Cursors[i] is Alerts[i]'s.
type AlertPage struct {
	Alerts      []*Alert
	Cursors     []string
	HasNextPage bool
}

// AlertService is what the viewer does with their alerts. Errors:
// CodeUnauthenticated; CodeNotFound for an alert that is not the viewer's
// (or no longer kept); CodeInvalid for a malformed ID or snooze;
// CodeVersionConflict when another device changed it in between.
type AlertService interface {
	// Alert reads one of the viewer's alerts.
	Alert(ctx context.Context, id string) (*Alert, error)
	// Alerts lists the viewer's alerts, latest due first, the dismissed
	// ones only when asked.
	Alerts(ctx context.Context, includeDismissed bool, p Page) (*AlertPage, error)
	// SnoozeAlert snoozes an alert to fire again in minutes or at until
	// (SnoozeUntil); a dismissed one cannot be.
	SnoozeAlert(ctx context.Context, id string, minutes *int, until *time.Time) (*Alert, error)
	// DismissAlert dismisses an alert on every device; dismissing it again
	// changes nothing.
	DismissAlert(ctx context.Context, id string) (*Alert, error)
}
