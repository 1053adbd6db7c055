package dynamo_test

import (
	"bytes"
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/calgraph/calgraph/internal/calendar"
	"github.com/calgraph/calgraph/internal/dynamo"
)

// seriesRead is all a client can read of a meeting's series: the series
// (master and exceptions), its occurrences in the week of December 7, its
// attendees and their answers, each sampled guest's own answers (to the
// series and to single occurrences) and how often their inbox shows it.
type seriesRead struct {
	Series      *calendar.Series
	Occurrences []*calendar.Entry
	Attendees   []*calendar.Attendee
	Own         map[int]*calendar.Attendee
	Inbox       map[int]int
}

// readWhole reads m's series as seriesRead says; entries without what a
// restore changes (version, updatedAt, updatedBy: a restore is a change).
func (f *fixture) readWhole(m meeting) seriesRead {
	f.t.Helper()
	var r seriesRead
	s, err := f.store.Series(m.organizer, m.entry.Key())
	f.mustDo(err)
	r.Series = &calendar.Series{Master: unstamped(s.Master)}
	for _, x := range s.Exceptions {
		r.Series.Exceptions = append(r.Series.Exceptions, unstamped(x))
	}
	for _, o := range f.occurrences(m.organizer, m.cal.ID, weekOf("2026-12-07"), "UTC", true) {
		r.Occurrences = append(r.Occurrences, unstamped(o))
	}
	r.Attendees = f.answers(m)
	r.Own, r.Inbox = map[int]*calendar.Attendee{}, map[int]int{}
	for _, i := range sampled {
		if i < len(m.guests) {
			r.Own[i], err = f.store.Attendance(m.guests[i], m.entry.Key())
			f.mustDo(err)
			r.Inbox[i] = f.inboxHas(m.guests[i], m.entry.Key())
		}
	}
	return r
}

func unstamped(e *calendar.Entry) *calendar.Entry {
	c := *e
	c.Version, c.UpdatedAt, c.UpdatedBy = 0, time.Time{}, ""
	return &c
}

// gone checks that nothing of m's series shows: not the series, no
// occurrence, no sampled guest's invitation.
func (f *fixture) gone(m meeting) {
	f.t.Helper()
	f.goneButInvitations(m)
	for _, i := range sampled {
		if i < len(m.guests) {
			if n := f.inboxHas(m.guests[i], m.entry.Key()); n != 0 {
				f.t.Errorf("guest %d's inbox shows a deleted series %d times", i, n)
			}
		}
	}
}

// goneButInvitations is gone but for the guests' inboxes, which a deletion
// in steps empties after its switch (trash_steps.go: the window).
func (f *fixture) goneButInvitations(m meeting) {
	f.t.Helper()
	if _, err := f.store.Series(m.organizer, m.entry.Key()); calendar.ErrorCode(err) != calendar.CodeNotFound {
		f.t.Errorf("reading a deleted series: %v, want NOT_FOUND", err)
	}
	if o := f.occurrences(m.organizer, m.cal.ID, weekOf("2026-12-07"), "UTC", true); len(o) != 0 {
		f.t.Errorf("%d occurrences of a deleted series show", len(o))
	}
}

// meetingWithExceptions is crowdedMeeting(n) whose occurrence of December
// 12 is retitled and that of December 9 cancelled.
func (f *fixture) meetingWithExceptions(n int) meeting {
	f.t.Helper()
	m := f.crowdedMeeting(n)
	f.edit(m.organizer, f.occurrenceOn(m, 12), calendar.ScopeThis, title("Retro"))
	s, err := f.store.Series(m.organizer, m.entry.Key())
	f.mustDo(err)
	f.mustDo(f.store.DeleteOccurrence(m.organizer, calendar.OccurrenceKey{CalendarID: m.cal.ID, SeriesID: m.entry.ID,
		OriginalStart: dayOf(9)}, calendar.ScopeThis, s.Master.Version))
	return m
}

