package dynamo_test

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/calgraph/calgraph/internal/calendar"
	"github.com/calgraph/calgraph/internal/dynamo"
	"github.com/calgraph/calgraph/internal/dynamotest"
)

// replica is a client's copy of a calendar, kept by sync: each object by
// type and ID, as a string of what a client would show (its version, and a
// series' exceptions).
type replica struct {
	objects map[string]string
	token   string
}

func objectState(c calendar.ObjectChange) (key, state string) {
	key = fmt.Sprintf("%d:%s", c.Type, c.ID)
	switch {
	case c.Deleted:
		return key, ""
	case c.Calendar != nil:
		return key, fmt.Sprintf("calendar v%d %s", c.Calendar.Version, c.Calendar.Name)
	case c.Membership != nil:
		return key, fmt.Sprintf("member v%d %s", c.Membership.Version, c.Membership.Role)
	case c.Series != nil:
		var xs []string
		for _, x := range c.Series.Exceptions {
			xs = append(xs, fmt.Sprintf("%s v%d cancelled=%v", x.OriginalStart.Format(time.RFC3339), x.Version, x.Cancelled))
		}
		return key, fmt.Sprintf("series v%d %s %s [%s]", c.Entry.Version, c.Entry.Title, c.Entry.Recurrence.Rule, strings.Join(xs, "; "))
	default:
		return key, fmt.Sprintf("entry v%d %s", c.Entry.Version, c.Entry.Title)
	}
}

// sync reads pages of size first until none is left, and returns how many
// changes it applied.
func (r *replica) sync(t *testing.T, s *dynamo.Store, ctx context.Context, calendarID string, first int) int {
	t.Helper()
	n := 0
	for {
		p, err := s.Changes(ctx, calendarID, r.token, first)
		if err != nil {
			t.Fatalf("sync: %v", err)
		}
		if len(p.Changes) > first {
			t.Fatalf("a page of %d changes, asked for %d", len(p.Changes), first)
		}
		for _, c := range p.Changes {
			k, v := objectState(c)
			if v == "" {
				delete(r.objects, k)
			} else {
				r.objects[k] = v
			}
		}
		n += len(p.Changes)
		r.token = p.Token
		if !p.More {
			return n
		}
	}
}

// fullState is what a client that reads everything now holds.
func fullState(t *testing.T, s *dynamo.Store, ctx context.Context, calendarID string) map[string]string {
	t.Helper()
	r := &replica{objects: map[string]string{}}
	r.sync(t, s, ctx, calendarID, 100)
	return r.objects
}

func sameState(t *testing.T, what string, got, want map[string]string) {
	t.Helper()
	if !maps.Equal(got, want) {
		var diff []string
		for _, k := range slices.Sorted(maps.Keys(want)) {
			if got[k] != want[k] {
				diff = append(diff, fmt.Sprintf("%s: got %q, want %q", k, got[k], want[k]))
			}
		}
		for _, k := range slices.Sorted(maps.Keys(got)) {
			if _, ok := want[k]; !ok {
				diff = append(diff, fmt.Sprintf("%s: got %q, want nothing", k, got[k]))
			}
		}
		t.Fatalf("%s: the replica differs from a full read:\n%s", what, strings.Join(diff, "\n"))
	}
}

// TestSyncFollowsEveryKindOfChange: a replica made by a paged full read and
// kept by incremental syncs equals a full read after each kind of change:
// entries created, changed, completed, moved away and deleted (tombstones),
// a series created, an occurrence changed and cancelled, a series split, the
// calendar renamed, members added, demoted and removed.
func TestSyncFollowsEveryKindOfChange(t *testing.T) {
	f := newFixture(t)
	r := f.roles()
	w := f.everyKindOfChange(r)
	rep := &replica{objects: map[string]string{}}
	// A full read in pages of 2: the calendar, 3 members, 7 entries.
	if n := rep.sync(t, f.store, r.reader, r.cal.ID, 2); n != 1+3+7 {
		t.Fatalf("the full read gave %d objects, want 11", n)
	}
	sameState(t, "after the full read", rep.objects, fullState(t, f.store, r.reader, r.cal.ID))
	for _, step := range w.steps {
		if err := step.change(); err != nil {
			t.Fatalf("%s: %v", step.name, err)
		}
		if n := rep.sync(t, f.store, r.reader, r.cal.ID, 3); n == 0 {
			t.Fatalf("%s: the sync found no change", step.name)
		}
		sameState(t, step.name, rep.objects, fullState(t, f.store, r.reader, r.cal.ID))
	}
	if _, ok := rep.objects[fmt.Sprintf("%d:%s", calendar.ObjectEntry, w.deleted.ID)]; ok {
		t.Fatal("the deleted entry is still in the replica")
	}
	f.consistent()
}

