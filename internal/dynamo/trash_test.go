package dynamo_test

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/google/go-cmp/cmp"

	"github.com/calgraph/calgraph/internal/calendar"
	"github.com/calgraph/calgraph/internal/dynamo"
)

// changesSince reads the calendar's log from token to its end.
func (f *fixture) changesSince(ctx context.Context, calendarID, token string) ([]calendar.ObjectChange, string) {
	f.t.Helper()
	var all []calendar.ObjectChange
	for {
		page, err := f.store.Changes(ctx, calendarID, token, 100)
		f.mustDo(err)
		all = append(all, page.Changes...)
		token = page.Token
		if !page.More {
			return all, token
		}
	}
}

// changeOf is the last change of the object id among changes (a token
// may deliver again what changed just before it, sync.go overlapWindow).
func changeOf(changes []calendar.ObjectChange, id string) *calendar.ObjectChange {
	var last *calendar.ObjectChange
	for i := range changes {
		if changes[i].ID == id {
			last = &changes[i]
		}
	}
	return last
}

// TestDeleteRestoreMeetingAsBefore: a meeting with answered invitations,
// deleted and restored, reads as before (entry, attendees and answers, the
// guests' invitations), its log shows it deleted then back, and the trash
// lists it in between and is empty after (Store.Check passes at the end).
func TestDeleteRestoreMeetingAsBefore(t *testing.T) {
	f := newFixture(t)
	m := f.meeting(3, 0, false)
	_, err := f.store.Respond(m.guests[1], accept(m, 1))
	f.mustDo(err)
	before, answers := f.entryNow(m), f.answers(m)
	invited, err := f.store.InvitedEntries(m.guests[1], viewer(t, m.guests[1]), 10)
	f.mustDo(err)
	_, token := f.changesSince(m.organizer, m.cal.ID, "")

	f.mustDo(f.store.DeleteEntry(m.organizer, before.Key(), before.Version))
	if f.entryNow(m) != nil {
		t.Fatal("the entry is still there after its deletion")
	}
	page, err := f.store.Trash(m.organizer, m.cal.ID, calendar.Page{First: 10})
	f.mustDo(err)
	if len(page.Entries) != 1 || page.Entries[0].Entry.ID != before.ID || page.Entries[0].DeletedBy != viewer(t, m.organizer) {
		t.Fatalf("trash = %+v, want the meeting deleted by its organizer", page.Entries)
	}
	if got := page.Entries[0].PurgeAt.Sub(page.Entries[0].DeletedAt); got < calendar.TrashRetention-time.Second || got > calendar.TrashRetention+time.Second {
		t.Errorf("purged %v after its deletion, want %v", got, calendar.TrashRetention)
	}
	if !reflect.DeepEqual(page.Entries[0].Entry, before) {
		t.Errorf("trash shows %+v, want the entry as it was %+v", page.Entries[0].Entry, before)
	}
	deleted, token := f.changesSince(m.organizer, m.cal.ID, token)

	restored, _, err := f.store.RestoreEntry(m.organizer, before.Key())
	f.mustDo(err)
	// As it was, but for what says a change was made: a restore is one.
	want := *before
	want.Version, want.UpdatedBy, want.UpdatedAt = before.Version+2, viewer(t, m.organizer), restored.UpdatedAt
	if !reflect.DeepEqual(restored, &want) || !reflect.DeepEqual(f.entryNow(m), &want) || !restored.UpdatedAt.After(before.UpdatedAt) {
		t.Errorf("restored %+v, want %+v", f.entryNow(m), &want)
	}
	hist, err := f.store.EntryHistory(m.organizer, before.Key(), calendar.Page{First: 2})
	f.mustDo(err)
	if len(hist.Records) != 2 || hist.Records[0].Action != calendar.HistoryRestored || hist.Records[1].Action != calendar.HistoryDeleted ||
		hist.Records[0].By != viewer(t, m.organizer) {
		t.Errorf("history after the restore = %+v, want RESTORED by the organizer after DELETED", hist.Records)
	}
	if got := f.answers(m); !reflect.DeepEqual(got, answers) {
		t.Errorf("attendees after restore = %+v, want %+v", got, answers)
	}
	again, err := f.store.InvitedEntries(m.guests[1], viewer(t, m.guests[1]), 10)
	f.mustDo(err)
	if !reflect.DeepEqual(again, invited) {
		t.Errorf("guest's invitations after restore = %v, want %v", again, invited)
	}
	back, _ := f.changesSince(m.organizer, m.cal.ID, token)
	if c := changeOf(deleted, before.ID); c == nil || !c.Deleted {
		t.Errorf("log after the deletion = %+v, want the entry deleted", deleted)
	}
	if c := changeOf(back, before.ID); c == nil || c.Deleted || !reflect.DeepEqual(c.Entry, &want) {
		t.Errorf("log after the restore = %+v, want the entry back", back)
	}
	if page, err = f.store.Trash(m.organizer, m.cal.ID, calendar.Page{First: 10}); err != nil || len(page.Entries) != 0 {
		t.Fatalf("trash after restore = %+v, %v; want it empty", page.Entries, err)
	}
	// Deleted again, it goes back to the trash.
	f.mustDo(f.store.DeleteEntry(m.organizer, before.Key(), want.Version))
	if page, err = f.store.Trash(m.organizer, m.cal.ID, calendar.Page{First: 10}); err != nil || len(page.Entries) != 1 {
		t.Fatalf("trash after a second deletion = %+v, %v; want the meeting", page.Entries, err)
	}
}

