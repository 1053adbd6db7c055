package loader

import (
	"context"
	"slices"
	"testing"

	"github.com/calgraph/calgraph/internal/calendar"
)

// authStore is a store of two calendars: work, where ada is an owner, bob a
// FREE_BUSY member and cy a reader, and home, ada's alone; and gone, whose
// membership of ada outlived it (its clean-up under way).
func authStore() *fakeReader {
	f := newFakeReader()
	for _, id := range []string{ada, bob, cy} {
		f.addUser(id)
	}
	f.addCalendar(work)
	f.addCalendar(home)
	f.addMember(work, ada, calendar.RoleOwner)
	f.addMember(work, bob, calendar.RoleFreeBusy)
	f.addMember(work, cy, calendar.RoleReader)
	f.addMember(home, ada, calendar.RoleOwner)
	f.addMember(gone, ada, calendar.RoleOwner)
	return f
}

// TestAuthorization: each authorized read gives the viewer the object, or
// the error a viewer who may not see it gets: NOT_FOUND where existence is
// not revealed, FORBIDDEN where the viewer's role is known to them.
func TestAuthorization(t *testing.T) {
	const ok = calendar.Code(-1) // no error
	tests := []struct {
		name   string
		viewer string
		read   func(ctx context.Context, l *Loaders) error
		want   calendar.Code
	}{
		{"a member in any role sees the calendar", bob, calendarRead(work), ok},
		{"a non-member does not learn that a calendar exists", bob, calendarRead(home), calendar.CodeNotFound},
		{"a calendar deleted since its membership was read", ada, calendarRead(gone), calendar.CodeNotFound},
		{"an ID that is not one", ada, calendarRead("work"), calendar.CodeNotFound},
		{"the viewer's role", bob, func(ctx context.Context, l *Loaders) error {
			_, err := l.ViewerRole(ctx, work)
			return err
		}, ok},
		{"no role where the viewer is no member", bob, func(ctx context.Context, l *Loaders) error {
			_, err := l.ViewerRole(ctx, home)
			return err
		}, calendar.CodeNotFound},
		{"a member sees their own membership", bob, membershipRead(work, bob), ok},
		{"a reader sees the other members'", cy, membershipRead(work, ada), ok},
		{"a FREE_BUSY member does not", bob, membershipRead(work, ada), calendar.CodeForbidden},
		{"a non-member does not see a membership", bob, membershipRead(home, ada), calendar.CodeNotFound},
		{"a FREE_BUSY member does not list the members", bob, func(ctx context.Context, l *Loaders) error {
			_, err := l.Members(ctx, &calendar.Calendar{ID: work}, calendar.Page{First: 10})
			return err
		}, calendar.CodeForbidden},
		{"a reader lists them", cy, func(ctx context.Context, l *Loaders) error {
			_, err := l.Members(ctx, &calendar.Calendar{ID: work}, calendar.Page{First: 10})
			return err
		}, ok},
		{"a reader does not see the invitations", cy, func(ctx context.Context, l *Loaders) error {
			_, err := l.Invitations(ctx, work, calendar.Page{First: 10})
			return err
		}, calendar.CodeForbidden},
		{"the viewer sees themself", bob, userRead(bob), ok},
		{"but no other user by ID", bob, userRead(ada), calendar.CodeNotFound},
		{"a viewer whose account is gone", "dddddddd-0000-4000-8000-000000000004", userRead("dddddddd-0000-4000-8000-000000000004"), calendar.CodeUnauthenticated},
		{"no viewer", "", calendarRead(work), calendar.CodeUnauthenticated},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, ctx := newTestLoaders(authStore(), tt.viewer)
			err := tt.read(ctx, l)
			if tt.want == ok {
				if err != nil {
					t.Fatalf("got %v, want no error", err)
				}
				return
			}
			wantCode(t, tt.name, err, tt.want)
		})
	}
}