// changes are the steps that change a calendar in every way a write can: its
// entries, series, occurrences, the calendar itself and its members.
type changes struct {
	deleted *calendar.Entry // by the step "entry deleted"
	steps   []changeStep
}

type changeStep struct {
	name   string
	change func() error
}

// everyKindOfChange fills r's calendar with 5 entries, a daily series and a
// task, and returns the steps that change it.
func (f *fixture) everyKindOfChange(r roles) changes {
	t := f.t
	t.Helper()
	elsewhere := f.calendarOf(r.writer, "Elsewhere")
	var entries []*calendar.Entry
	for i := range 5 {
		e, _, err := f.store.CreateEntry(r.writer, calendar.NewEntry{CalendarID: r.cal.ID, Title: fmt.Sprint("entry ", i),
			Timing: timed(fmt.Sprintf("2026-11-2%dT09:00:00Z", i), fmt.Sprintf("2026-11-2%dT10:00:00Z", i), "UTC")})
		if err != nil {
			t.Fatal(err)
		}
		entries = append(entries, e)
	}
	standup := f.series(r.writer, r.cal.ID, "standup", timed("2026-11-23T09:00:00Z", "2026-11-23T09:15:00Z", "UTC"), "FREQ=DAILY;COUNT=10")
	task, _, err := f.store.CreateEntry(r.writer, calendar.NewEntry{CalendarID: r.cal.ID, Title: "task", Timing: dueOn("2026-11-30")})
	if err != nil {
		t.Fatal(err)
	}
	return changes{deleted: entries[1], steps: []changeStep{
		{"entry changed", func() error {
			_, _, err := f.store.UpdateEntry(r.writer, calendar.EntryUpdate{Key: entries[0].Key(), ExpectedVersion: 1, Title: calendar.Set("renamed")})
			return err
		}},
		{"entry deleted", func() error { return f.store.DeleteEntry(r.writer, entries[1].Key(), 1) }},
		{"entry moved away", func() error {
			_, _, err := f.store.MoveEntry(r.writer, entries[2].Key(), 1, elsewhere.ID)
			return err
		}},
		{"task completed", func() error {
			_, _, err := f.store.SetTaskCompleted(r.writer, task.Key(), 1, true)
			return err
		}},
		{"occurrence changed", func() error {
			occ := standup.OccurrenceAt(at("2026-11-25T09:00:00Z"))
			_, _, err := f.store.UpdateOccurrence(r.writer, calendar.OccurrenceKey{CalendarID: r.cal.ID, SeriesID: standup.ID, OriginalStart: occ.OriginalStart},
				calendar.ScopeThis, calendar.EntryUpdate{ExpectedVersion: occ.Version, Title: calendar.Set("moved standup")})
			return err
		}},
		{"occurrence cancelled", func() error {
			return f.store.DeleteOccurrence(r.writer, calendar.OccurrenceKey{CalendarID: r.cal.ID, SeriesID: standup.ID, OriginalStart: at("2026-11-26T09:00:00Z")},
				calendar.ScopeThis, standup.Version)
		}},
		{"series split", func() error {
			s, err := f.store.Series(r.writer, standup.Key())
			if err != nil {
				return err
			}
			_, _, err = f.store.UpdateOccurrence(r.writer, calendar.OccurrenceKey{CalendarID: r.cal.ID, SeriesID: standup.ID, OriginalStart: at("2026-11-28T09:00:00Z")},
				calendar.ScopeThisAndFollowing, calendar.EntryUpdate{ExpectedVersion: s.Master.Version, Title: calendar.Set("new standup")})
			return err
		}},
		{"calendar renamed", func() error {
			_, err := f.store.UpdateCalendar(r.owner, calendar.CalendarUpdate{ID: r.cal.ID, ExpectedVersion: 1, Name: calendar.Set("Renamed")})
			return err
		}},
		{"member added", func() error {
			f.share(r.owner, r.cal, r.outsider, "outsider@example.com", calendar.RoleFreeBusy)
			return nil
		}},
		{"member demoted", func() error {
			_, _, err := f.store.ChangeRole(r.owner, r.writerM.Key(), calendar.RoleReader, r.writerM.Version)
			return err
		}},
		{"member removed", func() error {
			m, err := f.store.Read(r.owner, calendar.Keys{Memberships: []calendar.MembershipKey{{CalendarID: r.cal.ID, UserID: viewer(t, r.outsider)}}})
			if err != nil {
				return err
			}
			for _, m := range m.Memberships {
				return f.store.RemoveMember(r.owner, m.Key(), m.Version)
			}
			return fmt.Errorf("no membership")
		}},
	}}
}

