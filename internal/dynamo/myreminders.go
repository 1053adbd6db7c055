package dynamo

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/calgraph/calgraph/internal/calendar"
)

// A user's own reminders on an entry or series are one item per user and
// root (myRemindersKey), beside the entry in its calendar's partition: the
// entry item is never written for them, so setting them raises no version,
// sequence or revision and writes no change record. The item is versioned on
// its own, and bounded by calendar.MaxReminderSegments and
// calendar.MaxReminderOverrides (a few KB at most).

// myRemindersRecord is the item.
type myRemindersRecord struct {
	PK         string               `dynamodbav:"PK"`
	SK         string               `dynamodbav:"SK"`
	EntityType string               `dynamodbav:"entityType"`
	CalendarID string               `dynamodbav:"calendarId"`
	EntryID    string               `dynamodbav:"entryId"` // the root: an entry's or a series' ID
	UserID     string               `dynamodbav:"userId"`
	All        reminderChoiceRecord `dynamodbav:"all"`
	Following  []reminderSpanRecord `dynamodbav:"following,omitempty"`
	Overrides  []reminderSpanRecord `dynamodbav:"overrides,omitempty"`
	Version    int                  `dynamodbav:"version"`
	UpdatedAt  time.Time            `dynamodbav:"updatedAt"`
}

// reminderChoiceRecord is a calendar.ReminderChoice: default, or the list.
type reminderChoiceRecord struct {
	Default   bool             `dynamodbav:"default,omitempty"`
	Reminders []reminderRecord `dynamodbav:"r"`
}

// reminderSpanRecord is a segment (at: from) or an override (at: the
// occurrence's original start), as instantKey writes instants.
type reminderSpanRecord struct {
	At string `dynamodbav:"at"`
	reminderChoiceRecord
}

type reminderRecord struct {
	Minutes int    `dynamodbav:"m"`
	Method  string `dynamodbav:"by"`
}

func newMyRemindersRecord(s *calendar.ReminderSetting) myRemindersRecord {
	k := myRemindersKey(s.Root.CalendarID, s.Root.EntryID, s.UserID)
	r := myRemindersRecord{PK: k.PK, SK: k.SK, EntityType: entityMyReminder, CalendarID: s.Root.CalendarID,
		EntryID: s.Root.EntryID, UserID: s.UserID, All: choiceRecord(s.All), Version: s.Version, UpdatedAt: s.UpdatedAt}
	for _, g := range s.Following {
		r.Following = append(r.Following, reminderSpanRecord{At: instantKey(g.From), reminderChoiceRecord: choiceRecord(g.ReminderChoice)})
	}
	for _, o := range s.Overrides {
		r.Overrides = append(r.Overrides, reminderSpanRecord{At: instantKey(o.OriginalStart), reminderChoiceRecord: choiceRecord(o.ReminderChoice)})
	}
	return r
}

func choiceRecord(c calendar.ReminderChoice) reminderChoiceRecord {
	r := reminderChoiceRecord{Default: c.Default, Reminders: []reminderRecord{}}
	for _, m := range c.Reminders {
		r.Reminders = append(r.Reminders, reminderRecord{Minutes: m.Minutes, Method: string(m.Method)})
	}
	return r
}

// setting decodes the record, checking what a write could not have
// written: reminders out of bounds, unsorted spans, too many of them.
func (r myRemindersRecord) setting() (*calendar.ReminderSetting, error) {
	s := &calendar.ReminderSetting{Root: calendar.EntryKey{CalendarID: r.CalendarID, EntryID: r.EntryID}, UserID: r.UserID,
		Version: r.Version, UpdatedAt: r.UpdatedAt}
	if k := myRemindersKey(r.CalendarID, r.EntryID, r.UserID); k.PK != r.PK || k.SK != r.SK || r.UserID == "" || r.EntryID == "" {
		return nil, fmt.Errorf("reminders %s/%s: key does not match calendar %q, entry %q, user %q", r.PK, r.SK, r.CalendarID, r.EntryID, r.UserID)
	}
	var err error
	if s.All, err = r.All.choice(); err != nil {
		return nil, fmt.Errorf("reminders %s: %w", r.SK, err)
	}
	if len(r.Following) > calendar.MaxReminderSegments || len(r.Overrides) > calendar.MaxReminderOverrides {
		return nil, fmt.Errorf("reminders %s: %d segments and %d overrides, past the bounds", r.SK, len(r.Following), len(r.Overrides))
	}
	var last time.Time
	for _, g := range r.Following {
		at, c, err := g.span(last)
		if err != nil {
			return nil, fmt.Errorf("reminders %s: segment: %w", r.SK, err)
		}
		s.Following, last = append(s.Following, calendar.ReminderSegment{From: at, ReminderChoice: c}), at
	}
	last = time.Time{}
	for _, o := range r.Overrides {
		at, c, err := o.span(last)
		if err != nil {
			return nil, fmt.Errorf("reminders %s: override: %w", r.SK, err)
		}
		s.Overrides, last = append(s.Overrides, calendar.ReminderOverride{OriginalStart: at, ReminderChoice: c}), at
	}
	return s, nil
}

