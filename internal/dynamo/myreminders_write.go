package dynamo

import (
	"context"
	"errors"
	"fmt"

	"github.com/calgraph/calgraph/internal/calendar"
)

// maxRemindersAttempts bounds how often a change with no expected version
// is read and applied again when another device's change lands between its
// read and its write.
const maxRemindersAttempts = 5

// SetMyReminders implements calendar.MyRemindersService. It reads the
// entry, the viewer's membership, their invitation and their setting in one
// BatchGetItem, applies the change to the setting as read, and writes it in
// one transaction (myRemindersWrite) on condition that the setting is still
// at the version read: two devices changing one setting at once never lose
// one of the changes (the second is applied again on top of the first, or,
// when it named the version it expected, is VERSION_CONFLICT).
func (s *Store) SetMyReminders(ctx context.Context, c calendar.MyRemindersChange) (*calendar.ReminderSetting, error) {
	viewer, err := calendar.ViewerID(ctx)
	if err != nil {
		return nil, err
	}
	if err := validEntryKey(c.Key); err != nil {
		return nil, errEntryNotFound()
	}
	choice, err := c.Choice()
	if err != nil {
		return nil, err
	}
	for attempt := 1; ; attempt++ {
		set, err := s.setMyReminders(ctx, viewer, c, choice)
		if !errors.Is(err, errRemindersRaced) || attempt == maxRemindersAttempts {
			return set, err
		}
	}
}

// remindersReader is what decides whether a user may keep reminders on an
// entry: its item, and their membership, invitation and setting.
type remindersReader struct {
	entry, member, attendee, setting item
}

func (s *Store) setMyReminders(ctx context.Context, viewer string, c calendar.MyRemindersChange, choice calendar.ReminderChoice) (*calendar.ReminderSetting, error) {
	k := c.Key
	ek, mk, ak, rk := entryKey(k.CalendarID, k.EntryID), membershipKey(k.CalendarID, viewer),
		attendeeKey(k.CalendarID, k.EntryID, attendeeWho(viewer, "")), myRemindersKey(k.CalendarID, k.EntryID, viewer)
	items, err := s.batchGet(ctx, []itemKey{ek, mk, ak, rk})
	if err != nil {
		return nil, err
	}
	read := remindersReader{entry: items[ek], member: items[mk], attendee: items[ak], setting: items[rk]}
	e, byMember, err := readsWhole(viewer, read)
	if err != nil {
		return nil, err
	}
	if c, err = c.ScopeOn(e.IsSeries()); err != nil {
		return nil, err
	}
	w := newWrite()
	w.Idempotent(ctx)
	if !c.Occurrence.IsZero() {
		rec, err := decodeEntryRecord(read.entry)
		if err != nil {
			return nil, err
		}
		check, err := s.liveOccurrence(ctx, e, rec.Gen, calendar.RSVP{Occurrence: c.Occurrence})
		if err != nil {
			return nil, err
		}
		w.Add(check)
	}
	set := calendar.NewReminderSetting(k, viewer)
	if read.setting != nil {
		if set, err = decodeMyReminders(read.setting); err != nil {
			return nil, err
		}
	}
	asRead := set.Version
	if c.ExpectedVersion != nil && *c.ExpectedVersion != asRead {
		return nil, calendar.Errorf(calendar.CodeVersionConflict,
			"your reminders have version %d, not the expected %d: reload them and try again", asRead, *c.ExpectedVersion)
	}
	if err := set.Apply(c.Scope, c.Occurrence, choice); err != nil {
		return nil, err
	}
	set.Version, set.UpdatedAt = asRead+1, s.timestamp()
	myRemindersWrite(w, viewer, k, byMember, set, asRead, c.ExpectedVersion != nil)
	w.Add(rearmOp(k.CalendarID, k.EntryID, viewer, set.UpdatedAt)) // arm them from now on (remind_people.go)
	if err := s.commit(ctx, w); err != nil {
		return nil, fmt.Errorf("set reminders on %s: %w", k.EntryID, err)
	}
	return set, nil
}

// readsWhole returns the entry read and whether viewer reads it as a member
// (else as someone invited to it), when they may read it whole: a member
// whose role reads the calendar, or someone invited to the entry, and in
// either case one who sees a PRIVATE entry's details. Anyone else, a
// FREE_BUSY member among them, is told there is no such entry.
func readsWhole(viewer string, r remindersReader) (*calendar.Entry, bool, error) {
	e, _, err := entryOfItem(r.entry)
	if err != nil {
		return nil, false, err
	}
	role := calendar.Role("")
	if r.member != nil {
		m, err := decodeMembershipRecord(r.member)
		if err != nil {
			return nil, false, err
		}
		role = calendar.Role(m.Role)
	}
	member := role.Can(calendar.ActionRead)
	invited := r.attendee != nil
	if !member && !invited || !e.SeesDetails(viewer, role, invited) {
		return nil, false, errEntryNotFound()
	}
	return e, member, nil
}

// myRemindersWrite adds the write of viewer's setting set on entry or series
// root to w: the Put of the setting on condition that it is as read (at
// version asRead, none for 0), and checks that the entry still exists and
// that the viewer still reads it (their membership, or their invitation when
// they read as an invitee). Nothing else: the entry, its calendar's
// revision and its change log stay as they are.
//
// The scheduler (issue 27's firing) adds its one action here, to this same
// transaction: the re-arming of this entry's reminders for the viewer.
func myRemindersWrite(w *write, viewer string, root calendar.EntryKey, byMember bool, set *calendar.ReminderSetting, asRead int, clientExpected bool) {
	notFound := func(item) error { return errEntryNotFound() }
	w.Guard(opCheck(entryKey(root.CalendarID, root.EntryID), exists(), notFound))
	if byMember {
		w.Guard(opCheck(membershipKey(root.CalendarID, viewer), roleIn(calendar.RolesAllowed(calendar.ActionRead)), notFound))
	} else {
		w.Guard(opCheck(attendeeKey(root.CalendarID, root.EntryID, attendeeWho(viewer, "")), exists(), notFound))
	}
	cond := notExists()
	if asRead > 0 {
		cond = versionIs(asRead)
	}
	w.Put(myRemindersKey(root.CalendarID, root.EntryID, viewer), newMyRemindersRecord(set), cond, myRemindersChanged(asRead, clientExpected))
}
