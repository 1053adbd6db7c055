package dynamo

import (
	"context"
	"fmt"
	"time"

	"github.com/calgraph/calgraph/internal/calendar"
)

// Whose reminders an arming counts: the members of the entry's calendar
// who set default reminders on it (a REMDEF item each, beside their
// membership, kept by the write that sets them), and the users who set
// reminders of their own on the entry.

// reminderPeople maps each user an arming counts to their reminders at an
// occurrence of an entry (root, and its original start for a series).
type reminderPeople map[string]func(root string, originalStart time.Time) []calendar.Reminder

// reminderDefaultsRecord is a member's default reminders on a calendar.
type reminderDefaultsRecord struct {
	PK         string              `dynamodbav:"PK"`
	SK         string              `dynamodbav:"SK"`
	EntityType string              `dynamodbav:"entityType"`
	UserID     string              `dynamodbav:"userId"`
	Reminders  []calendar.Reminder `dynamodbav:"reminders"`
	UpdatedAt  time.Time           `dynamodbav:"updatedAt"`
}

// reminderPeople reads whose reminders count on the entries roots of a
// calendar (each as read: an entry, or a series' master), or only's when
// set: the members' default reminders on the calendar, every user's own
// setting on each root (one Query per root; only's, one BatchGetItem), and
// an entry's shared reminders of before, which stay its creator's own until
// they set theirs (calendar.LegacyReminders).
func (s *Store) reminderPeople(ctx context.Context, calendarID string, roots map[string]*calendar.Entry, only string) (reminderPeople, error) {
	defaults, err := s.reminderDefaults(ctx, calendarID, only)
	if err != nil {
		return nil, err
	}
	own, err := s.ownReminders(ctx, calendarID, roots, only)
	if err != nil {
		return nil, err
	}
	users := map[string]bool{}
	for u := range defaults {
		users[u] = true
	}
	for _, byUser := range own {
		for u := range byUser {
			users[u] = true
		}
	}
	for _, e := range roots {
		if e.CreatedBy != "" && len(e.Reminders) > 0 && (only == "" || only == e.CreatedBy) {
			users[e.CreatedBy] = true
		}
	}
	people := reminderPeople{}
	for u := range users {
		people[u] = func(root string, originalStart time.Time) []calendar.Reminder {
			set := own[root][u]
			if set == nil {
				set = calendar.LegacyReminders(roots[root], u)
			}
			return calendar.EffectiveReminders(set, originalStart, defaults[u])
		}
	}
	return people, nil
}

// reminderDefaults reads the members' default reminders on a calendar, or
// only's, by user.
func (s *Store) reminderDefaults(ctx context.Context, calendarID, only string) (map[string][]calendar.Reminder, error) {
	var items []item
	if only == "" {
		lo, hi := prefixRange(prefixReminderDefaults)
		found, err := s.queryBetween(ctx, "", attrSK, calendarPartition(calendarID), lo, hi, filter{}, maxReminderPeople)
		if err != nil {
			return nil, fmt.Errorf("read default reminders of calendar %s: %w", calendarID, err)
		}
		items = found
	} else {
		it, found, err := s.getItem(ctx, reminderDefaultsKey(calendarID, only))
		if err != nil {
			return nil, err
		}
		if found {
			items = append(items, it)
		}
	}
	out := map[string][]calendar.Reminder{}
	for _, it := range items {
		r, err := unmarshal[reminderDefaultsRecord](it)
		if err != nil {
			return nil, err
		}
		out[r.UserID] = r.Reminders
	}
	return out, nil
}

// ownReminders reads the users' own settings on roots (every user's, or
// only's), by root and user.
func (s *Store) ownReminders(ctx context.Context, calendarID string, roots map[string]*calendar.Entry, only string) (map[string]map[string]*calendar.ReminderSetting, error) {
	out := map[string]map[string]*calendar.ReminderSetting{}
	if only == "" {
		for root := range roots {
			sets, err := s.RemindersOfEntry(ctx, calendar.EntryKey{CalendarID: calendarID, EntryID: root})
			if err != nil {
				return nil, err
			}
			out[root] = map[string]*calendar.ReminderSetting{}
			for _, set := range sets {
				out[root][set.UserID] = set
			}
		}
		return out, nil
	}
	keys := make([]itemKey, 0, len(roots))
	for root := range roots {
		keys = append(keys, myRemindersKey(calendarID, root, only))
	}
	found, err := s.batchGet(ctx, keys)
	if err != nil {
		return nil, err
	}
	for root := range roots {
		out[root] = map[string]*calendar.ReminderSetting{}
		if it := found[myRemindersKey(calendarID, root, only)]; it != nil {
			set, err := decodeMyReminders(it)
			if err != nil {
				return nil, err
			}
			out[root][only] = set
		}
	}
	return out, nil
}

