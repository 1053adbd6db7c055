package dynamo_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/calgraph/calgraph/internal/calendar"
	"github.com/calgraph/calgraph/internal/dynamo"
)

func own(ms ...int) []calendar.Reminder {
	var out []calendar.Reminder
	for _, m := range ms {
		out = append(out, calendar.Reminder{Minutes: m, Method: calendar.ReminderInApp})
	}
	return out
}

// TestMyRemindersNoLostUpdate: two devices of one user change one series'
// setting at once. The one whose write loses the race (the other commits
// between its read and its write) is read and applied again on top, so both
// changes stand; with an expected version it is VERSION_CONFLICT instead.
func TestMyRemindersNoLostUpdate(t *testing.T) {
	f := newFixture(t)
	ann := f.user("ann-lost@example.com")
	cal := f.calendarOf(ann, "Team")
	series, _, err := f.store.CreateEntry(ann, calendar.NewEntry{CalendarID: cal.ID, Title: "Weekly",
		Timing: timed("2026-12-01T09:00:00Z", "2026-12-01T10:00:00Z", "UTC"), Recurrence: &calendar.Recurrence{Rule: "FREQ=WEEKLY;COUNT=4"}})
	f.mustDo(err)
	first, second := at("2026-12-08T09:00:00Z"), at("2026-12-15T09:00:00Z")
	var raced atomic.Bool
	dynamo.SetBeforeTransact(f.store, func(ctx context.Context) {
		if raced.Swap(true) {
			return
		}
		// The other device, between this one's read and write.
		_, err := f.store.SetMyReminders(ann, calendar.MyRemindersChange{Key: series.Key(), Occurrence: second, Scope: calendar.ScopeThis, Reminders: own(2)})
		f.mustDo(err)
	})
	set, err := f.store.SetMyReminders(ann, calendar.MyRemindersChange{Key: series.Key(), Occurrence: first, Scope: calendar.ScopeThis, Reminders: own(1)})
	f.mustDo(err)
	dynamo.SetBeforeTransact(f.store, nil)
	for _, c := range []struct {
		at   time.Time
		want []calendar.Reminder
	}{{first, own(1)}, {second, own(2)}} {
		if got, ok := set.At(c.at); !ok || !slices.Equal(got, c.want) {
			t.Errorf("at %s: got %v, %v; want %v", c.at, got, ok, c.want)
		}
	}
	if set.Version != 2 {
		t.Errorf("got version %d, want 2", set.Version)
	}
	stale := 1
	_, err = f.store.SetMyReminders(ann, calendar.MyRemindersChange{Key: series.Key(), Reminders: own(3), ExpectedVersion: &stale})
	if calendar.ErrorCode(err) != calendar.CodeVersionConflict {
		t.Errorf("a stale expected version: got %v, want VERSION_CONFLICT", err)
	}
}

// TestMyRemindersLifecycle: the scheduler's one Query reads every user's
// setting on an entry; a move takes them along; a deletion, of an entry or
// a series, keeps them to expire with its trash item, and a restore keeps
// them for good again (Store.Check, run after each, finds none on a gone
// entry but those kept with the trash).
func TestMyRemindersLifecycle(t *testing.T) {
	f := newFixture(t)
	ann, bob := f.user("ann-life@example.com"), f.user("bob-life@example.com")
	cal, other := f.calendarOf(ann, "Team"), f.calendarOf(ann, "Other")
	f.share(ann, cal, bob, "bob-life@example.com", calendar.RoleReader)
	e, _, err := f.store.CreateEntry(ann, calendar.NewEntry{CalendarID: cal.ID, Title: "Talk", Timing: timed("2026-12-01T09:00:00Z", "2026-12-01T10:00:00Z", "UTC")})
	f.mustDo(err)
	for i, who := range []context.Context{ann, bob} {
		_, err := f.store.SetMyReminders(who, calendar.MyRemindersChange{Key: e.Key(), Reminders: own(i + 1)})
		f.mustDo(err)
	}
	sets, err := f.store.RemindersOfEntry(context.Background(), e.Key())
	f.mustDo(err)
	if len(sets) != 2 {
		t.Fatalf("got %d settings, want ann's and bob's", len(sets))
	}
	moved, _, err := f.store.MoveEntry(ann, e.Key(), e.Version, other.ID)
	f.mustDo(err)
	if sets, _ := f.store.RemindersOfEntry(context.Background(), moved.Key()); len(sets) != 2 {
		t.Errorf("after the move: got %d settings, want 2", len(sets))
	}
	if sets, _ := f.store.RemindersOfEntry(context.Background(), e.Key()); len(sets) != 0 {
		t.Errorf("left behind by the move: %d settings", len(sets))
	}
	f.mustDo(f.store.DeleteEntry(ann, moved.Key(), moved.Version))
	f.wantKeptWithTrash(moved.ID, 2, true)
	_, _, err = f.store.RestoreEntry(ann, moved.Key())
	f.mustDo(err)
	f.wantKeptWithTrash(moved.ID, 2, false)
	if sets, _ := f.store.RemindersOfEntry(context.Background(), moved.Key()); len(sets) != 2 {
		t.Errorf("after the restore: got %d settings, want 2", len(sets))
	}

	series, _, err := f.store.CreateEntry(ann, calendar.NewEntry{CalendarID: cal.ID, Title: "Weekly",
		Timing: timed("2026-12-01T09:00:00Z", "2026-12-01T10:00:00Z", "UTC"), Recurrence: &calendar.Recurrence{Rule: "FREQ=WEEKLY;COUNT=4"}})
	f.mustDo(err)
	_, err = f.store.SetMyReminders(bob, calendar.MyRemindersChange{Key: series.Key(), Occurrence: at("2026-12-08T09:00:00Z"), Reminders: own(5)})
	f.mustDo(err)
	f.mustDo(f.store.DeleteOccurrence(ann, calendar.OccurrenceKey{CalendarID: cal.ID, SeriesID: series.ID, OriginalStart: at("2026-12-08T09:00:00Z")}, calendar.ScopeAll, series.Version))
	f.wantKeptWithTrash(series.ID, 1, true)
	f.consistent()
	_, _, err = f.store.RestoreEntry(ann, series.Key())
	f.mustDo(err)
	f.wantKeptWithTrash(series.ID, 1, false)
	mine, err := f.store.RemindersOfEntry(context.Background(), series.Key())
	f.mustDo(err)
	if len(mine) != 1 || len(mine[0].Overrides) != 1 {
		t.Errorf("bob's setting on the restored series = %+v, want his override of December 8", mine)
	}
}