// TestRestoreRefusals: what may not be restored is refused with its code and
// changes nothing.
func TestRestoreRefusals(t *testing.T) {
	f := newFixture(t)
	ada := f.user("ada@example.com")
	cal := f.calendarOf(ada, "Work")
	e, _, err := f.store.CreateEntry(ada, calendar.NewEntry{CalendarID: cal.ID, Title: "Dentist",
		Timing: timed("2026-03-02T09:00:00Z", "2026-03-02T10:00:00Z", paris)})
	f.mustDo(err)
	reader, busy, stranger := f.user("r@example.com"), f.user("fb@example.com"), f.user("x@example.com")
	f.share(ada, cal, reader, "r@example.com", calendar.RoleReader)
	f.share(ada, cal, busy, "fb@example.com", calendar.RoleFreeBusy)

	_, _, err = f.store.RestoreEntry(ada, e.Key())
	wantCode(t, err, calendar.CodeInvalid) // not deleted
	_, _, err = f.store.RestoreEntry(ada, calendar.EntryKey{CalendarID: cal.ID, EntryID: "00000000-0000-0000-0000-000000000000"})
	wantCode(t, err, calendar.CodeNotFound)

	f.mustDo(f.store.DeleteEntry(ada, e.Key(), e.Version))
	for name, who := range map[string]context.Context{"reader": reader, "free/busy": busy} {
		_, err := f.store.Trash(who, cal.ID, calendar.Page{First: 10})
		wantCode(t, err, calendar.CodeForbidden)
		_, _, err = f.store.RestoreEntry(who, e.Key())
		wantCode(t, err, calendar.CodeForbidden)
		_ = name
	}
	_, err = f.store.Trash(stranger, cal.ID, calendar.Page{First: 10})
	wantCode(t, err, calendar.CodeNotFound)
	_, _, err = f.store.RestoreEntry(stranger, e.Key())
	wantCode(t, err, calendar.CodeNotFound)

	// Past its purge time (TTL may not have run yet) it is gone.
	later := dynamo.New(f.db, f.store.Table(), engine, dynamo.WithClock(func() time.Time {
		return time.Now().Add(calendar.TrashRetention + time.Minute)
	}))
	_, _, err = later.RestoreEntry(ada, e.Key())
	wantCode(t, err, calendar.CodeNotFound)
	if page, err := later.Trash(ada, cal.ID, calendar.Page{First: 10}); err != nil || len(page.Entries) != 0 {
		t.Fatalf("trash past the purge time = %+v, %v; want it empty", page.Entries, err)
	}

	// Two restores at once: one wins, the other finds nothing to restore.
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i := range errs {
		wg.Go(func() { _, _, errs[i] = f.store.RestoreEntry(ada, e.Key()) })
	}
	wg.Wait()
	won := 0
	for _, err := range errs {
		if err == nil {
			won++
			continue
		}
		if c := calendar.ErrorCode(err); c != calendar.CodeNotFound && c != calendar.CodeAlreadyExists &&
			c != calendar.CodeInvalid && c != calendar.CodeVersionConflict {
			t.Errorf("the losing restore: %v", err)
		}
	}
	if won != 1 {
		t.Fatalf("%d restores won (%v), want 1", won, errs)
	}
}

