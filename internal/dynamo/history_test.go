package dynamo_test

import (
	"cmp"
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	gocmp "github.com/google/go-cmp/cmp"

	"github.com/calgraph/calgraph/internal/calendar"
)

// historyOf reads the whole history of key as the viewer of ctx, a page of
// two at a time (so every test also walks the pages), as lines:
// "<seq> <action> <by> field:before→after ...".
func (f *fixture) historyOf(ctx context.Context, key calendar.EntryKey, names map[string]string) []string {
	f.t.Helper()
	var lines []string
	p := calendar.Page{First: 2}
	for {
		page, err := f.store.EntryHistory(ctx, key, p)
		if err != nil {
			f.t.Fatalf("history of %s: %v", key.EntryID, err)
		}
		for _, r := range page.Records {
			line := fmt.Sprintf("%d %s %s", r.Seq, r.Action, names[r.By])
			if !r.OriginalStart.IsZero() {
				line += " @" + r.OriginalStart.Format(time.RFC3339)
			}
			for _, c := range r.Changes {
				if c.Field == "calendarId" {
					line += " " + c.Field // IDs differ from run to run
					continue
				}
				line += fmt.Sprintf(" %s:%s→%s", c.Field, orNone(c.Before), orNone(c.After))
			}
			lines = append(lines, line)
		}
		if !page.HasNextPage {
			return lines
		}
		p.After = page.EndCursor
	}
}

func orNone(s *string) string {
	if s == nil {
		return "-"
	}
	return *s
}

func TestHistoryOfAnEntry(t *testing.T) {
	f := newFixture(t)
	ann, bob := f.user("ann@example.com"), f.user("bob@example.com")
	names := map[string]string{viewer(t, ann): "ann", viewer(t, bob): "bob"}
	cal, other := f.calendarOf(ann, "Team"), f.calendarOf(ann, "Other")
	f.share(ann, cal, bob, "bob@example.com", calendar.RoleWriter)
	f.share(ann, other, bob, "bob@example.com", calendar.RoleWriter)

	e, _, err := f.store.CreateEntry(ann, calendar.NewEntry{CalendarID: cal.ID, Title: "Standup",
		Timing: timed("2026-12-01T09:00:00Z", "2026-12-01T09:15:00Z", "UTC")})
	f.mustDo(err)
	if e.UpdatedBy != viewer(t, ann) {
		t.Errorf("updatedBy after create = %q, want ann", e.UpdatedBy)
	}
	e, _, err = f.store.UpdateEntry(bob, calendar.EntryUpdate{Key: e.Key(), ExpectedVersion: 1,
		Title: calendar.Set("Daily standup"), Description: calendar.Set("notes"), Tags: calendar.Set([]string{"b", "a"})})
	f.mustDo(err)
	if e.UpdatedBy != viewer(t, bob) {
		t.Errorf("updatedBy after bob's update = %q, want bob", e.UpdatedBy)
	}
	e, _, err = f.store.MoveEntry(ann, e.Key(), e.Version, other.ID)
	f.mustDo(err)
	e, _, err = f.store.UpdateEntry(ann, calendar.EntryUpdate{Key: e.Key(), ExpectedVersion: e.Version, Description: calendar.Set("")})
	f.mustDo(err)

	got := f.historyOf(ann, e.Key(), names)
	want := []string{ // in its new calendar: from the move on
		"4 UPDATED ann description:notes→-",
		"3 MOVED ann calendarId",
	}
	if diff := gocmp.Diff(want, got); diff != "" {
		t.Errorf("history after the move (-want +got):\n%s", diff)
	}
	f.mustDo(f.store.DeleteEntry(bob, e.Key(), e.Version))
	// The deleted entry's records stay (the trash's to show): reading them
	// through the entry is NOT_FOUND, as the entry is.
	_, err = f.store.EntryHistory(ann, e.Key(), calendar.Page{First: 5})
	wantCode(t, err, calendar.CodeNotFound)

	task, _, err := f.store.CreateEntry(ann, calendar.NewEntry{CalendarID: cal.ID, Title: "File taxes", Timing: dueOn("2026-12-24")})
	f.mustDo(err)
	_, _, err = f.store.SetTaskCompleted(bob, task.Key(), 1, true)
	f.mustDo(err)
	got = f.historyOf(ann, task.Key(), names)
	want = []string{
		"2 UPDATED bob completed:-→true",
		"1 CREATED ann calendarId title:-→File taxes startDate:-→2026-12-24 endDate:-→2026-12-25",
	}
	if diff := gocmp.Diff(want, got); diff != "" {
		t.Errorf("task history (-want +got):\n%s", diff)
	}
}

