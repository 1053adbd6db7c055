package embedded_test

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/calgraph/calgraph/internal/calendar"
	"github.com/calgraph/calgraph/internal/dynamo"
	"github.com/calgraph/calgraph/internal/embedded"
	"github.com/calgraph/calgraph/internal/recurrence"
)

// ledger records every write the engine acknowledged: what must be there
// after any crash.
type ledger struct {
	mu          sync.Mutex
	users       map[string]string // ID → email
	calendars   map[string]calendar.Calendar
	memberships map[calendar.MembershipKey]calendar.Role
	entries     map[calendar.EntryKey]string // → title
	acks        int
}

func newLedger() *ledger {
	return &ledger{users: map[string]string{}, calendars: map[string]calendar.Calendar{},
		memberships: map[calendar.MembershipKey]calendar.Role{}, entries: map[calendar.EntryKey]string{}}
}

func (l *ledger) record(fn func()) {
	l.mu.Lock()
	defer l.mu.Unlock()
	fn()
	l.acks++
}

func (l *ledger) count() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.acks
}

// writer makes calgraph's writes one after another through the real store,
// cycling through writes of every shape the checker has invariants for: a
// user with its uniqueness items, a calendar with its owner tally and
// membership, a member, a rename, a multi-day entry stored as several pieces,
// and a timed entry on a resource calendar holding slot and day items.
type writer struct {
	id    int // unique within the test: names its users
	store *dynamo.Store
	log   *ledger
	user  string
	cals  []*calendar.Calendar
	n     int // writes begun
}

// step makes the writer's next write and records it in the ledger once the
// store returns without error.
func (w *writer) step(ctx context.Context) error {
	w.n++
	switch {
	case w.user == "":
		id, err := w.signUp(ctx, fmt.Sprintf("w%d@example.com", w.id))
		w.user = id
		return err
	case len(w.cals) == 0 || w.n%4 == 0:
		return w.createCalendar(ctx)
	case w.n%4 == 1:
		return w.createEntry(ctx)
	case w.n%4 == 2:
		return w.addMember(ctx)
	default:
		return w.rename(ctx)
	}
}

func (w *writer) signUp(ctx context.Context, email string) (string, error) {
	id, _, err := w.store.ResolveIdentity(ctx, calendar.SignUp{
		Identity: calendar.Identity{Provider: "crash", Subject: email}, Email: email})
	if err == nil {
		w.log.record(func() { w.log.users[id] = email })
	}
	return id, err
}

func (w *writer) as(ctx context.Context) context.Context {
	return calendar.WithViewer(ctx, calendar.Viewer{ID: w.user})
}

// createCalendar makes every second calendar a resource calendar.
func (w *writer) createCalendar(ctx context.Context) error {
	n := calendar.NewCalendar{Name: fmt.Sprintf("w%d cal %d", w.id, w.n), TimeZone: "Europe/Paris",
		IsResource: len(w.cals)%2 == 1}
	c, m, err := w.store.CreateCalendar(w.as(ctx), n)
	if err != nil {
		return err
	}
	w.cals = append(w.cals, c)
	w.log.record(func() {
		w.log.calendars[c.ID] = *c
		w.log.memberships[m.Key()] = m.Role
	})
	return nil
}

// createEntry writes on the newest calendar: an hour there if it is a
// resource (a quarter hour of its own per write), forty days (six pieces)
// otherwise.
func (w *writer) createEntry(ctx context.Context) error {
	c := w.cals[len(w.cals)-1]
	start := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(w.n) * time.Hour)
	timing := calendar.Timing{Timed: &calendar.TimedTiming{Start: start, End: start.Add(time.Hour), TimeZone: "Europe/Paris"}}
	if !c.IsResource {
		from := calendar.DateOf(start)
		timing = calendar.Timing{MultiDay: &calendar.DaySpan{Start: from, End: from.AddDays(40)}}
	}
	title := fmt.Sprintf("w%d entry %d", w.id, w.n)
	e, _, err := w.store.CreateEntry(w.as(ctx), calendar.NewEntry{CalendarID: c.ID, Title: title, Timing: timing})
	if err == nil {
		w.log.record(func() { w.log.entries[e.Key()] = title })
	}
	return err
}