// wantKeptWithTrash checks that n settings on entry exist, each expiring
// with its trash item (kept) or not expiring (!kept).
func (f *fixture) wantKeptWithTrash(entry string, n int, kept bool) {
	f.t.Helper()
	refs, got := map[string]any{}, 0
	for _, it := range f.items() {
		if it["entityType"] == "TRASH_REF" {
			refs[fmt.Sprint(it["SK"])[len("TRASHREF#"):]] = it["expiresAt"]
		}
	}
	for _, it := range f.items() {
		if it["entityType"] != "MY_REMINDERS" || it["entryId"] != entry {
			continue
		}
		got++
		exp, has := it["expiresAt"]
		switch {
		case kept && (!has || fmt.Sprint(exp) != fmt.Sprint(refs[fmt.Sprint(it["entryId"])])):
			f.t.Errorf("setting %s expires at %v, want its trash's %v", it["SK"], exp, refs[fmt.Sprint(it["entryId"])])
		case !kept && has:
			f.t.Errorf("setting %s of a live entry expires at %v", it["SK"], exp)
		}
	}
	if got != n {
		f.t.Errorf("%d settings, want %d", got, n)
	}
}

// TestCheckFindsBadReminders: Store.Check reports a setting whose entry is
// gone, and one out of bounds.
func TestCheckFindsBadReminders(t *testing.T) {
	f := newFixture(t)
	f.messy = true
	ann := f.user("ann-badrem@example.com")
	cal := f.calendarOf(ann, "Team")
	e, _, err := f.store.CreateEntry(ann, calendar.NewEntry{CalendarID: cal.ID, Title: "Talk", Timing: timed("2026-12-01T09:00:00Z", "2026-12-01T10:00:00Z", "UTC")})
	f.mustDo(err)
	f.putItem(map[string]any{"PK": "CAL#" + cal.ID, "SK": "MYREM#nope#u1", "entityType": "MY_REMINDERS", "calendarId": cal.ID, "entryId": "nope", "userId": "u1",
		"all": map[string]any{"r": []any{}}, "version": 1, "updatedAt": "2026-11-21T09:30:00Z"})
	f.putItem(map[string]any{"PK": "CAL#" + cal.ID, "SK": "MYREM#" + e.ID + "#u2", "entityType": "MY_REMINDERS", "calendarId": cal.ID, "entryId": e.ID, "userId": "u2",
		"all": map[string]any{"r": []any{map[string]any{"m": 50000, "by": "IN_APP"}}}, "version": 1, "updatedAt": "2026-11-21T09:30:00Z"})
	problems, err := f.store.Check(context.Background())
	f.mustDo(err)
	got := strings.Join(problems, "\n")
	for _, want := range []string{"on entry nope, which does not exist", "a reminder is 0 to 40320 minutes"} {
		if !strings.Contains(got, want) {
			t.Errorf("Check: got\n%s\nwant a problem with %q", got, want)
		}
	}
}