// TestDeleteRestoreSeriesAsBefore: a series with exceptions and attendees
// answering the series and single occurrences, deleted (by deleteEntry or
// by deleteOccurrence ALL) and restored, reads as before, in one
// transaction (4 guests) and in steps (100 guests); its version goes on
// by two, its history says RESTORED after DELETED, and the calendar's log
// and each sampled guest's show it gone then back.
func TestDeleteRestoreSeriesAsBefore(t *testing.T) {
	for _, c := range []struct {
		name   string
		guests int
		byOcc  bool
		budget int // of a trash item or part, in bytes; 0: as deployed
	}{{"small", 4, false, 0}, {"small, deleteOccurrence ALL", 4, true, 0}, {"100 guests", calendar.MaxAttendees, false, 0},
		{"in parts", 30, false, 4000}} {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t)
			m := f.meetingWithExceptions(c.guests)
			if c.budget > 0 {
				dynamo.SetTrashBudget(f.store, c.budget)
			}
			before := f.readWhole(m)
			if len(before.Series.Exceptions) != 2 || len(before.Attendees) != c.guests {
				t.Fatalf("before: %d exceptions, %d attendees", len(before.Series.Exceptions), len(before.Attendees))
			}
			was, err := f.store.Series(m.organizer, m.entry.Key())
			f.mustDo(err)
			_, token := f.changesSince(m.organizer, m.cal.ID, "")
			tokens := f.tokensOf(m)

			if c.byOcc {
				f.mustDo(f.store.DeleteOccurrence(m.organizer, calendar.OccurrenceKey{CalendarID: m.cal.ID, SeriesID: m.entry.ID,
					OriginalStart: dayOf(8)}, calendar.ScopeAll, was.Master.Version))
			} else {
				f.mustDo(f.store.DeleteEntry(m.organizer, m.entry.Key(), was.Master.Version))
			}
			f.gone(m)
			if parts := f.countEntities()["TRASH_PART"]; (parts > 0) != (c.budget > 0) {
				t.Errorf("the trash has %d parts (budget %d bytes)", parts, c.budget)
			}
			page, err := f.store.Trash(m.organizer, m.cal.ID, calendar.Page{First: 10})
			f.mustDo(err)
			if len(page.Entries) != 1 || page.Entries[0].Entry.ID != m.entry.ID || !page.Entries[0].Entry.IsSeries() {
				t.Fatalf("trash = %+v, want the series", page.Entries)
			}
			f.consistent()

			restored, _, err := f.store.RestoreEntry(m.organizer, m.entry.Key())
			f.mustDo(err)
			if restored.Version != was.Master.Version+2 || restored.UpdatedBy != viewer(t, m.organizer) {
				t.Errorf("restored at version %d by %s, want %d by the organizer", restored.Version, restored.UpdatedBy, was.Master.Version+2)
			}
			if diff := cmp.Diff(before, f.readWhole(m)); diff != "" {
				t.Errorf("after delete and restore (-before +after):\n%s", diff)
			}
			hist, err := f.store.EntryHistory(m.organizer, m.entry.Key(), calendar.Page{First: 2})
			f.mustDo(err)
			if len(hist.Records) != 2 || hist.Records[0].Action != calendar.HistoryRestored || hist.Records[1].Action != calendar.HistoryDeleted {
				t.Errorf("history = %+v, want RESTORED after DELETED", hist.Records)
			}
			back, _ := f.changesSince(m.organizer, m.cal.ID, token)
			if c := changeOf(back, m.entry.ID); c == nil || c.Deleted || c.Entry == nil || c.Entry.Version != restored.Version {
				t.Errorf("the calendar's log after the restore = %+v, want the series back", c)
			}
			for i, token := range tokens {
				if n := f.logged(m.guests[i], token, m.entry.Key()); n < 1 {
					t.Errorf("guest %d's log does not show the series back", i)
				}
			}
			if page, err = f.store.Trash(m.organizer, m.cal.ID, calendar.Page{First: 10}); err != nil || len(page.Entries) != 0 {
				t.Fatalf("trash after restore = %+v, %v; want it empty", page.Entries, err)
			}
			if n := f.countEntities()["TRASH_PART"]; n != 0 {
				t.Errorf("%d trash parts left after the restore", n)
			}
		})
	}
}