// TestRestoreRechecksResourceSlots: a booking deleted and its time booked
// meanwhile cannot come back: SLOT_CONFLICT, and it stays in the trash.
func TestRestoreRechecksResourceSlots(t *testing.T) {
	f := newFixture(t)
	ada, cal := f.resource()
	first, err := f.book(ada, cal.ID, "Meeting", timed("2026-03-02T09:00:00Z", "2026-03-02T10:00:00Z", paris))
	f.mustDo(err)
	f.mustDo(f.store.DeleteEntry(ada, first.Key(), first.Version))
	second, err := f.book(ada, cal.ID, "Other", timed("2026-03-02T09:30:00Z", "2026-03-02T10:30:00Z", paris))
	f.mustDo(err)
	_, _, err = f.store.RestoreEntry(ada, first.Key())
	wantConflict(t, err, second.ID)
	page, err := f.store.Trash(ada, cal.ID, calendar.Page{First: 10})
	f.mustDo(err)
	if len(page.Entries) != 1 {
		t.Fatalf("trash = %+v, want the refused booking still there", page.Entries)
	}
	f.mustDo(f.store.DeleteEntry(ada, second.Key(), second.Version))
	_, _, err = f.store.RestoreEntry(ada, first.Key())
	f.mustDo(err)
}

// TestCheckFindsALiveEntryInTheTrash: Store.Check reports an entry that is
// both live and in its calendar's trash (a restore or deletion half done).
func TestCheckFindsALiveEntryInTheTrash(t *testing.T) {
	f := newFixture(t)
	f.messy = true
	ada := f.user("ada@example.com")
	cal := f.calendarOf(ada, "Work")
	e, _, err := f.store.CreateEntry(ada, calendar.NewEntry{CalendarID: cal.ID, Title: "Dentist",
		Timing: timed("2026-03-02T09:00:00Z", "2026-03-02T10:00:00Z", paris)})
	f.mustDo(err)
	f.putItem(map[string]any{"PK": "CAL#" + cal.ID, "SK": "TRASH#2026-03-01T00:00:00.000Z#" + e.ID, "entityType": "TRASH",
		"entryId": e.ID, "expiresAt": time.Now().Add(time.Hour).Unix()})
	problems, err := f.store.Check(context.Background())
	f.mustDo(err)
	if len(problems) != 1 {
		t.Fatalf("problems = %q, want the live entry in the trash", problems)
	}
}

