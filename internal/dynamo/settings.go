package dynamo

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"

	"github.com/calgraph/calgraph/internal/calendar"
)

// A member's own settings of a calendar (calendar.Settings) are attributes
// of their membership item: GSI1 projects them, so the viewer's list reads
// them with no read of its own, and they go when the membership goes. Only
// UpdateCalendarSettings writes them, with an UpdateItem of these
// attributes alone, conditional on their own version (setVersion); the role
// writes (ChangeRole) update only theirs, conditional on the role's version,
// so neither can undo the other.

// settingsRecord holds the settings on a membership record; every attribute
// is absent while it has its default (DefaultSettings).
type settingsRecord struct {
	SetColor      string     `dynamodbav:"setColor,omitempty"`
	SetName       string     `dynamodbav:"setName,omitempty"`
	SetHidden     bool       `dynamodbav:"setHidden,omitempty"`
	SetUnselected bool       `dynamodbav:"setUnselected,omitempty"`
	SetSortKey    string     `dynamodbav:"setSortKey,omitempty"`
	SetReminders  []string   `dynamodbav:"setReminders,omitempty"` // "<minutes>:<method>", earliest due first
	SetVersion    int        `dynamodbav:"setVersion,omitempty"`
	SetUpdatedAt  *time.Time `dynamodbav:"setUpdatedAt,omitempty"`
}

// The settings attributes, as settingsRecord names them.
const (
	attrSetColor      = "setColor"
	attrSetName       = "setName"
	attrSetHidden     = "setHidden"
	attrSetUnselected = "setUnselected"
	attrSetSortKey    = "setSortKey"
	attrSetReminders  = "setReminders"
	attrSetVersion    = "setVersion"
	attrSetUpdatedAt  = "setUpdatedAt"
)

func newSettingsRecord(s calendar.Settings) settingsRecord {
	r := settingsRecord{SetColor: s.Color, SetName: s.Name, SetHidden: s.Hidden, SetUnselected: !s.Selected,
		SetSortKey: s.SortKey, SetVersion: s.Version}
	for _, m := range s.DefaultReminders {
		r.SetReminders = append(r.SetReminders, fmt.Sprintf("%d:%s", m.Minutes, m.Method))
	}
	if !s.UpdatedAt.IsZero() {
		t := s.UpdatedAt
		r.SetUpdatedAt = &t
	}
	return r
}

// settings maps the record to the domain; a reminder it cannot read (which
// Store.Check reports) is left out rather than failing every list read.
func (r settingsRecord) settings() calendar.Settings {
	s := calendar.Settings{Color: r.SetColor, Name: r.SetName, Hidden: r.SetHidden, Selected: !r.SetUnselected,
		SortKey: r.SetSortKey, Version: r.SetVersion}
	for _, text := range r.SetReminders {
		if m, err := parseReminder(text); err == nil {
			s.DefaultReminders = append(s.DefaultReminders, m)
		}
	}
	if r.SetUpdatedAt != nil {
		s.UpdatedAt = *r.SetUpdatedAt
	}
	return s
}

func parseReminder(text string) (calendar.Reminder, error) {
	minutes, method, _ := strings.Cut(text, ":")
	n, err := strconv.Atoi(minutes)
	if err != nil {
		return calendar.Reminder{}, fmt.Errorf("reminder %q: %w", text, err)
	}
	return calendar.Reminder{Minutes: n, Method: calendar.ReminderMethod(method)}, nil
}

// checkSettings reports what is wrong with a membership item's settings
// attributes (Store.Check): shapes input validation would refuse, and a
// version that does not fit the rest.
func checkSettings(r settingsRecord) error {
	s := r.settings()
	var problems []string
	if s.Color != "" && calendar.ValidateColor("color", s.Color) != nil {
		problems = append(problems, fmt.Sprintf("color %q", s.Color))
	}
	if s.Name != "" && calendar.ValidateName("name", s.Name) != nil {
		problems = append(problems, "name")
	}
	if calendar.ValidateSortKey("sortKey", s.SortKey) != nil {
		problems = append(problems, fmt.Sprintf("sort key %q", s.SortKey))
	}
	if rs, err := calendar.ValidReminders("reminders", s.DefaultReminders); err != nil || len(s.DefaultReminders) != len(r.SetReminders) || !reflect.DeepEqual(rs, s.DefaultReminders) {
		problems = append(problems, fmt.Sprintf("reminders %q", r.SetReminders))
	}
	if s.Version < 0 || (s.Version == 0) != (r.SetUpdatedAt == nil) {
		problems = append(problems, fmt.Sprintf("version %d with updatedAt %v", s.Version, r.SetUpdatedAt))
	}
	if s.Version == 0 && !reflect.DeepEqual(s, calendar.DefaultSettings()) {
		problems = append(problems, "settings changed at version 0")
	}
	if problems != nil {
		return fmt.Errorf("bad settings: %s", strings.Join(problems, ", "))
	}
	return nil
}