// TestSeriesTrashCrashes: a deletion and a restore made in steps, stopped
// after each step, leave the series either whole or gone (never half
// visible; Store.Check passes at once), and ResumeDeletions, past its
// grace, finishes what passed its switch and rolls back what did not.
func TestSeriesTrashCrashes(t *testing.T) {
	for _, c := range []struct {
		restore bool
		step    string
		visible bool // after the stop, before ResumeDeletions
	}{{false, "parts", true}, {false, "switched", false}, {true, "copied", false}, {true, "switched", true}} {
		t.Run(fmt.Sprintf("restore %v, %s", c.restore, c.step), func(t *testing.T) {
			f := newFixture(t)
			m := f.meetingWithExceptions(30)
			dynamo.SetMaxSeriesActions(f.store, 20)
			dynamo.SetTrashBudget(f.store, 4000) // with parts
			before := f.readWhole(m)
			was, err := f.store.Series(m.organizer, m.entry.Key())
			f.mustDo(err)
			if c.restore {
				f.mustDo(f.store.DeleteEntry(m.organizer, m.entry.Key(), was.Master.Version))
			}
			stopped := fmt.Errorf("stopped after %s", c.step)
			dynamo.SetSplitHook(f.store, func(at string) error {
				if at == c.step {
					return stopped
				}
				return nil
			})
			if c.restore {
				_, _, err = f.store.RestoreEntry(m.organizer, m.entry.Key())
			} else {
				err = f.store.DeleteEntry(m.organizer, m.entry.Key(), was.Master.Version)
			}
			if err == nil {
				t.Fatal("it did not stop")
			}
			dynamo.SetSplitHook(f.store, nil)
			f.consistent()
			// The window: after its switch, a deletion's attendees are
			// still in their users' inboxes, a restore's not yet.
			switch {
			case c.visible:
				now := f.readWhole(m)
				if c.step == "switched" {
					now.Inbox = before.Inbox
				}
				if diff := cmp.Diff(before, now); diff != "" {
					t.Errorf("stopped after %s (-before +now):\n%s", c.step, diff)
				}
			case c.step == "switched":
				f.goneButInvitations(m)
			default:
				f.gone(m)
			}
			later := dynamo.New(f.db, f.store.Table(), engine, dynamo.WithClock(func() time.Time { return time.Now().Add(10 * time.Minute) }))
			n, err := later.ResumeDeletions(context.Background())
			f.mustDo(err)
			if n != 1 {
				t.Errorf("resumed %d, want 1", n)
			}
			f.consistent()
			trash, err := f.store.Trash(m.organizer, m.cal.ID, calendar.Page{First: 10})
			f.mustDo(err)
			// Rolled back before the switch, finished after it.
			inTrash := c.restore != (c.step == "switched")
			if len(trash.Entries) != map[bool]int{true: 1}[inTrash] {
				t.Fatalf("trash holds %d entries, want it to hold the series: %v", len(trash.Entries), inTrash)
			}
			if inTrash {
				f.gone(m)
				_, _, err := f.store.RestoreEntry(m.organizer, m.entry.Key()) // whole, from a clean trash
				f.mustDo(err)
			}
			if diff := cmp.Diff(before, f.readWhole(m)); diff != "" {
				t.Errorf("after ResumeDeletions (-before +now):\n%s", diff)
			}
			if n := f.countEntities()["TRASH_PART"]; n != 0 {
				t.Errorf("%d trash parts left", n)
			}
		})
	}
}