// TestRestoreOfAMeetingTooBigForOneTransaction: a meeting with the most
// attendees, whose removals do not fit its deletion's transaction, is
// deleted in steps (trash_steps.go) and restored in steps: every attendee
// comes back with their answer, in the guests' inboxes again, and its
// summary counts them (Store.Check passes at the end).
func TestRestoreOfAMeetingTooBigForOneTransaction(t *testing.T) {
	f := newFixture(t)
	m := f.meeting(calendar.MaxAttendees, 0, false)
	for i := 0; i < len(m.guests); i += 3 {
		_, err := f.store.Respond(m.guests[i], accept(m, i))
		f.mustDo(err)
	}
	before, entry := f.answers(m), f.entryNow(m)
	f.mustDo(f.store.DeleteEntry(m.organizer, m.entry.Key(), entry.Version))
	if n := f.countEntities()["ATTENDEE"]; n != 0 {
		t.Fatalf("%d attendee items left after the deletion", n)
	}
	trash, parts := f.trashItems(), f.countEntities()["TRASH_PART"]
	if len(trash) != 1 || parts != 0 || itemBytes(trash[0]) > 350_000 {
		t.Fatalf("%d trash items, %d parts: want one item under 350 KB", len(trash), parts)
	}
	t.Logf("the trash item of a meeting with %d attendees: %d bytes", len(before), itemBytes(trash[0]))
	restored, _, err := f.store.RestoreEntry(m.organizer, m.entry.Key())
	f.mustDo(err)
	if diff := cmp.Diff(before, f.answers(m)); diff != "" {
		t.Errorf("attendees after restore (-before +after):\n%s", diff)
	}
	if restored.Attendance.Summary != entry.Attendance.Summary {
		t.Errorf("restored summary %+v, want %+v", restored.Attendance.Summary, entry.Attendance.Summary)
	}
	for _, i := range []int{0, 1, 99} {
		if n := f.inboxHas(m.guests[i], m.entry.Key()); n != 1 {
			t.Errorf("guest %d's inbox shows the meeting %d times, want once", i, n)
		}
	}
}

// TestRestoreRechecksHolds: a meeting that must not overlap another
// calendar's busy time, deleted, and that time booked meanwhile, cannot
// come back (BUSY_CONFLICT, as a create), and nothing is written; once the
// time is free again it can.
func TestRestoreRechecksHolds(t *testing.T) {
	f := newFixture(t)
	p := f.bookingParty(2, calendar.RoleFreeBusy)
	first, err := f.bookAt(p.people[0], p.own[0].ID, "2026-03-02T10:00:00Z", "2026-03-02T11:00:00Z", p.target.ID)
	f.mustDo(err)
	f.mustDo(f.store.DeleteEntry(p.people[0], first.Key(), first.Version))
	second, err := f.bookAt(p.people[1], p.own[1].ID, "2026-03-02T10:30:00Z", "2026-03-02T11:30:00Z", p.target.ID)
	f.mustDo(err)
	items := f.items()
	_, _, err = f.store.RestoreEntry(p.people[0], first.Key())
	wantCode(t, err, calendar.CodeBusyConflict)
	if diff := cmp.Diff(items, f.items()); diff != "" {
		t.Errorf("a refused restore wrote (-before +after):\n%s", diff)
	}
	f.mustDo(f.store.DeleteEntry(p.people[1], second.Key(), second.Version))
	restored, _, err := f.store.RestoreEntry(p.people[0], first.Key())
	f.mustDo(err)
	if len(restored.Holds) != 1 || restored.Holds[0] != p.target.ID {
		t.Errorf("restored holding %v, want %s", restored.Holds, p.target.ID)
	}
	// Its hold is back: the time is busy for a booking from elsewhere.
	_, err = f.bookAt(p.people[1], p.own[1].ID, "2026-03-02T10:30:00Z", "2026-03-02T10:45:00Z", p.target.ID)
	wantCode(t, err, calendar.CodeBusyConflict)
}