// maxReminderPeople bounds the members with default reminders an arming
// reads on one calendar.
const maxReminderPeople = 5000

// reminderDefaultsOps are the actions that set userID's default reminders
// on a calendar at now (none: removed), and arm them again over the
// calendar's next occurrences (an arm item, kind C, due at once).
func reminderDefaultsOps(calendarID, userID string, reminders []calendar.Reminder, now time.Time) []txOp {
	k := reminderDefaultsKey(calendarID, userID)
	set := opDelete(k, noCondition(), nil)
	if len(reminders) > 0 {
		set = opPut(k, reminderDefaultsRecord{PK: k.PK, SK: k.SK, EntityType: entityReminderDefs, UserID: userID,
			Reminders: reminders, UpdatedAt: now}, noCondition(), nil)
	}
	arm := newDue(now, dueRecord{Kind: dueArmPeople, UserID: userID, CalendarID: calendarID, Since: formatTime(now)})
	return []txOp{set, opPut(itemKey{PK: arm.PK, SK: arm.SK}, arm, noCondition(), nil)}
}

// rearmOp is the action that arms userID's reminders on an entry or series
// again from now (an arm item, kind A, due at once): for the write that
// changes the reminders they set on it.
func rearmOp(calendarID, rootID, userID string, now time.Time) txOp {
	d := newDue(now, dueRecord{Kind: dueArmEntry, UserID: userID, CalendarID: calendarID, EntryID: rootID, Since: formatTime(now)})
	return opPut(itemKey{PK: d.PK, SK: d.SK}, d, noCondition(), nil)
}

// armForUser does an arm item of kind A: one user's reminders on one entry.
func (s *Store) armForUser(ctx context.Context, d dueRecord, now time.Time) error {
	since, err := time.Parse(time.RFC3339Nano, d.Since)
	if err != nil {
		return fmt.Errorf("arm item %s: %w", d.SK, err)
	}
	if _, _, err := s.arm(ctx, d.CalendarID, d.EntryID, d.UserID, armFrom(since, now)); err != nil {
		return err
	}
	return s.finishDue(ctx, d)
}

// armCalendarForUser does an arm item of kind C: one user's reminders on
// every entry of a calendar that starts within the horizon.
func (s *Store) armCalendarForUser(ctx context.Context, d dueRecord, now time.Time) error {
	since, err := time.Parse(time.RFC3339Nano, d.Since)
	if err != nil {
		return fmt.Errorf("arm item %s: %w", d.SK, err)
	}
	win := armFrom(since, now)
	it, found, err := s.getItem(ctx, calendarKey(d.CalendarID))
	if err != nil {
		return err
	}
	if found {
		cr, err := decodeCalendarRecord(it)
		if err != nil {
			return err
		}
		cal := cr.calendar()
		candidates, _, err := s.entriesReaching(ctx, nil, cal, win.after, win.until, pageReserve(1))
		if err != nil {
			return err
		}
		occs, err := s.occurrencesIn(cal, candidates, win)
		if err != nil {
			return err
		}
		roots := rootsOf(candidates, occs)
		people, err := s.reminderPeople(ctx, d.CalendarID, roots, d.UserID)
		if err != nil {
			return err
		}
		if err := s.writeFires(ctx, cal, occs, people, win.since); err != nil {
			return err
		}
	}
	return s.finishDue(ctx, d)
}

// dropReminderDefaults is the action that deletes a member's default
// reminders on a calendar, for each write that ends their membership:
// unconditional, so that a settings write that set them just before goes
// too (one after finds no membership, and fails).
func dropReminderDefaults(calendarID, userID string) txOp {
	return opDelete(reminderDefaultsKey(calendarID, userID), noCondition(), nil)
}

// rootsOf maps the roots of occs (their entries, or their series) to their
// entry or series master among candidates.
func rootsOf(candidates []*calendar.Entry, occs []armedOccurrence) map[string]*calendar.Entry {
	byID := map[string]*calendar.Entry{}
	for _, e := range candidates {
		if !e.IsException {
			byID[e.ID] = e
		}
	}
	roots := map[string]*calendar.Entry{}
	for _, o := range occs {
		if e := byID[o.root]; e != nil {
			roots[o.root] = e
		}
	}
	return roots
}