func TestHistoryOfASeries(t *testing.T) {
	f := newFixture(t)
	ann := f.user("ann@example.com")
	names := map[string]string{viewer(t, ann): "ann"}
	cal := f.calendarOf(ann, "Team")
	s, _, err := f.store.CreateEntry(ann, calendar.NewEntry{CalendarID: cal.ID, Title: "Weekly",
		Timing:     timed("2026-12-01T09:00:00Z", "2026-12-01T10:00:00Z", "UTC"),
		Recurrence: &calendar.Recurrence{Rule: "FREQ=WEEKLY;COUNT=10"}})
	f.mustDo(err)
	occ := func(day string) calendar.OccurrenceKey {
		return calendar.OccurrenceKey{CalendarID: cal.ID, SeriesID: s.ID, OriginalStart: at(day + "T09:00:00Z")}
	}
	// THIS: one occurrence's title, then another's cancellation.
	_, _, err = f.store.UpdateOccurrence(ann, occ("2026-12-08"), calendar.ScopeThis, calendar.EntryUpdate{ExpectedVersion: 1, Title: calendar.Set("Moved on")})
	f.mustDo(err)
	f.mustDo(f.store.DeleteOccurrence(ann, occ("2026-12-15"), calendar.ScopeThis, 1))
	// ALL: the series' title.
	s, _, err = f.store.UpdateEntry(ann, calendar.EntryUpdate{Key: s.Key(), ExpectedVersion: 1, Location: calendar.Set("Room 1")})
	f.mustDo(err)
	// THIS_AND_FOLLOWING: a split, recorded in both series.
	split, _, err := f.store.UpdateOccurrence(ann, occ("2026-12-29"), calendar.ScopeThisAndFollowing,
		calendar.EntryUpdate{ExpectedVersion: s.Version, Title: calendar.Set("Weekly, later")})
	f.mustDo(err)

	got := f.historyOf(ann, s.Key(), names)
	want := []string{
		"5 UPDATED ann recurrence:RRULE:FREQ=WEEKLY;COUNT=10→RRULE:FREQ=WEEKLY;UNTIL=20261229T085959Z",
		"4 UPDATED ann location:-→Room 1",
		"3 OCCURRENCE_CHANGED ann @2026-12-15T09:00:00Z cancelled:-→true",
		"2 OCCURRENCE_CHANGED ann @2026-12-08T09:00:00Z title:Weekly→Moved on",
		"1 CREATED ann calendarId title:-→Weekly start:-→2026-12-01T09:00:00Z end:-→2026-12-01T10:00:00Z timeZone:-→UTC recurrence:-→RRULE:FREQ=WEEKLY;COUNT=10",
	}
	if diff := gocmp.Diff(want, got); diff != "" {
		t.Errorf("series history (-want +got):\n%s", diff)
	}
	got = f.historyOf(ann, calendar.EntryKey{CalendarID: cal.ID, EntryID: cmp.Or(split.SeriesID, split.ID)}, names)
	if len(got) != 1 || !strings.HasPrefix(got[0], "1 CREATED ann calendarId title:-→Weekly, later location:-→Room 1 start:-→2026-12-29T09:00:00Z") {
		t.Errorf("split-off series' history = %q, want its creation", got)
	}
	f.mustDo(f.store.DeleteEntry(ann, s.Key(), 3)) // version 3 (the split raised it), seq 6
}