// TestCheckFindsTrashPartsWithoutTheirItem: Store.Check reports a trash
// part whose trash item is missing, unless a deletion or restore of its
// entry under way (its pending item) vouches for it.
func TestCheckFindsTrashPartsWithoutTheirItem(t *testing.T) {
	f := newFixture(t)
	f.messy = true
	ada := f.user("ada@example.com")
	cal := f.calendarOf(ada, "Work")
	const entry = "01a22300-0000-7000-8000-000000000001"
	f.putItem(map[string]any{"PK": "CAL#" + cal.ID, "SK": "TRASHPART#2026-03-01T00:00:00.000Z#" + entry + "#001", "entityType": "TRASH_PART",
		"entryId": entry, "expiresAt": time.Now().Add(time.Hour).Unix()})
	problems, err := f.store.Check(context.Background())
	f.mustDo(err)
	if len(problems) != 1 || !strings.Contains(problems[0], "has no trash item") {
		t.Fatalf("problems = %q, want the part without its trash item", problems)
	}
	f.putItem(map[string]any{"PK": "PENDING", "SK": "restore#" + cal.ID + "/" + entry, "entityType": "PENDING_DELETION",
		"kind": "restore", "id": cal.ID + "/" + entry, "createdAt": time.Now().UTC().Format(time.RFC3339Nano)})
	if problems, err = f.store.Check(context.Background()); err != nil || len(problems) != 0 {
		t.Fatalf("problems = %q, %v; want none while a restore is under way", problems, err)
	}
}

// trashItems returns the trash items of the table as stored.
func (f *fixture) trashItems() []map[string]types.AttributeValue {
	f.t.Helper()
	out, err := f.db.Scan(context.Background(), &dynamodb.ScanInput{TableName: aws.String(f.store.Table()), ConsistentRead: aws.Bool(true),
		FilterExpression: aws.String("entityType = :t"), ExpressionAttributeValues: map[string]types.AttributeValue{":t": &types.AttributeValueMemberS{Value: "TRASH"}}})
	f.mustDo(err)
	return out.Items
}

// TestMeetingDeletionCutOffAfterItsSwitch: a 100-attendee meeting's
// deletion (in steps) stopped after its switch is gone at once, its
// attendees removed by ResumeDeletions (each with its user's log record),
// and it comes back whole.
func TestMeetingDeletionCutOffAfterItsSwitch(t *testing.T) {
	f := newFixture(t)
	m := f.meeting(calendar.MaxAttendees, 0, false)
	before, entry := f.answers(m), f.entryNow(m)
	guest := "USER#" + viewer(t, m.guests[7])
	logged := func() int { // records in guest 7's own log of their invitation
		n := 0
		for _, it := range f.allItems() {
			if it["entityType"] == "CHANGE" && it["PK"] == guest && it["object"] == "ATT#"+m.cal.ID+"#"+m.entry.ID {
				n++
			}
		}
		return n
	}
	dynamo.SetSplitHook(f.store, func(at string) error {
		if at == "switched" {
			return fmt.Errorf("stopped")
		}
		return nil
	})
	if err := f.store.DeleteEntry(m.organizer, m.entry.Key(), entry.Version); err == nil {
		t.Fatal("the deletion did not stop")
	}
	dynamo.SetSplitHook(f.store, nil)
	if f.entryNow(m) != nil {
		t.Fatal("the meeting shows after its switch")
	}
	f.consistent()
	was := logged()
	later := dynamo.New(f.db, f.store.Table(), engine, dynamo.WithClock(func() time.Time { return time.Now().Add(10 * time.Minute) }))
	if n, err := later.ResumeDeletions(context.Background()); err != nil || n != 1 {
		t.Fatalf("resumed %d, %v; want the deletion", n, err)
	}
	if n := f.countEntities()["ATTENDEE"]; n != 0 {
		t.Errorf("%d attendee items left after ResumeDeletions", n)
	}
	if n := logged(); n != was+1 {
		t.Errorf("guest 7's log holds %d records of the invitation after ResumeDeletions, want %d: its removal", n, was+1)
	}
	_, _, err := f.store.RestoreEntry(m.organizer, m.entry.Key())
	f.mustDo(err)
	if diff := cmp.Diff(before, f.answers(m)); diff != "" {
		t.Errorf("attendees after restore (-before +after):\n%s", diff)
	}
}