// TestSyncTokens: a token is of one calendar; garbage and forged tokens are
// refused; FREE_BUSY members and outsiders cannot sync; a token older than the
// retention fails with CodeSyncTokenExpired.
func TestSyncTokens(t *testing.T) {
	f := newFixture(t)
	r := f.roles()
	other := f.calendarOf(r.owner, "Other")
	p, err := f.store.Changes(r.owner, other.ID, "", 100)
	if err != nil {
		t.Fatal(err)
	}
	_, err = f.store.Changes(r.owner, r.cal.ID, p.Token, 100)
	wantCode(t, err, calendar.CodeInvalid)
	for _, bad := range []string{"x", "AAAA", strings.Repeat("A", 5000), p.Token[:len(p.Token)-2]} {
		_, err = f.store.Changes(r.owner, other.ID, bad, 100)
		wantCode(t, err, calendar.CodeInvalid)
	}
	for _, first := range []int{0, 101} {
		_, err = f.store.Changes(r.owner, other.ID, "", first)
		wantCode(t, err, calendar.CodeInvalid)
	}
	fb := f.user("fb@example.com")
	f.share(r.owner, r.cal, fb, "fb@example.com", calendar.RoleFreeBusy)
	_, err = f.store.Changes(fb, r.cal.ID, "", 10)
	wantCode(t, err, calendar.CodeForbidden)
	_, err = f.store.Changes(r.outsider, r.cal.ID, "", 10)
	wantCode(t, err, calendar.CodeNotFound)
	_, err = f.store.CalendarListChanges(r.owner, p.Token, 10)
	wantCode(t, err, calendar.CodeInvalid)

	// The overlap window is 30 s: with a retention shorter than that, the
	// token of a finished read is already too old for the next.
	short := dynamo.New(f.db, f.store.Table(), engine, dynamo.WithChangeRetention(20*time.Second))
	p, err = short.Changes(r.owner, r.cal.ID, "", 100)
	if err != nil || p.More {
		t.Fatalf("full read: more %v, %v", p.More, err)
	}
	_, err = short.Changes(r.owner, r.cal.ID, p.Token, 100)
	wantCode(t, err, calendar.CodeSyncTokenExpired)
	if _, err = f.store.Changes(r.owner, r.cal.ID, p.Token, 100); err != nil {
		t.Fatalf("the same token within a week's retention: %v", err)
	}
}

// listReplica is a client's copy of its calendar list.
func syncList(t *testing.T, s *dynamo.Store, ctx context.Context, token string, list map[string]string) string {
	t.Helper()
	for {
		p, err := s.CalendarListChanges(ctx, token, 2)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range p.Changes {
			if c.Removed {
				delete(list, c.CalendarID)
			} else {
				list[c.CalendarID] = string(c.Membership.Role)
			}
		}
		token = p.Token
		if !p.More {
			return token
		}
	}
}