// TestSeriesRestoreRefusals: who may not restore a series is refused, a
// purged series is NOT_FOUND, and of two restores at once (in steps) one
// wins and the other is NOT_FOUND; none writes anything.
func TestSeriesRestoreRefusals(t *testing.T) {
	f := newFixture(t)
	m := f.meetingWithExceptions(30)
	reader, stranger := f.user("r@example.com"), f.user("x@example.com")
	f.share(m.organizer, m.cal, reader, "r@example.com", calendar.RoleReader)
	before := f.readWhole(m)
	was, err := f.store.Series(m.organizer, m.entry.Key())
	f.mustDo(err)
	f.mustDo(f.store.DeleteEntry(m.organizer, m.entry.Key(), was.Master.Version))
	items := len(f.items())

	_, _, err = f.store.RestoreEntry(reader, m.entry.Key())
	wantCode(t, err, calendar.CodeForbidden)
	_, _, err = f.store.RestoreEntry(stranger, m.entry.Key())
	wantCode(t, err, calendar.CodeNotFound)
	later := dynamo.New(f.db, f.store.Table(), engine, dynamo.WithClock(func() time.Time {
		return time.Now().Add(calendar.TrashRetention + time.Minute)
	}))
	_, _, err = later.RestoreEntry(m.organizer, m.entry.Key())
	wantCode(t, err, calendar.CodeNotFound)
	if n := len(f.items()); n != items {
		t.Fatalf("%d items after the refusals, want %d", n, items)
	}

	dynamo.SetMaxSeriesActions(f.store, 20) // in steps
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i := range errs {
		wg.Go(func() { _, _, errs[i] = f.store.RestoreEntry(m.organizer, m.entry.Key()) })
	}
	wg.Wait()
	won := 0
	for _, err := range errs {
		if err == nil {
			won++
			continue
		}
		wantCode(t, err, calendar.CodeNotFound)
	}
	if won != 1 {
		t.Fatalf("%d restores won (%v), want 1", won, errs)
	}
	if diff := cmp.Diff(before, f.readWhole(m)); diff != "" {
		t.Errorf("after the restore (-before +now):\n%s", diff)
	}
}

// TestSeriesRestoreRechecksSlots: a series booked on a resource calendar,
// deleted, one of whose times is booked meanwhile, cannot come back
// (SLOT_CONFLICT), in one transaction or in steps, and nothing is written.
func TestSeriesRestoreRechecksSlots(t *testing.T) {
	for _, steps := range []bool{false, true} {
		t.Run(fmt.Sprintf("steps %v", steps), func(t *testing.T) {
			f := newFixture(t)
			ada, cal := f.resource()
			s := f.series(ada, cal.ID, "Weekly", timed("2026-03-02T09:00:00Z", "2026-03-02T09:30:00Z", paris), "FREQ=DAILY;COUNT=2")
			d := calendar.AttendeeDelta{Key: s.Key()}
			for i := range 2 * calendar.MaxAttendeeDelta {
				d.Add = append(d.Add, calendar.NewAttendee{Email: fmt.Sprintf("g%02d@elsewhere.org", i)})
				if len(d.Add) == calendar.MaxAttendeeDelta {
					e, err := f.store.ChangeAttendees(ada, d)
					f.mustDo(err)
					d.Add, s = nil, e
				}
			}
			f.mustDo(f.store.DeleteEntry(ada, s.Key(), s.Version))
			other, err := f.book(ada, cal.ID, "Other", timed("2026-03-03T09:15:00Z", "2026-03-03T10:00:00Z", paris))
			f.mustDo(err)
			if steps {
				dynamo.SetMaxSeriesActions(f.store, 30)
			}
			items := f.items()
			_, _, err = f.store.RestoreEntry(ada, s.Key())
			wantConflict(t, err, other.ID)
			if diff := cmp.Diff(items, f.items()); diff != "" {
				t.Errorf("a refused restore wrote (-before +after):\n%s", diff)
			}
			f.mustDo(f.store.DeleteEntry(ada, other.Key(), other.Version))
			e, _, err := f.store.RestoreEntry(ada, s.Key())
			f.mustDo(err)
			if e.Attendance.Summary.Total() != 2*calendar.MaxAttendeeDelta {
				t.Errorf("restored with %d attendees, want %d", e.Attendance.Summary.Total(), 2*calendar.MaxAttendeeDelta)
			}
		})
	}
}

