package loader

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/calgraph/calgraph/internal/calendar"
)

// found turns a typed load into a wait that fails unless the object came
// back, with the ID it was asked by.
func found[V any](th func() (*V, error), id func(*V) string, want string) func() error {
	return func() error {
		v, err := th()
		switch {
		case err != nil:
			return err
		case v == nil:
			return fmt.Errorf("%s: got nothing", want)
		case id(v) != want:
			return fmt.Errorf("got %s, want %s", id(v), want)
		}
		return nil
	}
}

func userID(u *calendar.User) string         { return u.ID }
func calendarID(c *calendar.Calendar) string { return c.ID }
func memberID(m *calendar.Membership) string { return m.CalendarID + "/" + m.UserID }
func entryID(e *calendar.Entry) string       { return e.CalendarID + "/" + e.ID }
func member(cal, user string) calendar.MembershipKey {
	return calendar.MembershipKey{CalendarID: cal, UserID: user}
}

// TestBatching: what the loads of one tick ask for is one Read, of each key
// once, leaving out what the request primed or loaded before.
func TestBatching(t *testing.T) {
	planning := calendar.EntryKey{CalendarID: work, EntryID: "e1"}
	tests := []struct {
		name   string
		before func(ctx context.Context, l *Loaders) // primes, or loads waited for
		load   func(ctx context.Context, l *Loaders) []func() error
		want   []calendar.Keys // the reads of load, after before's
	}{{
		name: "N users in one tick are one read of N keys",
		load: func(ctx context.Context, l *Loaders) []func() error {
			return []func() error{
				found(l.loadUser(ctx, ada), userID, ada),
				found(l.loadUser(ctx, bob), userID, bob),
				found(l.loadUser(ctx, cy), userID, cy),
			}
		},
		want: []calendar.Keys{{Users: []string{ada, bob, cy}}},
	}, {
		name: "every kind in one tick is one read",
		load: func(ctx context.Context, l *Loaders) []func() error {
			return []func() error{
				found(l.loadUser(ctx, ada), userID, ada),
				found(l.loadCalendar(ctx, work), calendarID, work),
				found(l.loadMembership(ctx, member(work, ada)), memberID, work+"/"+ada),
				found(l.loadEntry(ctx, planning), entryID, work+"/e1"),
			}
		},
		want: []calendar.Keys{{Users: []string{ada}, Calendars: []string{work},
			Memberships: []calendar.MembershipKey{member(work, ada)}, Entries: []calendar.EntryKey{planning}}},
	}, {
		name: "duplicates are read once",
		load: func(ctx context.Context, l *Loaders) []func() error {
			return []func() error{
				found(l.loadUser(ctx, ada), userID, ada),
				found(l.loadUser(ctx, ada), userID, ada),
				found(l.loadMembership(ctx, member(work, ada)), memberID, work+"/"+ada),
				found(l.loadMembership(ctx, member(work, ada)), memberID, work+"/"+ada),
				found(l.loadUser(ctx, bob), userID, bob),
			}
		},
		want: []calendar.Keys{{Users: []string{ada, bob}, Memberships: []calendar.MembershipKey{member(work, ada)}}},
	}, {
		name: "a primed value is not read",
		before: func(ctx context.Context, l *Loaders) {
			l.PrimeUser(ctx, &calendar.User{ID: ada})
			l.PrimeCalendar(ctx, &calendar.Calendar{ID: work})
		},
		load: func(ctx context.Context, l *Loaders) []func() error {
			return []func() error{
				found(l.loadUser(ctx, ada), userID, ada),
				found(l.loadUser(ctx, bob), userID, bob),
				found(l.loadCalendar(ctx, work), calendarID, work),
			}
		},
		want: []calendar.Keys{{Users: []string{bob}}},
	}, {
		name: "nothing is read when everything is primed",
		before: func(ctx context.Context, l *Loaders) {
			l.PrimeMembership(ctx, &calendar.Membership{CalendarID: work, UserID: ada, Role: calendar.RoleOwner})
			l.PrimeEntry(ctx, &calendar.Entry{CalendarID: work, ID: "e1"})
		},
		load: func(ctx context.Context, l *Loaders) []func() error {
			return []func() error{
				found(l.loadMembership(ctx, member(work, ada)), memberID, work+"/"+ada),
				found(l.loadEntry(ctx, planning), entryID, work+"/e1"),
			}
		},
	}, {
		name: "a value loaded before is not read again",
		before: func(ctx context.Context, l *Loaders) {
			if _, err := l.loadUser(ctx, ada)(); err != nil {
				panic(err)
			}
		},
		load: func(ctx context.Context, l *Loaders) []func() error {
			return []func() error{
				found(l.loadUser(ctx, ada), userID, ada),
				found(l.loadUser(ctx, bob), userID, bob),
			}
		},
		want: []calendar.Keys{{Users: []string{bob}}},
	}, {
		name: "a forgotten value is read again",
		before: func(ctx context.Context, l *Loaders) {
			l.PrimeMembership(ctx, &calendar.Membership{CalendarID: work, UserID: ada, Role: calendar.RoleOwner})
			l.ForgetMembership(ctx, member(work, ada))
			l.PrimeEntry(ctx, &calendar.Entry{CalendarID: work, ID: "e1"})
			l.ForgetEntry(ctx, planning)
		},
		load: func(ctx context.Context, l *Loaders) []func() error {
			return []func() error{
				found(l.loadMembership(ctx, member(work, ada)), memberID, work+"/"+ada),
				found(l.loadEntry(ctx, planning), entryID, work+"/e1"),
			}
		},
		want: []calendar.Keys{{Memberships: []calendar.MembershipKey{member(work, ada)}, Entries: []calendar.EntryKey{planning}}},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeReader()
			f.addUser(ada)
			f.addUser(bob)
			f.addUser(cy)
			f.addCalendar(work)
			f.addMember(work, ada, calendar.RoleOwner)
			f.entries[planning] = &calendar.Entry{CalendarID: work, ID: "e1", Title: "planning"}
			l, ctx := newTestLoaders(f, ada)
			if tt.before != nil {
				tt.before(ctx, l)
			}
			earlier := len(f.readLog())
			var errs []error
			for _, wait := range tt.load(ctx, l) {
				errs = append(errs, wait())
			}
			if err := errors.Join(errs...); err != nil {
				t.Fatal(err)
			}
			got := f.readLog()[earlier:]
			if diff := cmp.Diff(tt.want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("reads (-want +got):\n%s", diff)
			}
		})
	}
}