// TestCalendarListChanges: the viewer's list follows calendars shared with
// them, role changes, removal, leaving and deletion.
func TestCalendarListChanges(t *testing.T) {
	f := newFixture(t)
	ada, bob := f.user("ada@example.com"), f.user("bob@example.com")
	own := f.calendarOf(bob, "Bob's")
	list := map[string]string{}
	token := syncList(t, f.store, bob, "", list)
	if !maps.Equal(list, map[string]string{own.ID: "OWNER"}) {
		t.Fatalf("full list %v", list)
	}
	cals := []*calendar.Calendar{f.calendarOf(ada, "A"), f.calendarOf(ada, "B"), f.calendarOf(ada, "C")}
	var ms []*calendar.Membership
	for _, c := range cals {
		ms = append(ms, f.share(ada, c, bob, "bob@example.com", calendar.RoleReader))
	}
	token = syncList(t, f.store, bob, token, list)
	want := map[string]string{own.ID: "OWNER", cals[0].ID: "READER", cals[1].ID: "READER", cals[2].ID: "READER"}
	if !maps.Equal(list, want) {
		t.Fatalf("after sharing: %v, want %v", list, want)
	}
	if _, _, err := f.store.ChangeRole(ada, ms[0].Key(), calendar.RoleWriter, ms[0].Version); err != nil {
		t.Fatal(err)
	}
	if err := f.store.RemoveMember(ada, ms[1].Key(), ms[1].Version); err != nil {
		t.Fatal(err)
	}
	if err := f.store.DeleteCalendar(ada, cals[2].ID, 1); err != nil {
		t.Fatal(err)
	}
	if err := f.store.DeleteCalendar(bob, own.ID, 1); err != nil {
		t.Fatal(err)
	}
	syncList(t, f.store, bob, token, list)
	want = map[string]string{cals[0].ID: "WRITER"}
	if !maps.Equal(list, want) {
		t.Fatalf("after changes: %v, want %v", list, want)
	}
	full := map[string]string{}
	syncList(t, f.store, bob, "", full)
	if !maps.Equal(full, want) {
		t.Fatalf("a full read: %v, want %v", full, want)
	}
}

