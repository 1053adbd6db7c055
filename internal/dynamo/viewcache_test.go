package dynamo_test

import (
	"context"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/calgraph/calgraph/internal/calendar"
	"github.com/calgraph/calgraph/internal/dynamo"
)

// cachedView is what a view of one calendar reads: its revision, its entries
// reaching into a range and its first page of members.
type cachedView struct {
	revision int64
	entries  []*calendar.Entry
	members  *calendar.MembershipPage
}

var viewFrom, viewTo = at("2026-11-16T00:00:00Z"), at("2026-12-07T00:00:00Z")

// readView reads cal's view as a request in scope does: the calendar
// strongly, then its entries and members, from the view cache when scope
// may.
func readView(t *testing.T, s *dynamo.Store, ctx context.Context, scope calendar.ReadScope, calendarID string) cachedView {
	t.Helper()
	found, err := s.Read(ctx, calendar.Keys{Calendars: []string{calendarID}})
	if err != nil {
		t.Fatal(err)
	}
	return readViewOf(t, s, ctx, scope, found.Calendars[calendarID])
}

func readViewOf(t *testing.T, s *dynamo.Store, ctx context.Context, scope calendar.ReadScope, cal *calendar.Calendar) cachedView {
	t.Helper()
	entries, err := s.EntriesReaching(ctx, scope, cal, viewFrom, viewTo)
	if err != nil {
		t.Fatal(err)
	}
	members, err := s.MembershipsOfCalendar(ctx, scope, cal, calendar.Page{First: 10})
	if err != nil {
		t.Fatal(err)
	}
	return cachedView{cal.Revision, entries, members}
}

// TestCachedViewsFollowEveryKindOfChange: before each kind of change a view
// is read twice (the second from the cache); after it, a view that may be
// served from the cache equals one read afresh, and the change raised the
// calendar's revision unless it changed only the calendar item.
func TestCachedViewsFollowEveryKindOfChange(t *testing.T) {
	f := newFixture(t)
	dynamo.SetViewCacheSettle(f.store, 0, time.Now) // cache at once (TestViewCacheWaitsForRevisionsToSettle)
	r := f.roles()
	w := f.everyKindOfChange(r)
	query := queryScope()
	for _, step := range w.steps {
		before := readView(t, f.store, r.reader, query, r.cal.ID)
		hits := f.store.ViewCacheStats().Hits
		if again := readView(t, f.store, r.reader, query, r.cal.ID); !reflect.DeepEqual(again, before) {
			t.Fatalf("before %s: a second read differs from the first", step.name)
		}
		if got := f.store.ViewCacheStats().Hits - hits; got != 2 {
			t.Fatalf("before %s: the second read made %d cache hits, want 2 (entries, members)", step.name, got)
		}
		if err := step.change(); err != nil {
			t.Fatalf("%s: %v", step.name, err)
		}
		cached := readView(t, f.store, r.reader, query, r.cal.ID)
		fresh := readView(t, f.store, r.reader, calendar.ReadScope{}, r.cal.ID) // never cached
		if !reflect.DeepEqual(cached.entries, fresh.entries) || !reflect.DeepEqual(cached.members, fresh.members) {
			t.Errorf("%s: the cached view differs from a fresh read:\ncached %d entries, %d members\nfresh  %d entries, %d members",
				step.name, len(cached.entries), len(cached.members.Memberships), len(fresh.entries), len(fresh.members.Memberships))
		}
		if raised := cached.revision > before.revision; raised != (step.name != "calendar renamed") {
			t.Errorf("%s: revision %d → %d", step.name, before.revision, cached.revision)
		}
	}
	f.consistent()
}

// TestAMutationReadsAfresh: a mutation's reads (calendar.ReadScope without
// Cached) come from the table, though the calendar it read before its write
// names a revision the cache holds: its own write shows. A query's reads of
// the same calendar, as read, come from the cache.
func TestAMutationReadsAfresh(t *testing.T) {
	f := newFixture(t)
	dynamo.SetViewCacheSettle(f.store, 0, time.Now)
	r := f.roles()
	ctx := r.writer
	found, err := f.store.Read(ctx, calendar.Keys{Calendars: []string{r.cal.ID}})
	if err != nil {
		t.Fatal(err)
	}
	cal := found.Calendars[r.cal.ID]
	if v := readViewOf(t, f.store, ctx, queryScope(), cal); len(v.entries) != 0 {
		t.Fatalf("a new calendar holds %d entries", len(v.entries))
	}
	if _, _, err := f.store.CreateEntry(ctx, calendar.NewEntry{CalendarID: r.cal.ID, Title: "mine",
		Timing: timed("2026-11-24T09:00:00Z", "2026-11-24T10:00:00Z", "UTC")}); err != nil {
		t.Fatal(err)
	}
	if v := readViewOf(t, f.store, ctx, calendar.ReadScope{Budget: calendar.NewBudget(10_000, 8<<20)}, cal); len(v.entries) != 1 {
		t.Fatalf("after its own write, the mutation's view of the calendar as read before it holds %d entries, want 1", len(v.entries))
	}
	if v := readViewOf(t, f.store, ctx, queryScope(), cal); len(v.entries) != 0 {
		t.Fatalf("a query's view of the calendar at its earlier revision holds %d entries, want the cached 0", len(v.entries))
	}
}

