package dynamo_test

import (
	"context"
	"maps"
	"testing"

	"github.com/calgraph/calgraph/internal/calendar"
)

// readMembership reads key's membership and its calendar strongly, as the
// loaders do.
func readMembership(t *testing.T, f *fixture, ctx context.Context, key calendar.MembershipKey) (*calendar.Membership, *calendar.Calendar) {
	t.Helper()
	found, err := f.store.Read(ctx, calendar.Keys{Memberships: []calendar.MembershipKey{key}, Calendars: []string{key.CalendarID}})
	if err != nil {
		t.Fatal(err)
	}
	return found.Memberships[key], found.Calendars[key.CalendarID]
}

// TestSettingsAndRoleWritesKeepEachOther: a member's settings and their role
// are written by different people, each versioned on its own, and neither
// write undoes the other however they interleave; two settings writes from
// the same version conflict, reported and not swallowed; a member removed
// meanwhile is NOT_FOUND. No write raises the calendar's revision for the
// settings, and the table stays consistent.
func TestSettingsAndRoleWritesKeepEachOther(t *testing.T) {
	recolor := func(version int, color string) calendar.SettingsUpdate {
		return calendar.SettingsUpdate{ExpectedVersion: version, Color: calendar.Set(ptr(color))}
	}
	t.Run("settings changed between a role change's read and its write", func(t *testing.T) {
		f := newFixture(t)
		r := f.roles()
		u := recolor(0, "#112233")
		u.CalendarID = r.cal.ID
		interleave(t, f.store, func() {
			if _, _, err := f.store.UpdateCalendarSettings(r.reader, u); err != nil {
				t.Errorf("settings meanwhile: %v", err)
			}
		})
		if _, _, err := f.store.ChangeRole(r.owner, r.readerM.Key(), calendar.RoleWriter, r.readerM.Version); err != nil {
			t.Fatal(err)
		}
		m, _ := readMembership(t, f, r.reader, r.readerM.Key())
		if m.Role != calendar.RoleWriter || m.Settings.Color != "#112233" || m.Settings.Version != 1 {
			t.Errorf("got role %s, settings %+v; want WRITER and #112233 at version 1", m.Role, *m.Settings)
		}
		f.consistent()
	})
	t.Run("role changed between a settings write's read and its write", func(t *testing.T) {
		f := newFixture(t)
		r := f.roles()
		interleave(t, f.store, func() {
			if _, _, err := f.store.ChangeRole(r.owner, r.readerM.Key(), calendar.RoleFreeBusy, r.readerM.Version); err != nil {
				t.Errorf("role meanwhile: %v", err)
			}
		})
		u := recolor(0, "#445566")
		u.CalendarID = r.cal.ID
		if _, _, err := f.store.UpdateCalendarSettings(r.reader, u); err != nil {
			t.Fatal(err)
		}
		m, _ := readMembership(t, f, r.reader, r.readerM.Key())
		if m.Role != calendar.RoleFreeBusy || m.Version != r.readerM.Version+1 || m.Settings.Color != "#445566" {
			t.Errorf("got role %s version %d, settings %+v; want FREE_BUSY, %d and #445566", m.Role, m.Version, *m.Settings, r.readerM.Version+1)
		}
		f.consistent()
	})
	t.Run("two settings writes from the same version", func(t *testing.T) {
		f := newFixture(t)
		r := f.roles()
		first, second := recolor(0, "#000001"), recolor(0, "#000002")
		first.CalendarID, second.CalendarID = r.cal.ID, r.cal.ID
		interleave(t, f.store, func() {
			if _, _, err := f.store.UpdateCalendarSettings(r.reader, first); err != nil {
				t.Errorf("first write: %v", err)
			}
		})
		_, _, err := f.store.UpdateCalendarSettings(r.reader, second)
		wantCode(t, err, calendar.CodeVersionConflict)
		m, _ := readMembership(t, f, r.reader, r.readerM.Key())
		if m.Settings.Color != "#000001" || m.Settings.Version != 1 {
			t.Errorf("got settings %+v, want the first write's at version 1", *m.Settings)
		}
		f.consistent()
	})
	t.Run("member removed before the write", func(t *testing.T) {
		f := newFixture(t)
		r := f.roles()
		interleave(t, f.store, func() {
			if err := f.store.RemoveMember(r.owner, r.readerM.Key(), r.readerM.Version); err != nil {
				t.Errorf("remove meanwhile: %v", err)
			}
		})
		u := recolor(0, "#778899")
		u.CalendarID = r.cal.ID
		_, _, err := f.store.UpdateCalendarSettings(r.reader, u)
		wantCode(t, err, calendar.CodeNotFound)
		f.consistent()
	})
	t.Run("no revision raised", func(t *testing.T) {
		f := newFixture(t)
		r := f.roles()
		_, before := readMembership(t, f, r.owner, r.ownerM.Key())
		u := calendar.SettingsUpdate{CalendarID: r.cal.ID, Name: calendar.Set(ptr("Mine")), Hidden: calendar.Set(true),
			SortKey: calendar.Set("a0"), DefaultReminders: calendar.Set([]calendar.Reminder{{Minutes: 10}})}
		m, _, err := f.store.UpdateCalendarSettings(r.reader, u)
		if err != nil {
			t.Fatal(err)
		}
		if want := (calendar.Settings{Name: "Mine", Hidden: true, Selected: true, SortKey: "a0", Version: 1, UpdatedAt: m.Settings.UpdatedAt,
			DefaultReminders: []calendar.Reminder{{Minutes: 10, Method: calendar.ReminderInApp}}}); !settingsEqual(*m.Settings, want) {
			t.Errorf("got %+v, want %+v", *m.Settings, want)
		}
		_, after := readMembership(t, f, r.owner, r.ownerM.Key())
		if after.Revision != before.Revision || after.Version != before.Version {
			t.Errorf("the calendar went from revision %d version %d to %d %d, want unchanged", before.Revision, before.Version, after.Revision, after.Version)
		}
		f.consistent()
	})
}