// TestSkewedClocksMissNothing: two stores on one table whose local clocks
// are 45 seconds behind and ahead write in turn, and the other syncs after
// each write. The Date headers of DynamoDB's answers correct both clocks, so
// each sync finds every write. (Without the correction the store ahead reads
// at a moment 45 s late, past the 30 s overlap window, and misses the other's
// writes: the test then fails on the first write.)
func TestSkewedClocksMissNothing(t *testing.T) {
	f := newFixture(t)
	r := f.roles()
	skewed := func(d time.Duration) *dynamo.Store {
		return dynamo.New(f.db, f.store.Table(), engine, dynamo.WithChangeClock(func() time.Time { return time.Now().Add(d) }))
	}
	behind, ahead := skewed(-45*time.Second), skewed(45*time.Second)
	// Each store needs one answer from DynamoDB before its clock is right.
	for _, s := range []*dynamo.Store{behind, ahead} {
		if err := s.Ping(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	rep := &replica{objects: map[string]string{}}
	rep.sync(t, ahead, r.reader, r.cal.ID, 100)
	for i := range 6 {
		w := []*dynamo.Store{behind, ahead}[i%2]
		if _, _, err := w.CreateEntry(r.writer, calendar.NewEntry{CalendarID: r.cal.ID, Title: fmt.Sprint("e", i), Timing: dueOn("2026-12-01")}); err != nil {
			t.Fatal(err)
		}
		reader := []*dynamo.Store{ahead, behind}[i%2]
		rep.sync(t, reader, r.reader, r.cal.ID, 100)
		sameState(t, fmt.Sprint("after write ", i), rep.objects, fullState(t, f.store, r.reader, r.cal.ID))
	}
}

// TestSyncOfABurst: more changes within the overlap window than a token
// remembers (500 records) are read in small pages to the end, in a bounded
// number of pages, and the replica equals a full read. (A token that forgot
// records without moving its bound read the same ones again for ever.)
func TestSyncOfABurst(t *testing.T) {
	t.Parallel() // a table of its own; seconds of writes, which overlap with other tests' waits
	f := newFixture(t)
	r := f.roles()
	rep := &replica{objects: map[string]string{}}
	rep.sync(t, f.store, r.reader, r.cal.ID, 100)
	var g errgroup.Group
	g.SetLimit(8)
	for i := range 560 {
		g.Go(func() error {
			_, _, err := f.store.CreateEntry(r.writer, calendar.NewEntry{CalendarID: r.cal.ID, Title: fmt.Sprint("burst ", i), Timing: dueOn("2026-12-01")})
			return err
		})
	}
	if err := g.Wait(); err != nil {
		t.Fatal(err)
	}
	pages := 0
	for {
		p, err := f.store.Changes(r.reader, r.cal.ID, rep.token, 50)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range p.Changes {
			k, v := objectState(c)
			rep.objects[k] = v
		}
		rep.token = p.Token
		if pages++; !p.More {
			break
		}
		if pages > 30 {
			t.Fatalf("%d pages of 50 for 560 changes and still more", pages)
		}
	}
	sameState(t, "after the burst", rep.objects, fullState(t, f.store, r.reader, r.cal.ID))
	if len(rep.token) > 8192 {
		t.Fatalf("a token of %d bytes", len(rep.token))
	}
}

// TestChangePagesCarryTheirCalendar: a page of a calendar's log holds the
// calendar as the read found it, read with the changed objects in one
// BatchGetItem (after the log's Query), renamed as soon as the rename is in
// the page, and nil once it is deleted; an authorized sync's page holds the
// calendar its access check read.
func TestChangePagesCarryTheirCalendar(t *testing.T) {
	f := newFixture(t)
	owner := f.user("owner@example.com")
	cal := f.calendarOf(owner, "Team")
	rec := &dynamo.Recorder{}
	s := dynamo.New(dynamotest.Client(t, dynamo.WithRecorder(rec)), f.store.Table(), engine)
	token, err := s.StartToken(owner, cal.ID, false)
	if err != nil {
		t.Fatal(err)
	}
	read := func(what string) *calendar.ChangePage {
		t.Helper()
		rec.Reset()
		p, err := s.LogChanges(context.Background(), cal.ID, token, 100)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		token = p.Token
		return p
	}
	if p := read("nothing"); len(p.Changes) != 0 || p.Calendar != nil || len(rec.Calls()) != 1 {
		t.Fatalf("a read that finds nothing: %d changes, calendar %v, %d calls, want none, nil, the Query", len(p.Changes), p.Calendar, len(rec.Calls()))
	}
	if _, _, err := f.store.CreateEntry(owner, calendar.NewEntry{CalendarID: cal.ID, Title: "x",
		Timing: calendar.Timing{Task: &calendar.TaskDue{Date: &calendar.Date{Year: 2026, Month: 12, Day: 1}}}}); err != nil {
		t.Fatal(err)
	}
	p := read("an entry")
	if len(p.Changes) != 1 || p.Calendar == nil || p.Calendar.Name != "Team" {
		t.Fatalf("after an entry: %d changes, calendar %+v", len(p.Changes), p.Calendar)
	}
	if ops := fmt.Sprint(opsOf(rec.Calls())); ops != "[Query BatchGetItem]" {
		t.Fatalf("the read of an entry's change: %s, want the Query and one BatchGetItem", ops)
	}
	if _, err := f.store.UpdateCalendar(owner, calendar.CalendarUpdate{ID: cal.ID, ExpectedVersion: 1, Name: calendar.Set("Renamed")}); err != nil {
		t.Fatal(err)
	}
	if p := read("a rename"); p.Calendar == nil || p.Calendar.Name != "Renamed" {
		t.Fatalf("after the rename: calendar %+v", p.Calendar)
	}
	if p, err := s.Changes(owner, cal.ID, token, 100); err != nil || p.Calendar == nil || p.Calendar.Name != "Renamed" {
		t.Fatalf("an authorized sync: %v, calendar %+v", err, p)
	}
	if err := f.store.DeleteCalendar(owner, cal.ID, 2); err != nil {
		t.Fatal(err)
	}
	if p := read("the deletion"); p.Calendar != nil || len(p.Changes) == 0 {
		t.Fatalf("after the deletion: calendar %+v, %d changes", p.Calendar, len(p.Changes))
	}
}

func opsOf(calls []dynamo.Call) []string {
	var ops []string
	for _, c := range calls {
		ops = append(ops, c.Op)
	}
	return ops
}