// TestHistoryUnderConcurrentEdits: writers retrying on VERSION_CONFLICT
// leave exactly one record per version committed, in order, each saying
// what its writer was told it wrote.
func TestHistoryUnderConcurrentEdits(t *testing.T) {
	f := newFixture(t)
	ann := f.user("ann@example.com")
	cal := f.calendarOf(ann, "Team")
	e, _, err := f.store.CreateEntry(ann, calendar.NewEntry{CalendarID: cal.ID, Title: "v1",
		Timing: timed("2026-12-01T09:00:00Z", "2026-12-01T09:15:00Z", "UTC")})
	f.mustDo(err)
	const writers, edits = 4, 3
	acked := map[int]string{} // version → the title its writer wrote
	var mu sync.Mutex
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for n := range edits {
				title := fmt.Sprintf("w%d-%d", w, n)
				for {
					items, err := f.store.Read(ann, calendar.Keys{Entries: []calendar.EntryKey{e.Key()}})
					if err != nil {
						t.Error(err)
						return
					}
					cur := items.Entries[e.Key()]
					got, _, err := f.store.UpdateEntry(ann, calendar.EntryUpdate{Key: e.Key(), ExpectedVersion: cur.Version, Title: calendar.Set(title)})
					if calendar.ErrorCode(err) == calendar.CodeVersionConflict {
						continue
					}
					if err != nil {
						t.Error(err)
						return
					}
					mu.Lock()
					acked[got.Version] = title
					mu.Unlock()
					break
				}
			}
		})
	}
	wg.Wait()
	page, err := f.store.EntryHistory(ann, e.Key(), calendar.Page{First: 100})
	f.mustDo(err)
	if len(page.Records) != writers*edits+1 {
		t.Fatalf("%d records, want %d", len(page.Records), writers*edits+1)
	}
	prev := "v1"
	for i := len(page.Records) - 2; i >= 0; i-- { // oldest update first
		r := page.Records[i]
		if want := writers*edits + 1 - i; r.Seq != want {
			t.Errorf("record %d has seq %d, want %d", i, r.Seq, want)
		}
		want := []calendar.FieldChange{{Field: "title", Before: &prev, After: ptr(acked[r.Seq])}}
		if diff := gocmp.Diff(want, r.Changes); diff != "" {
			t.Errorf("record of version %d (-want +got):\n%s", r.Seq, diff)
		}
		prev = acked[r.Seq]
	}
}

// TestConcurrentOccurrenceEditsKeepTheirRecords: changes of different
// occurrences, which do not exclude each other, still each get a record of
// their own (the second is built again on the new exception revision).
func TestConcurrentOccurrenceEditsKeepTheirRecords(t *testing.T) {
	f := newFixture(t)
	ann := f.user("ann@example.com")
	cal := f.calendarOf(ann, "Team")
	s, _, err := f.store.CreateEntry(ann, calendar.NewEntry{CalendarID: cal.ID, Title: "Daily",
		Timing:     timed("2026-12-01T09:00:00Z", "2026-12-01T10:00:00Z", "UTC"),
		Recurrence: &calendar.Recurrence{Rule: "FREQ=DAILY;COUNT=10"}})
	f.mustDo(err)
	var wg sync.WaitGroup
	for d := range 6 {
		wg.Go(func() {
			k := calendar.OccurrenceKey{CalendarID: cal.ID, SeriesID: s.ID, OriginalStart: at(fmt.Sprintf("2026-12-0%dT09:00:00Z", d+2))}
			if _, _, err := f.store.UpdateOccurrence(ann, k, calendar.ScopeThis, calendar.EntryUpdate{ExpectedVersion: 1, Title: calendar.Set(fmt.Sprint("day ", d))}); err != nil {
				t.Errorf("occurrence %d: %v", d, err)
			}
		})
	}
	wg.Wait()
	page, err := f.store.EntryHistory(ann, s.Key(), calendar.Page{First: 100})
	f.mustDo(err)
	seen := map[time.Time]bool{}
	for i, r := range page.Records[:len(page.Records)-1] {
		if r.Seq != 7-i || r.Action != calendar.HistoryOccurrence {
			t.Errorf("record %d: seq %d %s, want %d %s", i, r.Seq, r.Action, 7-i, calendar.HistoryOccurrence)
		}
		seen[r.OriginalStart] = true
	}
	if len(page.Records) != 7 || len(seen) != 6 {
		t.Errorf("%d records of %d occurrences, want 7 of 6", len(page.Records), len(seen))
	}
}