// addMember signs up a guest and makes it a writer of a calendar.
func (w *writer) addMember(ctx context.Context) error {
	email := fmt.Sprintf("w%d-guest%d@example.com", w.id, w.n)
	if _, err := w.signUp(ctx, email); err != nil {
		return err
	}
	m, _, err := w.store.AddMember(w.as(ctx), w.cals[w.n%len(w.cals)].ID, email, calendar.RoleWriter)
	if err == nil {
		w.log.record(func() { w.log.memberships[m.Key()] = m.Role })
	}
	return err
}

func (w *writer) rename(ctx context.Context) error {
	i := w.n % len(w.cals)
	c, err := w.store.UpdateCalendar(w.as(ctx), calendar.CalendarUpdate{ID: w.cals[i].ID,
		ExpectedVersion: w.cals[i].Version, Name: calendar.Set(fmt.Sprintf("w%d renamed %d", w.id, w.n))})
	if err != nil {
		return err
	}
	w.cals[i] = c
	w.log.record(func() { w.log.calendars[c.ID] = *c })
	return nil
}

// verifyAfterCrash opens the engine on dir in this process, as a restart
// would, and fails the test for every acknowledged write it lacks and every
// problem the consistency checker finds. A write that failed or was under
// way at the kill may be there or not; a calendar renamed while the kill
// happened may be at a later version than the one acknowledged.
func verifyAfterCrash(t *testing.T, dir string, l *ledger, replay string) {
	t.Helper()
	unlock, err := embedded.LockDir(dir)
	if err != nil {
		t.Fatalf("%s: lock after the kill: %v", replay, err)
	}
	defer unlock()
	e, err := embedded.Open(dir, slog.New(slog.DiscardHandler), embedded.Options{})
	if err != nil {
		t.Fatalf("%s: reopen after the kill: %v", replay, err)
	}
	defer func() {
		if err := e.Close(context.Background()); err != nil {
			t.Errorf("close: %v", err)
		}
	}()
	creds, _ := e.Credentials().Retrieve(context.Background())
	store := dynamo.New(clientAt(t, e.URL(), creds), table, recurrence.Engine{})
	ctx := context.Background()
	l.mu.Lock()
	defer l.mu.Unlock()
	var keys calendar.Keys
	for id := range l.users {
		keys.Users = append(keys.Users, id)
	}
	for id := range l.calendars {
		keys.Calendars = append(keys.Calendars, id)
	}
	for k := range l.memberships {
		keys.Memberships = append(keys.Memberships, k)
	}
	for k := range l.entries {
		keys.Entries = append(keys.Entries, k)
	}
	got, err := store.Read(ctx, keys)
	if err != nil {
		t.Fatalf("%s: read back: %v", replay, err)
	}
	for id, email := range l.users {
		if u := got.Users[id]; u == nil || u.Email != email {
			t.Errorf("%s: acknowledged user %s (%s): got %v after the crash", replay, id, email, u)
		}
	}
	for id, want := range l.calendars {
		if c := got.Calendars[id]; c == nil || c.Version < want.Version || c.Version == want.Version && c.Name != want.Name {
			t.Errorf("%s: acknowledged calendar %s (version %d, %q): got %v after the crash", replay, id, want.Version, want.Name, c)
		}
	}
	for k, role := range l.memberships {
		if m := got.Memberships[k]; m == nil || m.Role != role {
			t.Errorf("%s: acknowledged membership %v (%s): got %v after the crash", replay, k, role, m)
		}
	}
	for k, title := range l.entries {
		if e := got.Entries[k]; e == nil || e.Title != title {
			t.Errorf("%s: acknowledged entry %v (%q): got %v after the crash", replay, k, title, e)
		}
	}
	problems, err := store.Check(ctx)
	if err != nil {
		t.Fatalf("%s: check: %v", replay, err)
	}
	for _, p := range problems {
		t.Errorf("%s: inconsistent after the crash: %s", replay, p)
	}
}