// UpdateCalendarSettings implements calendar.SettingsService. The write is
// the membership's settings attributes, a check that the calendar is still
// there, and a change record in the viewer's own log: nothing of the
// calendar's (no revision raised, no record in its log), so the other
// members' views, caches and syncs see nothing. A change of the default
// reminders also writes their copy the reminder schedule reads (REMDEF) and
// an arm item (remind_people.go).
func (s *Store) UpdateCalendarSettings(ctx context.Context, u calendar.SettingsUpdate) (*calendar.Membership, *calendar.Calendar, error) {
	viewer, err := calendar.ViewerID(ctx)
	if err != nil {
		return nil, nil, err
	}
	if err := calendar.ValidateID("calendarId", u.CalendarID); err != nil {
		return nil, nil, err
	}
	if _, err := u.Apply(calendar.DefaultSettings()); err != nil { // bad input fails before any read
		return nil, nil, err
	}
	m, cal, err := s.ownMembership(ctx, u.CalendarID, viewer)
	if err != nil {
		return nil, nil, err
	}
	if m.Settings.Version != u.ExpectedVersion {
		return nil, cal, errSettingsVersion(m.Settings.Version, u.ExpectedVersion)
	}
	next, err := u.Apply(*m.Settings)
	if err != nil {
		return nil, cal, err
	}
	if reflect.DeepEqual(next, *m.Settings) {
		return m, cal, nil // nothing to change: nothing written, as ChangeRole to the same role
	}
	next.Version, next.UpdatedAt = next.Version+1, s.timestamp()
	mk, ck := membershipKey(u.CalendarID, viewer), calendarKey(u.CalendarID)
	w := newWrite()
	w.Idempotent(ctx)
	w.Update(mk, settingsUpdate(next), settingsAsRead(u.ExpectedVersion), settingsChangedSince(u.ExpectedVersion))
	w.Guard(opCheck(ck, exists(), func(item) error { return errCalendarNotFound() }))
	w.LogOwnMembership(u.CalendarID, viewer)
	if !slices.Equal(next.DefaultReminders, m.Settings.DefaultReminders) {
		// The reminder schedule's copy of the defaults (REMDEF), and an
		// arm item that arms them over the calendar's next occurrences.
		w.Add(reminderDefaultsOps(u.CalendarID, viewer, next.DefaultReminders, next.UpdatedAt)...)
	}
	if err := s.commit(ctx, w); err != nil {
		return nil, cal, fmt.Errorf("update settings of calendar %s: %w", u.CalendarID, err)
	}
	m.Settings = &next
	return m, cal, nil
}

// ownMembership reads the viewer's membership of a calendar, and the
// calendar, strongly: NOT_FOUND when either is missing.
func (s *Store) ownMembership(ctx context.Context, calendarID, viewer string) (*calendar.Membership, *calendar.Calendar, error) {
	mk, ck := membershipKey(calendarID, viewer), calendarKey(calendarID)
	items, err := s.batchGet(ctx, []itemKey{mk, ck})
	if err != nil {
		return nil, nil, err
	}
	if items[mk] == nil || items[ck] == nil {
		return nil, nil, errCalendarNotFound()
	}
	rec, err := decodeMembershipRecord(items[mk])
	if err != nil {
		return nil, nil, err
	}
	crec, err := decodeCalendarRecord(items[ck])
	if err != nil {
		return nil, nil, err
	}
	return rec.membership(), crec.calendar(), nil
}

// settingsUpdate sets the settings attributes to s's, removing those at
// their default.
func settingsUpdate(s calendar.Settings) expression.UpdateBuilder {
	r := newSettingsRecord(s)
	var upd expression.UpdateBuilder
	put := func(name string, v any, isDefault bool) {
		if isDefault {
			upd = upd.Remove(expression.Name(name))
		} else {
			upd = upd.Set(expression.Name(name), expression.Value(v))
		}
	}
	put(attrSetColor, r.SetColor, r.SetColor == "")
	put(attrSetName, r.SetName, r.SetName == "")
	put(attrSetHidden, true, !r.SetHidden)
	put(attrSetUnselected, true, !r.SetUnselected)
	put(attrSetSortKey, r.SetSortKey, r.SetSortKey == "")
	put(attrSetReminders, r.SetReminders, len(r.SetReminders) == 0)
	put(attrSetVersion, r.SetVersion, false)
	put(attrSetUpdatedAt, s.UpdatedAt, false)
	return upd
}

// settingsAsRead holds while the membership exists with the settings
// version read (none at 0).
func settingsAsRead(version int) expression.ConditionBuilder {
	if version == 0 {
		return exists().And(expression.AttributeNotExists(expression.Name(attrSetVersion)))
	}
	return exists().And(expression.Name(attrSetVersion).Equal(expression.Value(version)))
}

// settingsChangedSince explains a failed settingsAsRead: NOT_FOUND when the
// membership is gone (the viewer left or was removed), VERSION_CONFLICT when
// the settings changed.
func settingsChangedSince(expected int) explainFunc {
	return func(old item) error {
		if old == nil {
			return errCalendarNotFound()
		}
		r, _ := decodeMembershipRecord(old)
		return errSettingsVersion(r.SetVersion, expected)
	}
}

func errSettingsVersion(have, expected int) error {
	return calendar.Errorf(calendar.CodeVersionConflict,
		"your settings of this calendar have version %d, not the expected %d: reload them and try again", have, expected)
}

// defaultSettings are a new membership's settings: its member has not
// changed them yet.
func defaultSettings() *calendar.Settings {
	s := calendar.DefaultSettings()
	return &s
}