// TestHistoryReaders: members who read the entry whole read its history;
// a FREE_BUSY member, a non-member and a reader of someone else's PRIVATE
// entry get NOT_FOUND, never a record.
func TestHistoryReaders(t *testing.T) {
	f := newFixture(t)
	ann, rita, fred, zoe := f.user("ann@example.com"), f.user("rita@example.com"), f.user("fred@example.com"), f.user("zoe@example.com")
	cal := f.calendarOf(ann, "Team")
	f.share(ann, cal, rita, "rita@example.com", calendar.RoleReader)
	f.share(ann, cal, fred, "fred@example.com", calendar.RoleFreeBusy)
	open, _, err := f.store.CreateEntry(ann, calendar.NewEntry{CalendarID: cal.ID, Title: "Open",
		Timing: timed("2026-12-01T09:00:00Z", "2026-12-01T09:15:00Z", "UTC")})
	f.mustDo(err)
	private, _, err := f.store.CreateEntry(ann, calendar.NewEntry{CalendarID: cal.ID, Title: "Doctor", Visibility: calendar.VisibilityPrivate,
		Timing: timed("2026-12-02T09:00:00Z", "2026-12-02T09:15:00Z", "UTC")})
	f.mustDo(err)
	for _, c := range []struct {
		who  string
		ctx  context.Context
		key  calendar.EntryKey
		want calendar.Code // -1: none
	}{
		{"the owner, the private entry", ann, private.Key(), -1},
		{"a reader, an open entry", rita, open.Key(), -1},
		{"a reader, someone else's private entry", rita, private.Key(), calendar.CodeNotFound},
		{"a FREE_BUSY member", fred, open.Key(), calendar.CodeNotFound},
		{"a stranger", zoe, open.Key(), calendar.CodeNotFound},
	} {
		page, err := f.store.EntryHistory(c.ctx, c.key, calendar.Page{First: 10})
		if c.want == -1 && err != nil || c.want != -1 && calendar.ErrorCode(err) != c.want {
			t.Errorf("%s: error %v, want code %q", c.who, err, c.want)
		}
		if c.want != -1 && page != nil {
			t.Errorf("%s: got a page of %d records", c.who, len(page.Records))
		}
	}
	_, err = f.store.EntryHistory(ann, open.Key(), calendar.Page{First: 10, After: "x"})
	wantCode(t, err, calendar.CodeInvalid)
}

// TestHistoryBounds: a long description is kept to MaxHistoryValue bytes,
// and an entry keeps its last 50 records however often it changes.
func TestHistoryBounds(t *testing.T) {
	f := newFixture(t)
	ann := f.user("ann@example.com")
	cal := f.calendarOf(ann, "Team")
	long := strings.Repeat("é", 3000) // 6,000 bytes
	e, _, err := f.store.CreateEntry(ann, calendar.NewEntry{CalendarID: cal.ID, Title: "t0", Description: long,
		Timing: timed("2026-12-01T09:00:00Z", "2026-12-01T09:15:00Z", "UTC")})
	f.mustDo(err)
	for n := 1; n <= 60; n++ {
		e, _, err = f.store.UpdateEntry(ann, calendar.EntryUpdate{Key: e.Key(), ExpectedVersion: e.Version, Title: calendar.Set(fmt.Sprint("t", n))})
		f.mustDo(err)
	}
	page, err := f.store.EntryHistory(ann, e.Key(), calendar.Page{First: 100})
	f.mustDo(err)
	if n := len(page.Records); n != 50 || page.Records[0].Seq != 61 || page.Records[49].Seq != 12 {
		t.Errorf("%d records from seq %d, want 50 from 61 down to 12", n, page.Records[0].Seq)
	}
	if got := f.countEntities()["HISTORY"]; got != 50 {
		t.Errorf("%d history items, want 50", got)
	}
	e, _, err = f.store.UpdateEntry(ann, calendar.EntryUpdate{Key: e.Key(), ExpectedVersion: e.Version, Description: calendar.Set(long + "!")})
	f.mustDo(err)
	page, err = f.store.EntryHistory(ann, e.Key(), calendar.Page{First: 1})
	f.mustDo(err)
	c := page.Records[0].Changes[0]
	if c.Field != "description" || len(*c.Before) != calendar.MaxHistoryValue || len(*c.After) != calendar.MaxHistoryValue || !c.Truncated {
		t.Errorf("long description's change: %s of %d→%d bytes, truncated %v; want description of %d→%d, truncated",
			c.Field, len(*c.Before), len(*c.After), c.Truncated, calendar.MaxHistoryValue, calendar.MaxHistoryValue)
	}
}