func settingsEqual(a, b calendar.Settings) bool {
	if len(a.DefaultReminders) != len(b.DefaultReminders) {
		return false
	}
	for i := range a.DefaultReminders {
		if a.DefaultReminders[i] != b.DefaultReminders[i] {
			return false
		}
	}
	a.DefaultReminders, b.DefaultReminders = nil, nil
	return a.Color == b.Color && a.Name == b.Name && a.Hidden == b.Hidden && a.Selected == b.Selected &&
		a.SortKey == b.SortKey && a.Version == b.Version && a.UpdatedAt.Equal(b.UpdatedAt)
}

// TestSettingsCheck: Store.Check reports a membership's settings that input
// validation would refuse, or whose version does not fit them.
func TestSettingsCheck(t *testing.T) {
	f := newFixture(t)
	r := f.roles()
	u := calendar.SettingsUpdate{CalendarID: r.cal.ID, Name: calendar.Set(ptr("Mine"))}
	if _, _, err := f.store.UpdateCalendarSettings(r.reader, u); err != nil {
		t.Fatal(err)
	}
	f.consistent()
	it := f.rawMembership(r.readerM.Key())
	bad := maps.Clone(it)
	bad["setColor"] = "blue"
	bad["setReminders"] = []any{"ten:IN_APP"}
	f.putItem(bad)
	defer f.putItem(it)
	problems, err := f.store.Check(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(problems) != 1 {
		t.Fatalf("got problems %q, want one about the bad settings", problems)
	}
}

// rawMembership returns key's membership item as plain Go values.
func (f *fixture) rawMembership(key calendar.MembershipKey) map[string]any {
	f.t.Helper()
	for _, it := range f.items() {
		if it["entityType"] == "MEMBERSHIP" && it["calendarId"] == key.CalendarID && it["userId"] == key.UserID {
			return it
		}
	}
	f.t.Fatalf("no membership item of %+v", key)
	return nil
}
