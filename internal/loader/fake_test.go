package loader

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/calgraph/calgraph/internal/calendar"
	"github.com/calgraph/calgraph/internal/recurrence"
)

// fakeReader is the read side of a store held in maps: it records the keys
// of every Read, fails those that name a broken key, and panics on those
// that name a panicking one. Only Read and the membership pages are
// implemented; a test that reaches anything else fails by a nil call.
type fakeReader struct {
	calendar.Reader // not called

	users       map[string]*calendar.User
	calendars   map[string]*calendar.Calendar
	memberships map[calendar.MembershipKey]*calendar.Membership
	entries     map[calendar.EntryKey]*calendar.Entry
	broken      string // a read naming this ID fails
	panicking   string // a read naming this ID panics

	mu     sync.Mutex
	reads  []calendar.Keys
	scopes []calendar.ReadScope // handed to MembershipsOfCalendar
}

// errBroken is the failure of a read that names fakeReader.broken.
var errBroken = errors.New("the store is broken")

func newFakeReader() *fakeReader {
	return &fakeReader{
		users:       map[string]*calendar.User{},
		calendars:   map[string]*calendar.Calendar{},
		memberships: map[calendar.MembershipKey]*calendar.Membership{},
		entries:     map[calendar.EntryKey]*calendar.Entry{},
	}
}

// addUser, addCalendar and addMember fill the store.
func (f *fakeReader) addUser(id string) *calendar.User {
	u := &calendar.User{ID: id, Email: id[:4] + "@example.com"}
	f.users[id] = u
	return u
}

func (f *fakeReader) addCalendar(id string) *calendar.Calendar {
	c := &calendar.Calendar{ID: id, Name: "calendar " + id[:4], TimeZone: "UTC"}
	f.calendars[id] = c
	return c
}

func (f *fakeReader) addMember(calendarID, userID string, role calendar.Role) *calendar.Membership {
	m := &calendar.Membership{CalendarID: calendarID, UserID: userID, Role: role}
	f.memberships[m.Key()] = m
	return m
}

func (f *fakeReader) Read(ctx context.Context, k calendar.Keys) (*calendar.Items, error) {
	f.mu.Lock()
	f.reads = append(f.reads, sortedKeys(k))
	f.mu.Unlock()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if f.names(k, f.panicking) {
		panic("the store panicked")
	}
	if f.names(k, f.broken) {
		return nil, errBroken
	}
	found := &calendar.Items{Users: map[string]*calendar.User{}, Calendars: map[string]*calendar.Calendar{},
		Memberships: map[calendar.MembershipKey]*calendar.Membership{}, Entries: map[calendar.EntryKey]*calendar.Entry{}}
	for _, id := range k.Users {
		if u := f.users[id]; u != nil {
			found.Users[id] = u
		}
	}
	for _, id := range k.Calendars {
		if c := f.calendars[id]; c != nil {
			found.Calendars[id] = c
		}
	}
	for _, key := range k.Memberships {
		if m := f.memberships[key]; m != nil {
			found.Memberships[key] = m
		}
	}
	for _, key := range k.Entries {
		if e := f.entries[key]; e != nil {
			found.Entries[key] = e
		}
	}
	return found, nil
}

// names reports whether k names id (never when id is empty).
func (f *fakeReader) names(k calendar.Keys, id string) bool {
	if id == "" {
		return false
	}
	for _, s := range k.Users {
		if s == id {
			return true
		}
	}
	for _, s := range k.Calendars {
		if s == id {
			return true
		}
	}
	return false
}

func (f *fakeReader) MembershipsOfCalendar(_ context.Context, scope calendar.ReadScope, cal *calendar.Calendar, _ calendar.Page) (*calendar.MembershipPage, error) {
	f.mu.Lock()
	f.scopes = append(f.scopes, scope)
	f.mu.Unlock()
	page := &calendar.MembershipPage{}
	for _, m := range f.memberships {
		if m.CalendarID == cal.ID {
			page.Memberships = append(page.Memberships, m)
			page.Cursors = append(page.Cursors, m.UserID)
		}
	}
	slices.SortFunc(page.Memberships, func(a, b *calendar.Membership) int { return strings.Compare(a.UserID, b.UserID) })
	return page, nil
}

// readLog returns the keys of every Read so far, in order.
func (f *fakeReader) readLog() []calendar.Keys {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.reads)
}

// sortedKeys returns k with each list sorted, so that reads compare whatever
// order their loads were made in.
func sortedKeys(k calendar.Keys) calendar.Keys {
	k.Users = slices.Sorted(slices.Values(k.Users))
	k.Calendars = slices.Sorted(slices.Values(k.Calendars))
	k.Memberships = slices.SortedFunc(slices.Values(k.Memberships), func(a, b calendar.MembershipKey) int {
		return strings.Compare(a.CalendarID+"/"+a.UserID, b.CalendarID+"/"+b.UserID)
	})
	k.Entries = slices.SortedFunc(slices.Values(k.Entries), func(a, b calendar.EntryKey) int {
		return strings.Compare(a.CalendarID+"/"+a.EntryID, b.CalendarID+"/"+b.EntryID)
	})
	return k
}

// testWindow is the loaders' batch window in these tests: far longer than
// the loops that queue a batch's loads take even on a starved machine, so
// that a batch is never cut in two by the clock.
const testWindow = 100 * time.Millisecond

// newTestLoaders returns one request's loaders over r, in the scope of a
// query without a budget, and a context of that request whose viewer is
// viewer.
func newTestLoaders(r calendar.Reader, viewer string) (*Loaders, context.Context) {
	l := NewWithWait(r, recurrence.Engine{}, calendar.ReadScope{Cached: true}, testWindow)
	return l, WithLoaders(calendar.WithViewer(context.Background(), calendar.Viewer{ID: viewer}), l)
}

// IDs of the objects the tests read: the loaders refuse IDs that are not
// UUIDs before reading them.
const (
	ada    = "aaaaaaaa-0000-4000-8000-000000000001"
	bob    = "bbbbbbbb-0000-4000-8000-000000000002"
	cy     = "cccccccc-0000-4000-8000-000000000003"
	work   = "11111111-0000-4000-8000-00000000000a"
	home   = "22222222-0000-4000-8000-00000000000b"
	gone   = "33333333-0000-4000-8000-00000000000c"
	broken = "44444444-0000-4000-8000-00000000000d"
)

// wantCode fails the test unless err carries code.
func wantCode(t *testing.T, what string, err error, code calendar.Code) {
	t.Helper()
	if err == nil {
		t.Fatalf("%s: got no error, want %v", what, code)
	}
	if got := calendar.ErrorCode(err); got != code {
		t.Fatalf("%s: got %v (%v), want %v", what, got, err, code)
	}
}