// TestCheckFindsAMissingHistoryRecord: Store.Check reports a write whose
// record is gone, the newest or one in the middle.
func TestCheckFindsAMissingHistoryRecord(t *testing.T) {
	for _, gone := range []string{"03", "02"} {
		t.Run("record "+gone, func(t *testing.T) {
			f := newFixture(t)
			f.messy = true
			ann := f.user("ann@example.com")
			cal := f.calendarOf(ann, "Team")
			e, _, err := f.store.CreateEntry(ann, calendar.NewEntry{CalendarID: cal.ID, Title: "a",
				Timing: timed("2026-12-01T09:00:00Z", "2026-12-01T09:15:00Z", "UTC")})
			f.mustDo(err)
			for _, title := range []string{"b", "c"} {
				e, _, err = f.store.UpdateEntry(ann, calendar.EntryUpdate{Key: e.Key(), ExpectedVersion: e.Version, Title: calendar.Set(title)})
				f.mustDo(err)
			}
			f.deleteRaw("CAL#"+cal.ID, "HIST#"+e.ID+"#"+gone)
			problems, err := f.store.Check(context.Background())
			f.mustDo(err)
			if len(problems) != 1 || !strings.Contains(problems[0], "history") {
				t.Errorf("Check found %q, want the missing history record", problems)
			}
		})
	}
}

// TestHistoryKeptWhenStatsAreRebuilt: a write whose stats' latest moment
// lost to a later one (a clock behind another instance's) is sent again
// with its stats rebuilt, and still with its history record.
func TestHistoryKeptWhenStatsAreRebuilt(t *testing.T) {
	f := newFixture(t)
	ann := f.user("ann@example.com")
	cal := f.calendarOf(ann, "Team")
	for _, now := range []string{"2026-11-21T10:00:00Z", "2026-11-21T09:00:00Z"} { // the second behind the first
		e, _, err := withClock(f, now).CreateEntry(ann, calendar.NewEntry{CalendarID: cal.ID, Title: now,
			Timing: timed("2026-12-01T09:00:00Z", "2026-12-01T09:15:00Z", "UTC")})
		f.mustDo(err)
		page, err := f.store.EntryHistory(ann, e.Key(), calendar.Page{First: 5})
		f.mustDo(err)
		if len(page.Records) != 1 || page.Records[0].Action != calendar.HistoryCreated {
			t.Errorf("entry created at %s: history %v, want its creation", now, page.Records)
		}
	}
}