// TestErrorsPerKey: a missing object is absent for its own load only, not
// for the others of its batch; a failed or panicking Read fails the loads
// of its batch, and no other.
func TestErrorsPerKey(t *testing.T) {
	f := newFakeReader()
	f.addUser(ada)
	f.addCalendar(work)
	f.addCalendar(broken)
	f.broken = broken
	l, ctx := newTestLoaders(f, ada)

	loaded := l.loadCalendar(ctx, work)
	if _, err := loaded(); err != nil {
		t.Fatalf("calendar read alone: %v", err)
	}
	absent, present := l.loadCalendar(ctx, home), l.loadUser(ctx, ada)
	if c, err := absent(); c != nil || err != nil {
		t.Errorf("missing calendar: got %v, %v; want nothing, no error", c, err)
	}
	if u, err := present(); u == nil || err != nil {
		t.Errorf("user read beside a missing calendar: got %v, %v", u, err)
	}

	// A failed read fails its batch: the calendar asked for beside the
	// broken one too, but not one loaded before.
	bad, beside := l.loadCalendar(ctx, broken), l.loadUser(ctx, bob)
	if _, err := bad(); !errors.Is(err, errBroken) {
		t.Errorf("broken calendar: got %v, want %v", err, errBroken)
	}
	if _, err := beside(); !errors.Is(err, errBroken) {
		t.Errorf("user read beside the broken calendar: got %v, want %v", err, errBroken)
	}
	if c, err := l.loadCalendar(ctx, work)(); c == nil || err != nil {
		t.Errorf("calendar loaded before the failure: got %v, %v", c, err)
	}
	// The failure is the request's answer for those keys: the store retried
	// already, and the request's fields see one state.
	reads := len(f.readLog())
	if _, err := l.loadCalendar(ctx, broken)(); !errors.Is(err, errBroken) {
		t.Errorf("broken calendar again: got %v, want %v", err, errBroken)
	}
	if n := len(f.readLog()) - reads; n != 0 {
		t.Errorf("loading a failed key again read %d times, want 0", n)
	}
}

// TestPanickingRead: a Read that panics fails its loads instead of the
// process, and is not remembered: the next load reads again.
func TestPanickingRead(t *testing.T) {
	f := newFakeReader()
	f.addUser(ada)
	f.panicking = ada
	l, ctx := newTestLoaders(f, ada)
	if u, err := l.loadUser(ctx, ada)(); err == nil {
		t.Fatalf("got %v, want the panic as an error", u)
	}
	f.panicking = ""
	if u, err := l.loadUser(ctx, ada)(); u == nil || err != nil {
		t.Fatalf("after the panic: got %v, %v; want ada", u, err)
	}
	if n := len(f.readLog()); n != 2 {
		t.Errorf("%d reads, want 2", n)
	}
}

// TestKindsDoNotCollide: a user and a calendar of the same ID are two
// objects, each loaded as its own type.
func TestKindsDoNotCollide(t *testing.T) {
	f := newFakeReader()
	f.addUser(ada)
	f.addCalendar(ada)
	l, ctx := newTestLoaders(f, ada)
	u, c := l.loadUser(ctx, ada), l.loadCalendar(ctx, ada)
	if err := errors.Join(found(u, userID, ada)(), found(c, calendarID, ada)()); err != nil {
		t.Fatal(err)
	}
	if reads := f.readLog(); len(reads) != 1 {
		t.Errorf("%d reads, want 1", len(reads))
	}
}