func calendarRead(id string) func(context.Context, *Loaders) error {
	return func(ctx context.Context, l *Loaders) error {
		c, err := l.Calendar(ctx, id)
		if err == nil && c.ID != id {
			panic("got calendar " + c.ID + ", want " + id)
		}
		return err
	}
}

func membershipRead(cal, user string) func(context.Context, *Loaders) error {
	return func(ctx context.Context, l *Loaders) error {
		_, err := l.Membership(ctx, member(cal, user))
		return err
	}
}

func userRead(id string) func(context.Context, *Loaders) error {
	return func(ctx context.Context, l *Loaders) error {
		_, err := l.User(ctx, id)
		return err
	}
}

// TestPrimedForOneViewer: what one viewer's request primed is not what
// another's is authorized with, whether the two share a cache of reads
// (the deliveries of one change, Shared) or, as a membership is keyed by its
// user, even the same loaders.
func TestPrimedForOneViewer(t *testing.T) {
	f := authStore()
	s := NewShared()
	adas, adaCtx := newTestLoaders(f, ada)
	adas.ReadThrough(s)
	if _, err := adas.Calendar(adaCtx, home); err != nil {
		t.Fatalf("ada's calendar: %v", err)
	}
	// ada's request primes what it wrote: bob made an owner of work, and of
	// home (as a mutation's payload would, before bob's request reads).
	adas.PrimeMembership(adaCtx, &calendar.Membership{CalendarID: work, UserID: bob, Role: calendar.RoleOwner})
	adas.PrimeMembership(adaCtx, &calendar.Membership{CalendarID: home, UserID: bob, Role: calendar.RoleOwner})

	bobs, bobCtx := newTestLoaders(f, bob)
	bobs.ReadThrough(s)
	wantCode(t, "bob's read of home, through the shared cache", calendarRead(home)(bobCtx, bobs), calendar.CodeNotFound)
	wantCode(t, "bob's read of ada's membership of work", membershipRead(work, ada)(bobCtx, bobs), calendar.CodeForbidden)
	if role, err := bobs.ViewerRole(bobCtx, work); role != calendar.RoleFreeBusy || err != nil {
		t.Errorf("bob's role on work: got %q, %v; want %s as stored", role, err, calendar.RoleFreeBusy)
	}

	// The same loaders, asked for another viewer: ada's primed membership of
	// home does not answer for cy, whose own is read, and missing.
	adas.PrimeCalendar(adaCtx, &calendar.Calendar{ID: home})
	before := len(f.readLog())
	cyCtx := calendar.WithViewer(adaCtx, calendar.Viewer{ID: cy})
	wantCode(t, "cy's read of home through ada's loaders", calendarRead(home)(cyCtx, adas), calendar.CodeNotFound)
	reads := f.readLog()[before:]
	if len(reads) != 1 || !slices.Equal(reads[0].Memberships, []calendar.MembershipKey{member(home, cy)}) {
		t.Errorf("reads for cy: got %+v, want one, of cy's membership of home", reads)
	}
}

// TestMembersInTheLoadersScope: a member page is read in the loaders' read
// scope, which lets the store answer it from its view cache or not.
func TestMembersInTheLoadersScope(t *testing.T) {
	for _, scope := range []calendar.ReadScope{{Cached: true}, {Budget: calendar.NewBudget(1, 1)}} {
		f := authStore()
		l := NewWithWait(f, nil, scope, testWindow)
		ctx := WithLoaders(calendar.WithViewer(context.Background(), calendar.Viewer{ID: cy}), l)
		if _, err := l.Members(ctx, &calendar.Calendar{ID: work}, calendar.Page{First: 10}); err != nil {
			t.Fatal(err)
		}
		if len(f.scopes) != 1 || f.scopes[0] != scope {
			t.Errorf("scopes handed to MembershipsOfCalendar: got %v, want %v once", f.scopes, scope)
		}
	}
}