// TestTrashedSeriesExportedAndImported: an export carries a series in the
// trash, its parts too, and an import of it into an empty table restores
// whole (Store.Check passes on both).
func TestTrashedSeriesExportedAndImported(t *testing.T) {
	f := newFixture(t)
	m := f.meetingWithExceptions(30)
	dynamo.SetTrashBudget(f.store, 4000) // with parts
	before := f.readWhole(m)
	was, err := f.store.Series(m.organizer, m.entry.Key())
	f.mustDo(err)
	f.mustDo(f.store.DeleteEntry(m.organizer, m.entry.Key(), was.Master.Version))
	var buf bytes.Buffer
	_, err = f.store.Export(context.Background(), &buf)
	f.mustDo(err)

	g := newFixture(t)
	_, err = g.store.Import(context.Background(), &buf)
	g.mustDo(err)
	if n := g.countEntities()["TRASH_PART"]; n == 0 {
		t.Fatal("the import holds no trash part")
	}
	_, _, err = g.store.RestoreEntry(m.organizer, m.entry.Key())
	g.mustDo(err)
	exported := f.store
	f.store = g.store // read the imported table as f read the exported one
	after := f.readWhole(m)
	f.store = exported
	if diff := cmp.Diff(before, after); diff != "" {
		t.Errorf("restored from the import (-before +after):\n%s", diff)
	}
}

// TestDeleteWaitsForARestoreUnderWay: a series whose restore stopped after
// its switch (its attendees not all indexed yet) cannot be deleted again
// (VERSION_CONFLICT, nothing written) until ResumeDeletions finishes the
// restore; then it can, and comes back whole again.
func TestDeleteWaitsForARestoreUnderWay(t *testing.T) {
	f := newFixture(t)
	m := f.meetingWithExceptions(30)
	dynamo.SetMaxSeriesActions(f.store, 20)
	before := f.readWhole(m)
	was, err := f.store.Series(m.organizer, m.entry.Key())
	f.mustDo(err)
	f.mustDo(f.store.DeleteEntry(m.organizer, m.entry.Key(), was.Master.Version))
	dynamo.SetSplitHook(f.store, func(at string) error {
		if at == "switched" {
			return fmt.Errorf("stopped")
		}
		return nil
	})
	if _, _, err := f.store.RestoreEntry(m.organizer, m.entry.Key()); err == nil {
		t.Fatal("the restore did not stop")
	}
	dynamo.SetSplitHook(f.store, nil)
	now, err := f.store.Series(m.organizer, m.entry.Key())
	f.mustDo(err)
	items := f.items()
	wantCode(t, f.store.DeleteEntry(m.organizer, m.entry.Key(), now.Master.Version), calendar.CodeVersionConflict)
	wantCode(t, f.store.DeleteOccurrence(m.organizer, calendar.OccurrenceKey{CalendarID: m.cal.ID, SeriesID: m.entry.ID,
		OriginalStart: dayOf(8)}, calendar.ScopeAll, now.Master.Version), calendar.CodeVersionConflict)
	if diff := cmp.Diff(items, f.items()); diff != "" {
		t.Errorf("a refused deletion wrote (-before +after):\n%s", diff)
	}
	later := dynamo.New(f.db, f.store.Table(), engine, dynamo.WithClock(func() time.Time { return time.Now().Add(10 * time.Minute) }))
	_, err = later.ResumeDeletions(context.Background())
	f.mustDo(err)
	f.mustDo(f.store.DeleteEntry(m.organizer, m.entry.Key(), now.Master.Version))
	_, _, err = f.store.RestoreEntry(m.organizer, m.entry.Key())
	f.mustDo(err)
	if diff := cmp.Diff(before, f.readWhole(m)); diff != "" {
		t.Errorf("after delete, restore, delete, restore (-before +now):\n%s", diff)
	}
}