func (r reminderChoiceRecord) choice() (calendar.ReminderChoice, error) {
	if r.Default {
		if len(r.Reminders) > 0 {
			return calendar.ReminderChoice{}, errors.New("both the default and reminders")
		}
		return calendar.ReminderChoice{Default: true}, nil
	}
	in := make([]calendar.Reminder, 0, len(r.Reminders))
	for _, m := range r.Reminders {
		if m.Method == "" {
			return calendar.ReminderChoice{}, errors.New("a reminder without a method")
		}
		in = append(in, calendar.Reminder{Minutes: m.Minutes, Method: calendar.ReminderMethod(m.Method)})
	}
	out, err := calendar.ValidReminders("reminders", in)
	if err == nil && len(out) != len(in) {
		err = errors.New("repeated reminders")
	}
	return calendar.ReminderChoice{Reminders: out}, err
}

// span decodes a segment or override that must come after last.
func (r reminderSpanRecord) span(last time.Time) (time.Time, calendar.ReminderChoice, error) {
	at, err := time.Parse(time.RFC3339Nano, r.At)
	if err != nil || instantKey(at) != r.At {
		return at, calendar.ReminderChoice{}, fmt.Errorf("instant %q", r.At)
	}
	if !last.IsZero() && !at.After(last) {
		return at, calendar.ReminderChoice{}, fmt.Errorf("%s not after %s", r.At, instantKey(last))
	}
	c, err := r.choice()
	return at, c, err
}

func decodeMyReminders(it item) (*calendar.ReminderSetting, error) {
	r, err := unmarshal[myRemindersRecord](it)
	if err != nil {
		return nil, err
	}
	return r.setting()
}

// RemindersOfEntry implements calendar.MyRemindersService: one strongly
// consistent Query of the root's MYREM# prefix.
func (s *Store) RemindersOfEntry(ctx context.Context, root calendar.EntryKey) ([]*calendar.ReminderSetting, error) {
	if err := validEntryKey(root); err != nil {
		return nil, err
	}
	lo, hi := prefixRange(myRemindersPrefix(root.EntryID))
	items, err := s.queryBetween(ctx, "", attrSK, calendarPartition(root.CalendarID), lo, hi, filter{}, math.MaxInt)
	if err != nil {
		return nil, fmt.Errorf("reminders of %s: %w", root.EntryID, err)
	}
	out := make([]*calendar.ReminderSetting, 0, len(items))
	for _, it := range items {
		set, err := decodeMyReminders(it)
		if err != nil {
			return nil, err
		}
		out = append(out, set)
	}
	return out, nil
}

// myRemindersChanged explains a failed condition on the setting item:
// another write changed it since it was read at version asRead. A client
// that named the version it expected gets VERSION_CONFLICT; one that did not
// has the change read and applied again (errRemindersRaced).
func myRemindersChanged(asRead int, clientExpected bool) explainFunc {
	return func(old item) error {
		if !clientExpected {
			return errRemindersRaced
		}
		if old == nil {
			return calendar.Errorf(calendar.CodeVersionConflict, "your reminders have no version %d: reload them and try again", asRead)
		}
		return versionMismatch("your reminders", asRead)(old)
	}
}

// errRemindersRaced is a setting written by another request between the
// read and the write of one with no expected version: read and apply again.
var errRemindersRaced = errors.New("reminders changed since read")