// TestCreatedRecordIsItsItemUntilTheNextWrite: an entry's or series'
// CREATED record is not written by its creation (one action less); its
// history derives it from the item, and the next write of the root, of
// whatever kind, puts the record exactly as it was read before. Store.Check
// holds at every step.
func TestCreatedRecordIsItsItemUntilTheNextWrite(t *testing.T) {
	f := newFixture(t)
	ann, bob := f.user("ann@example.com"), f.user("bob@example.com")
	cal, other := f.calendarOf(ann, "Team"), f.calendarOf(ann, "Other")
	f.share(ann, cal, bob, "bob@example.com", calendar.RoleWriter)
	weekly := &calendar.Recurrence{Rule: "FREQ=WEEKLY;COUNT=10"}
	occ := func(s *calendar.Entry, day string) calendar.OccurrenceKey {
		return calendar.OccurrenceKey{CalendarID: cal.ID, SeriesID: s.ID, OriginalStart: at(day + "T09:00:00Z")}
	}
	for _, tc := range []struct {
		name  string
		entry calendar.NewEntry
		// next writes the root a second time as bob, and returns the key
		// its history is read at afterwards (nil: it has no history there).
		next func(e *calendar.Entry) *calendar.EntryKey
	}{
		{"update", calendar.NewEntry{Title: "Review", Description: "the plan", Location: "Room 2", Tags: []string{"q4"},
			Timing: timed("2026-12-01T09:00:00Z", "2026-12-01T10:00:00Z", "Europe/Paris")},
			func(e *calendar.Entry) *calendar.EntryKey {
				_, _, err := f.store.UpdateEntry(bob, calendar.EntryUpdate{Key: e.Key(), ExpectedVersion: 1, Title: calendar.Set("Review, again")})
				f.mustDo(err)
				return new(e.Key())
			}},
		{"task completed", calendar.NewEntry{Title: "File taxes", Timing: dueOn("2026-12-24")},
			func(e *calendar.Entry) *calendar.EntryKey {
				_, _, err := f.store.SetTaskCompleted(bob, e.Key(), 1, true)
				f.mustDo(err)
				return new(e.Key())
			}},
		{"deleted, then restored", calendar.NewEntry{Title: "Lunch", Timing: timed("2026-12-02T12:00:00Z", "2026-12-02T13:00:00Z", "UTC")},
			func(e *calendar.Entry) *calendar.EntryKey {
				f.mustDo(f.store.DeleteEntry(bob, e.Key(), 1))
				_, _, err := f.store.RestoreEntry(ann, e.Key())
				f.mustDo(err)
				return new(e.Key())
			}},
		{"moved away", calendar.NewEntry{Title: "Offsite", Timing: timed("2026-12-03T09:00:00Z", "2026-12-03T17:00:00Z", "UTC")},
			func(e *calendar.Entry) *calendar.EntryKey {
				_, _, err := f.store.MoveEntry(ann, e.Key(), 1, other.ID)
				f.mustDo(err)
				return nil // its history here is not read again; there it starts with MOVED
			}},
		{"series as a whole", calendar.NewEntry{Title: "Weekly", Timing: timed("2026-12-01T09:00:00Z", "2026-12-01T10:00:00Z", "UTC"), Recurrence: weekly},
			func(e *calendar.Entry) *calendar.EntryKey {
				_, _, err := f.store.UpdateEntry(bob, calendar.EntryUpdate{Key: e.Key(), ExpectedVersion: 1, Location: calendar.Set("Room 1")})
				f.mustDo(err)
				return new(e.Key())
			}},
		{"one occurrence", calendar.NewEntry{Title: "Weekly", Timing: timed("2026-12-01T09:00:00Z", "2026-12-01T10:00:00Z", "UTC"), Recurrence: weekly},
			func(e *calendar.Entry) *calendar.EntryKey {
				f.mustDo(f.store.DeleteOccurrence(bob, occ(e, "2026-12-15"), calendar.ScopeThis, 1))
				return new(e.Key())
			}},
		{"split", calendar.NewEntry{Title: "Weekly", Timing: timed("2026-12-01T09:00:00Z", "2026-12-01T10:00:00Z", "UTC"), Recurrence: weekly},
			func(e *calendar.Entry) *calendar.EntryKey {
				_, _, err := f.store.UpdateOccurrence(bob, occ(e, "2026-12-29"), calendar.ScopeThisAndFollowing,
					calendar.EntryUpdate{ExpectedVersion: 1, Title: calendar.Set("Weekly, later")})
				f.mustDo(err)
				return new(e.Key())
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := tc.entry
			n.CalendarID = cal.ID
			e, _, err := f.store.CreateEntry(ann, n)
			f.mustDo(err)
			if got := f.historyItems(e.ID); len(got) != 0 {
				t.Fatalf("history items after the creation: %v, want none", got)
			}
			page, err := f.store.EntryHistory(bob, e.Key(), calendar.Page{First: 10})
			f.mustDo(err)
			if len(page.Records) != 1 || page.Records[0].Action != calendar.HistoryCreated || page.HasNextPage || page.EndCursor != "1" {
				t.Fatalf("history after the creation: %+v, want its CREATED record alone", page)
			}
			created := page.Records[0]
			if created.Seq != 1 || created.By != viewer(t, ann) || !created.At.Equal(e.CreatedAt) ||
				!gocmp.Equal(created.Changes, calendar.EntryChanges(nil, e)) {
				t.Errorf("derived record %+v, want seq 1 by ann at %v with the entry's values", created, e.CreatedAt)
			}
			f.consistent()

			key := tc.next(e)
			got := f.historyItems(e.ID)
			f.consistent()
			if key == nil { // moved: the record that starts its history in the other calendar alone
				if len(got) != 1 || got[0] != "HIST#"+e.ID+"#02" {
					t.Errorf("history items after the move: %v, want the MOVED record alone", got)
				}
				return
			}
			if len(got) == 0 || got[0] != "HIST#"+e.ID+"#01" {
				t.Errorf("history items after the next write: %v, want the CREATED record's first", got)
			}
			page, err = f.store.EntryHistory(bob, *key, calendar.Page{First: 10})
			f.mustDo(err)
			if n := len(page.Records); n < 2 {
				t.Fatalf("history after the next write: %d records, want the CREATED record and at least one after it", n)
			}
			if diff := gocmp.Diff(created, page.Records[len(page.Records)-1]); diff != "" {
				t.Errorf("the CREATED record written by the next write differs from the one derived before it (-derived +written):\n%s", diff)
			}
		})
	}
}

// historyItems lists the sort keys of root's history items in the table.
func (f *fixture) historyItems(root string) []string {
	f.t.Helper()
	var out []string
	for _, it := range f.allItems() {
		if sk, _ := it["SK"].(string); strings.HasPrefix(sk, "HIST#"+root+"#") {
			out = append(out, sk)
		}
	}
	return out
}