// TestWriteRacingItsCalendarsDeletion: a write whose calendar item goes
// between its checks and its transaction (here the item alone, as the first
// step of a deletion does: the memberships go later) fails with NOT_FOUND,
// and does not bring the item back holding a revision alone.
func TestWriteRacingItsCalendarsDeletion(t *testing.T) {
	f := newFixture(t)
	r := f.roles()
	e, _, err := f.store.CreateEntry(r.writer, calendar.NewEntry{CalendarID: r.cal.ID, Title: "early",
		Timing: timed("2026-11-24T09:00:00Z", "2026-11-24T10:00:00Z", "UTC")})
	f.mustDo(err)
	key := "CAL#" + r.cal.ID
	var calItem map[string]any
	for _, it := range f.items() {
		if it["PK"] == key && it["SK"] == key {
			calItem = it
		}
	}
	dynamo.SetBeforeTransact(f.store, func(context.Context) { f.deleteRaw(key, key) })
	_, _, err = f.store.UpdateEntry(r.writer, calendar.EntryUpdate{Key: e.Key(), ExpectedVersion: 1, Title: calendar.Set("late")})
	dynamo.SetBeforeTransact(f.store, nil)
	if code := calendar.ErrorCode(err); code != calendar.CodeNotFound {
		t.Fatalf("got %v (%s), want NOT_FOUND", err, code)
	}
	for _, it := range f.items() {
		if it["PK"] == key && it["SK"] == key {
			t.Fatalf("the calendar item is back: %v", it)
		}
	}
	f.putItem(calItem) // as it was, for the fixture's final check
}

// TestLeaveACalendarBeingDeleted: a member can leave a calendar whose item
// is gone while the rest of its partition waits for the clean-up; there is
// no revision to raise.
func TestLeaveACalendarBeingDeleted(t *testing.T) {
	f := newFixture(t)
	r := f.roles()
	key := "CAL#" + r.cal.ID
	var calItem map[string]any
	for _, it := range f.items() {
		if it["PK"] == key && it["SK"] == key {
			calItem = it
		}
	}
	f.deleteRaw(key, key)
	if _, err := f.store.LeaveCalendar(r.reader, r.cal.ID, r.readerM.Version); err != nil {
		t.Fatalf("leave a calendar being deleted: %v", err)
	}
	for _, it := range f.items() {
		if it["PK"] == key && (it["SK"] == key || it["SK"] == "MEMBER#"+r.readerM.UserID) {
			t.Fatalf("left behind, or brought back: %v", it)
		}
	}
	f.putItem(calItem) // as it was, for the fixture's final check
}

// TestViewCacheWaitsForRevisionsToSettle: reads at a calendar revision are
// cached only once the instance has seen that revision for the settle
// window, so that a Query racing with the transaction that raised it (read-
// committed, it may miss some of its items) is never kept.
func TestViewCacheWaitsForRevisionsToSettle(t *testing.T) {
	f := newFixture(t)
	var mu sync.Mutex
	now := time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	advance := func(d time.Duration) { mu.Lock(); defer mu.Unlock(); now = now.Add(d) }
	dynamo.SetViewCacheSettle(f.store, time.Second, clock)
	r := f.roles()
	read := func() int64 {
		hits := f.store.ViewCacheStats().Hits
		readView(t, f.store, r.reader, queryScope(), r.cal.ID)
		return f.store.ViewCacheStats().Hits - hits
	}
	steps := []struct {
		name  string
		after time.Duration
		hits  int64
	}{
		{"first sight of the revision", 0, 0},
		{"half a second later: not settled, not cached", 500 * time.Millisecond, 0},
		{"a second after the first sight: settled, cached now", 500 * time.Millisecond, 0},
		{"then answered from the cache", 0, 2},
	}
	for _, s := range steps {
		advance(s.after)
		if got := read(); got != s.hits {
			t.Errorf("%s: %d cache hits, want %d", s.name, got, s.hits)
		}
	}
	if _, _, err := f.store.CreateEntry(r.writer, calendar.NewEntry{CalendarID: r.cal.ID, Title: "new",
		Timing: timed("2026-11-24T09:00:00Z", "2026-11-24T10:00:00Z", "UTC")}); err != nil {
		t.Fatal(err)
	}
	if got := read(); got != 0 {
		t.Errorf("at the new revision: %d cache hits, want 0", got)
	}
	if got := read(); got != 0 {
		t.Errorf("at the new revision, just seen: %d cache hits, want 0 (not settled)", got)
	}
}
