package dynamo

import (
	"slices"
	"strings"
	"time"

	"github.com/calgraph/calgraph/internal/calendar"
)

// What Check verifies of reminders (remind_*.go):
//   - every alert is well formed and its user exists; one fired within the
//     change log's retention has its record in the user's log; a snoozed
//     one has the snooze item that fires it again, and every snooze item
//     an alert snoozed to its instant;
//   - every due item is well formed and keyed as its kind and reference say
//     (one of a user since deleted is dropped when it falls due);
//   - every member's default reminders are valid and belong to a member;
//   - every entry, exception and series that can still start is on the
//     schedule: a wake in GSI5, keyed as wakeIndexKey says, no later than an
//     ArmHorizon before its next occurrence that is not yet armed.

// addAlert files an alert for checkReminders.
func (c *checker) addAlert(it item) error {
	a, err := decodeAlert(it, strings.TrimPrefix(stringAttr(it, attrPK), userPartition("")))
	if err != nil {
		c.problem("%v", err)
		return nil
	}
	c.alerts = append(c.alerts, a)
	return nil
}

// addDue files a due item for checkReminders.
func (c *checker) addDue(it item) error {
	d, err := unmarshal[dueRecord](it)
	if err != nil {
		return err
	}
	at, err := d.at()
	if err != nil {
		c.problem("%v", err)
		return nil
	}
	if k := dueKey(at, d.ref()); k.PK != d.PK || k.SK != d.SK {
		c.problem("due item %s/%s is not keyed by its kind and reference (%s/%s)", d.PK, d.SK, k.PK, k.SK)
	}
	if !slices.Contains([]string{dueFire, dueSnooze, dueArmEntry, dueArmPeople}, d.Kind) {
		c.problem("due item %s/%s is of unknown kind %q", d.PK, d.SK, d.Kind)
	}
	if d.Kind == dueFire || d.Kind == dueSnooze {
		if _, err := calendar.ParseAlertID("alert", d.Alert); err != nil {
			c.problem("due item %s/%s: %v", d.PK, d.SK, err)
		}
	}
	c.dues = append(c.dues, d)
	return nil
}

// checkReminders checks the alerts and due items against the users.
func (c *checker) checkReminders() {
	snoozes := map[string]string{} // by key, their users
	for _, d := range c.dues {
		if d.Kind == dueSnooze {
			snoozes[d.PK+"/"+d.SK] = d.UserID
		}
	}
	for _, a := range c.alerts {
		if _, ok := c.users[a.UserID]; !ok && !c.pending[pendingUser+"#"+a.UserID] {
			c.problem("alert %s: user %s does not exist", a.ID, a.UserID)
		}
		if a.Fired < 1 || !slices.Contains([]calendar.AlertState{calendar.AlertFired, calendar.AlertSnoozed, calendar.AlertDismissed}, a.State) {
			c.problem("alert %s of %s: state %s after %d firings", a.ID, a.UserID, a.State, a.Fired)
		}
		c.wantChange(a.FiredAt, changeRef{userPartition(a.UserID), changedAlert + a.ID.String()}, "alert "+a.ID.String())
		if a.State == calendar.AlertSnoozed {
			k := dueKey(a.SnoozedUntil, (&dueRecord{Kind: dueSnooze, UserID: a.UserID, Alert: a.ID.String()}).ref())
			if _, ok := snoozes[k.PK+"/"+k.SK]; !ok {
				c.problem("alert %s of %s is snoozed to %s without the item that fires it again", a.ID, a.UserID, a.SnoozedUntil.Format(time.RFC3339))
			}
			delete(snoozes, k.PK+"/"+k.SK)
		}
	}
	for k, userID := range snoozes {
		if _, ok := c.users[userID]; ok { // a deleted user's goes when it falls due
			c.problem("snooze item %s: its alert is not snoozed to it", k)
		}
	}
}

// checkReminderDefaults checks the members' default reminders on a
// calendar: each copy (REMDEF) well formed and equal to its member's
// settings, and each member's defaults copied.
func (c *checker) checkReminderDefaults(cal calendarRecord, items []item, members map[string][]calendar.Reminder) {
	copied := map[string]bool{}
	for _, it := range items {
		r, err := unmarshal[reminderDefaultsRecord](it)
		if err != nil {
			c.problem("calendar %s: default reminders %s: %v", cal.ID, stringAttr(it, attrSK), err)
			continue
		}
		copied[r.UserID] = true
		if reminderDefaultsKey(cal.ID, r.UserID) != keyOf(it) {
			c.problem("calendar %s: default reminders %s are not keyed by their user %s", cal.ID, stringAttr(it, attrSK), r.UserID)
		}
		settings, member := members[r.UserID]
		switch {
		case !member:
			c.problem("calendar %s: %s has default reminders on it but is no member", cal.ID, r.UserID)
		case !slices.Equal(settings, r.Reminders):
			c.problem("calendar %s: the schedule's copy of %s's default reminders is %v, their settings say %v", cal.ID, r.UserID, r.Reminders, settings)
		}
	}
	for userID, settings := range members {
		if len(settings) > 0 && !copied[userID] {
			c.problem("calendar %s: %s's default reminders %v have no copy on the schedule", cal.ID, userID, settings)
		}
	}
}

// checkWakes checks that every entry, exception and series of a calendar
// that can still start is on the schedule (see above).
func (c *checker) checkWakes(cal calendarRecord, records []entryRecord, raw map[string]item) {
	now := c.store.now() // a test's store may run a clock ahead
	for _, r := range records {
		e, err := r.entry()
		if err != nil {
			continue // reported by the entry checks
		}
		next, ok := c.nextUnarmed(r, e, raw[r.SK], now)
		if !ok {
			continue
		}
		if r.WakeAt == "" {
			c.problem("calendar %s: entry %s starts at %s but is not on the reminder schedule (no wake)", cal.ID, r.ID, next.Format(time.RFC3339))
			continue
		}
		at, err := wakeInstant(r.WakeAt)
		if k := wakeIndexKey(cal.ID, r.ID, at); err != nil || k.PK != r.Wake || k.SK != r.WakeAt {
			c.problem("calendar %s: entry %s's wake %s/%s is not keyed as wakeIndexKey says", cal.ID, r.ID, r.Wake, r.WakeAt)
			continue
		}
		if at.After(next.Add(-calendar.ArmHorizon)) {
			c.problem("calendar %s: entry %s's wake at %s comes later than an ArmHorizon before its occurrence at %s", cal.ID, r.ID, at.Format(time.RFC3339), next.Format(time.RFC3339))
		}
	}
}

// nextUnarmed is where an entry's first occurrence that no arming covers
// starts, when it starts more than an ArmHorizon (and a minute, for the
// scheduler) from now: only then must it have a wake that comes before.
func (c *checker) nextUnarmed(r entryRecord, e *calendar.Entry, raw item, now time.Time) (time.Time, bool) {
	from := now.Add(calendar.ArmHorizon + time.Minute)
	switch r.role() {
	case roleSeries:
		if armed := stringAttr(raw, attrWakeArmed); armed > formatTime(from) {
			t, err := time.Parse(time.RFC3339Nano, armed)
			if err != nil {
				c.problem("series %s: wakeArmed %q: %v", r.ID, armed, err)
				return time.Time{}, false
			}
			from = t
		}
		next, more, err := c.store.nextStart(e, from)
		return next, err == nil && more
	case roleEntry, roleException:
		start, _ := e.Reach()
		return start, !e.Cancelled && !e.Completed && start.After(from)
	}
	return time.Time{}, false
}
