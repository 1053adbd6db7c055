package dynamo

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/calgraph/calgraph/internal/calendar"
)

// getItem reads one item with a strongly consistent GetItem and reports
// whether it exists.
func (s *Store) getItem(ctx context.Context, k itemKey) (item, bool, error) {
	out, err := s.reads.GetItem(ctx, &dynamodb.GetItemInput{
		TableName: aws.String(s.table), Key: k.av(), ConsistentRead: aws.Bool(true),
	})
	if err != nil {
		return nil, false, fmt.Errorf("get %s/%s: %w", k.PK, k.SK, err)
	}
	return out.Item, len(out.Item) > 0, nil
}

// Read implements calendar.Reader: whatever mix of items is asked for goes into
// one batch of BatchGetItem calls.
func (s *Store) Read(ctx context.Context, k calendar.Keys) (*calendar.Items, error) {
	out := &calendar.Items{
		Users: map[string]*calendar.User{}, Calendars: map[string]*calendar.Calendar{},
		Memberships: map[calendar.MembershipKey]*calendar.Membership{}, Entries: map[calendar.EntryKey]*calendar.Entry{},
		Attendees: map[calendar.AttendeeKey]*calendar.Attendee{}, MyReminders: map[calendar.MyRemindersKey]*calendar.ReminderSetting{},
	}
	var keys []itemKey
	for _, id := range k.Users {
		keys = append(keys, userKey(id))
	}
	for _, id := range k.Calendars {
		keys = append(keys, calendarKey(id))
	}
	for _, m := range k.Memberships {
		keys = append(keys, membershipKey(m.CalendarID, m.UserID))
	}
	for _, e := range k.Entries {
		keys = append(keys, entryKey(e.CalendarID, e.EntryID))
	}
	for _, a := range k.Attendees {
		keys = append(keys, attendeeKey(a.Entry.CalendarID, a.Entry.EntryID, attendeeWho(a.UserID, "")))
	}
	for _, r := range k.MyReminders {
		keys = append(keys, myRemindersKey(r.Root.CalendarID, r.Root.EntryID, r.UserID))
	}
	if len(keys) == 0 {
		return out, nil
	}
	found, err := s.batchGet(ctx, keys)
	if err != nil {
		return nil, err
	}
	for _, it := range found {
		if err := addItem(out, it); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// addItem decodes an item and adds it to the map of its entity type.
func addItem(out *calendar.Items, it item) error {
	switch stringAttr(it, "entityType") {
	case entityUser:
		r, err := unmarshal[userRecord](it)
		out.Users[r.ID] = r.user()
		return err
	case entityCalendar:
		r, err := decodeCalendarRecord(it)
		out.Calendars[r.ID] = r.calendar()
		return err
	case entityMembership:
		r, err := decodeMembershipRecord(it)
		m := r.membership()
		out.Memberships[m.Key()] = m
		return err
	case entityEntry, entitySeries:
		r, err := decodeEntryRecord(it)
		if err != nil {
			return err
		}
		e, err := r.entry()
		if err == nil {
			out.Entries[e.Key()] = e
		}
		return err
	case entityAttendee:
		a, err := decodeAttendee(it)
		if err == nil {
			out.Attendees[calendar.AttendeeKey{Entry: a.Key(), UserID: a.UserID}] = a
		}
		return err
	case entityMyReminder:
		r, err := decodeMyReminders(it)
		if err == nil {
			out.MyReminders[calendar.MyRemindersKey{Root: r.Root, UserID: r.UserID}] = r
		}
		return err
	}
	return fmt.Errorf("read: unexpected item %s/%s", stringAttr(it, attrPK), stringAttr(it, attrSK))
}
