package dynamo_test

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/smithy-go/middleware"

	"github.com/calgraph/calgraph/internal/calendar"
	"github.com/calgraph/calgraph/internal/dynamo"
	"github.com/calgraph/calgraph/internal/dynamotest"
)

// failingBatchWrites returns a client option that fails every BatchWriteItem
// while on is set, as a process stopping halfway through a clean-up would.
func failingBatchWrites(on *atomic.Bool) func(*dynamodb.Options) {
	fault := middleware.InitializeMiddlewareFunc("fault", func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
		if middleware.GetOperationName(ctx) == "BatchWriteItem" && on.Load() {
			return middleware.InitializeOutput{}, middleware.Metadata{}, errors.New("stopped")
		}
		return next.HandleInitialize(ctx, in)
	})
	return func(o *dynamodb.Options) {
		o.APIOptions = append(o.APIOptions, func(s *middleware.Stack) error { return s.Initialize.Add(fault, middleware.Before) })
	}
}

// fullCalendar makes a resource calendar holding one of everything.
func fullCalendar(f *fixture, owner context.Context, name string) *calendar.Calendar {
	f.t.Helper()
	cal, _, err := f.store.CreateCalendar(owner, calendar.NewCalendar{Name: name, TimeZone: paris, IsResource: true})
	if err != nil {
		f.t.Fatal(err)
	}
	if _, err := f.book(owner, cal.ID, "Meeting", timed("2026-03-02T09:00:00Z", "2026-03-02T10:00:00Z", paris)); err != nil {
		f.t.Fatal(err)
	}
	if _, err := f.book(owner, cal.ID, "Trip", multiDay("2026-03-10", "2026-03-25")); err != nil {
		f.t.Fatal(err)
	}
	s := f.series(owner, cal.ID, "Weekly", timed("2026-04-06T09:00:00Z", "2026-04-06T10:00:00Z", paris), "FREQ=WEEKLY;COUNT=3")
	f.edit(owner, s.OccurrenceAt(s.Start), calendar.ScopeThis, title("Kick-off"))
	if _, _, _, err := f.store.CreateInvitation(owner, calendar.NewInvitation{CalendarID: cal.ID, Role: calendar.RoleReader}); err != nil {
		f.t.Fatal(err)
	}
	if _, err := f.store.RotateFeed(owner, cal.ID); err != nil {
		f.t.Fatal(err)
	}
	return cal
}

// partitionItems counts the items left of a calendar and the pending deletions.
func (f *fixture) partitionItems(calendarID string) (left, pending int) {
	for _, it := range f.items() {
		if it["PK"] == "CAL#"+calendarID || it["calendarId"] == calendarID && it["entityType"] == "FEED_TOKEN" {
			left++
		}
		if it["entityType"] == "PENDING_DELETION" {
			pending++
		}
	}
	return left, pending
}

// TestCalendarDeletionResumes stops a calendar's clean-up halfway: the
// calendar is gone at once, and ResumeDeletions removes the rest.
func TestCalendarDeletionResumes(t *testing.T) {
	f := newFixture(t)
	ada := f.user("ada@example.com")
	cal := fullCalendar(f, ada, "Room")
	var stopped atomic.Bool
	stopped.Store(true)
	broken := dynamo.New(dynamotest.Client(t, failingBatchWrites(&stopped)), f.store.Table(), engine)
	if err := broken.DeleteCalendar(ada, cal.ID, cal.Version); err != nil {
		t.Fatalf("the delete itself: %v", err)
	}
	if left, pending := f.partitionItems(cal.ID); left == 0 || pending != 1 {
		t.Fatalf("%d items left and %d pending deletions, want some left and one pending", left, pending)
	}
	f.consistent() // a deletion under way is consistent
	n, err := f.store.ResumeDeletions(context.Background())
	if err != nil || n != 1 {
		t.Fatalf("resumed %d: %v", n, err)
	}
	if left, pending := f.partitionItems(cal.ID); left != 0 || pending != 0 {
		t.Fatalf("%d items left and %d pending deletions after resuming, want none", left, pending)
	}
}

func TestDeleteAccount(t *testing.T) {
	f := newFixture(t)
	ada, bob, cy := f.user("ada@example.com"), f.user("bob@example.com"), f.user("cy@example.com")
	alone := fullCalendar(f, ada, "Ada's")
	shared := f.calendarOf(ada, "Shared")
	m := f.share(ada, shared, bob, "bob@example.com", calendar.RoleOwner)
	theirs := f.calendarOf(cy, "Cy's")
	f.share(cy, theirs, ada, "ada@example.com", calendar.RoleWriter)

	_, _, err := f.store.DeleteAccount(ada, "someone@example.com")
	wantCode(t, err, calendar.CodeInvalid)
	u, deleted, err := f.store.DeleteAccount(ada, "ADA@example.com")
	if err != nil || u.Email != "ada@example.com" || len(deleted) != 1 || deleted[0] != alone.ID {
		t.Fatalf("deleted %v (%v), want only %s", deleted, err, alone.ID)
	}
	// The user's pending item stays for the grace period, for a last look
	// at memberships GSI1 might not have shown yet.
	if left, pending := f.partitionItems(alone.ID); left != 0 || pending != 1 {
		t.Fatalf("%d items of the calendar Ada alone owned left, %d pending, want none and the user's", left, pending)
	}
	if n, err := f.store.ResumeDeletions(context.Background()); err != nil || n != 0 {
		t.Fatalf("resuming within the grace period finished %d (%v), want none", n, err)
	}
	later := dynamo.New(f.db, f.store.Table(), engine, dynamo.WithClock(func() time.Time { return time.Now().Add(2 * time.Minute) }))
	if n, err := later.ResumeDeletions(context.Background()); err != nil || n != 1 {
		t.Fatalf("resuming after the grace period finished %d (%v), want the user's deletion", n, err)
	}
	if _, pending := f.partitionItems(alone.ID); pending != 0 {
		t.Fatalf("%d pending deletions after the grace period", pending)
	}
	counts := f.countEntities()
	if counts["USER"] != 2 || counts["EMAIL"] != 2 || counts["IDENTITY"] != 2 {
		t.Fatalf("items left: %v", counts)
	}
	// Deleting the calendar she alone owned took her entries' counts from
	// her stats items after they were gone: the deletion's end removes
	// them again, with the stats trees' nodes.
	if counts["USER_STATS"] != 0 || counts["STATS_TOTALS"] != 0 || counts["STATS_NODE"] != 0 {
		t.Fatalf("a deleted user's stats items are left: %v", counts)
	}
	// Bob owns Shared alone now; Cy's calendar lost its writer.
	if _, err := f.store.UpdateCalendar(bob, calendar.CalendarUpdate{ID: shared.ID, ExpectedVersion: shared.Version, Name: calendar.Set("Bob's")}); err != nil {
		t.Fatalf("Bob on the shared calendar: %v", err)
	}
	_, _, err = f.store.ChangeRole(bob, m.Key(), calendar.RoleReader, m.Version)
	wantCode(t, err, calendar.CodeLastOwner)
	page, err := f.store.MembershipsOfCalendar(cy, calendar.ReadScope{}, &calendar.Calendar{ID: theirs.ID}, calendar.Page{First: 10})
	if err != nil || len(page.Memberships) != 1 {
		t.Fatalf("Cy's calendar has %d members, want Cy alone", len(page.Memberships))
	}
	// The email is free again: a new sign-in with it makes a new user.
	again := f.user("ada@example.com")
	if id, _ := calendar.ViewerID(again); id == u.ID || strings.TrimSpace(id) == "" {
		t.Fatalf("a new sign-in got user %q, the deleted one was %q", id, u.ID)
	}
}

// TestAccountDeletionRunsAtOnce: a second run of the same account deletion
// (another process resuming it) going on at the same time neither counts an
// owner out twice nor deletes a calendar that has another owner.
func TestAccountDeletionRunsAtOnce(t *testing.T) {
	cases := []struct {
		name        string
		otherOwner  bool
		wantDeleted bool
	}{
		{"shared with another owner", true, false},
		{"owned alone", false, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t)
			ghost, bob := f.user("ghost@example.com"), f.user("bob@example.com")
			cal := f.calendarOf(ghost, "Shared")
			if c.otherOwner {
				f.share(ghost, cal, bob, "bob@example.com", calendar.RoleOwner)
			}
			var calls atomic.Int32
			// A process resuming it, the request having taken longer than
			// the grace period.
			other := dynamo.New(f.db, f.store.Table(), engine, dynamo.WithClock(func() time.Time { return time.Now().Add(2 * time.Minute) }))
			dynamo.SetBeforeTransact(f.store, func(ctx context.Context) {
				if calls.Add(1) == 2 { // after the user's delete: another run does it all first
					if _, err := other.ResumeDeletions(context.Background()); err != nil {
						t.Errorf("the other run: %v", err)
					}
				}
			})
			if _, _, err := f.store.DeleteAccount(ghost, "ghost@example.com"); err != nil {
				t.Fatal(err)
			}
			dynamo.SetBeforeTransact(f.store, nil)
			gone := true
			for _, it := range f.items() {
				if it["PK"] == "CAL#"+cal.ID && it["SK"] == "CAL#"+cal.ID {
					gone = false
				}
			}
			if gone != c.wantDeleted {
				t.Fatalf("calendar gone: %v, want %v", gone, c.wantDeleted)
			}
			f.consistent() // the owner tally matches the owners
		})
	}
}

// TestOwnerJoinsBeforeLastOwnerLeaves: an owner who joins between the deleted
// user's "last owner" answer and the calendar's deletion keeps the calendar.
func TestOwnerJoinsBeforeLastOwnerLeaves(t *testing.T) {
	f := newFixture(t)
	ghost, cy := f.user("ghost@example.com"), f.user("cy@example.com")
	cal := f.calendarOf(ghost, "Ghost's")
	_, token, _, err := f.store.CreateInvitation(ghost, calendar.NewInvitation{CalendarID: cal.ID, Role: calendar.RoleOwner})
	if err != nil {
		t.Fatal(err)
	}
	var calls atomic.Int32
	dynamo.SetBeforeTransact(f.store, func(ctx context.Context) {
		// 1: the user's delete, 2: the membership's (refused: last owner),
		// 3: the calendar's, before which Cy joins as an owner.
		if calls.Add(1) == 3 {
			if _, err := f.store.AcceptInvitation(cy, token); err != nil {
				t.Errorf("Cy joins: %v", err)
			}
		}
	})
	_, deleted, err := f.store.DeleteAccount(ghost, "ghost@example.com")
	dynamo.SetBeforeTransact(f.store, nil)
	if err != nil || len(deleted) != 0 {
		t.Fatalf("deleted %v (%v), want no calendar", deleted, err)
	}
	page, err := f.store.MembershipsOfCalendar(cy, calendar.ReadScope{}, &calendar.Calendar{ID: cal.ID}, calendar.Page{First: 10})
	if err != nil || len(page.Memberships) != 1 || page.Memberships[0].Role != calendar.RoleOwner {
		t.Fatalf("members after the deletion: %+v (%v), want Cy as owner", page, err)
	}
	f.consistent()
}

// TestInvitationToDeletedCalendar: a token of a calendar deleted a moment
// ago, its clean-up not done, answers like any token that does not work.
func TestInvitationToDeletedCalendar(t *testing.T) {
	f := newFixture(t)
	f.messy = true // the clean-up is left undone
	ada, bob := f.user("ada@example.com"), f.user("bob@example.com")
	cal := f.calendarOf(ada, "Ada's")
	_, token, _, err := f.store.CreateInvitation(ada, calendar.NewInvitation{CalendarID: cal.ID, Role: calendar.RoleReader})
	if err != nil {
		t.Fatal(err)
	}
	var stopped atomic.Bool
	stopped.Store(true)
	broken := dynamo.New(dynamotest.Client(t, failingBatchWrites(&stopped)), f.store.Table(), engine)
	if err := broken.DeleteCalendar(ada, cal.ID, cal.Version); err != nil {
		t.Fatal(err)
	}
	_, err = f.store.AcceptInvitation(bob, token)
	_, unknown := f.store.AcceptInvitation(bob, calendar.NewFeedToken())
	if err == nil || unknown == nil || err.Error() != unknown.Error() || calendar.ErrorCode(err) != calendar.CodeNotFound {
		t.Fatalf("accepting a deleted calendar's invitation: %v; an unknown token: %v", err, unknown)
	}
}

// TestSweepLeavesAFreshAccountDeletion: the background sweep running while
// a deleteAccount request drops the memberships leaves that work to the
// request, which so names every calendar deleted with the account.
func TestSweepLeavesAFreshAccountDeletion(t *testing.T) {
	f := newFixture(t)
	ada := f.user("ada@example.com")
	cal := f.calendarOf(ada, "Ada's")
	var calls atomic.Int32
	dynamo.SetBeforeTransact(f.store, func(context.Context) {
		if calls.Add(1) == 2 { // the request's first membership transaction
			if n, err := f.store.ResumeDeletions(context.Background()); err != nil || n != 0 {
				t.Errorf("the sweep finished %d deletions (%v), want none", n, err)
			}
		}
	})
	_, deleted, err := f.store.DeleteAccount(ada, "ada@example.com")
	dynamo.SetBeforeTransact(f.store, nil)
	if err != nil || len(deleted) != 1 || deleted[0] != cal.ID {
		t.Fatalf("deleted %v (%v), want [%s]", deleted, err, cal.ID)
	}
}

// TestFeedRotatedDuringDelete: the feed rotated between a deletion's reads
// and its transaction (by a co-owner, or by the deleted user from another
// process that still knows them) makes the deletion try again, so that no
// feed token outlives its calendar.
func TestFeedRotatedDuringDelete(t *testing.T) {
	for _, how := range []string{"calendar", "account"} {
		t.Run(how, func(t *testing.T) {
			f := newFixture(t)
			ada, bob := f.user("ada@example.com"), f.user("bob@example.com")
			cal := f.calendarOf(ada, "Ada's")
			rotator, at := ada, int32(3) // the account's: user, membership, calendar
			if how == "calendar" {
				f.share(ada, cal, bob, "bob@example.com", calendar.RoleOwner)
				rotator, at = bob, 1
			}
			if _, err := f.store.RotateFeed(ada, cal.ID); err != nil {
				t.Fatal(err)
			}
			var calls atomic.Int32
			dynamo.SetBeforeTransact(f.store, func(context.Context) {
				if calls.Add(1) == at {
					if _, err := f.store.RotateFeed(rotator, cal.ID); err != nil {
						t.Errorf("rotate: %v", err)
					}
				}
			})
			if how == "calendar" {
				err := f.store.DeleteCalendar(ada, cal.ID, cal.Version)
				wantCode(t, err, calendar.CodeVersionConflict)
				if err := f.store.DeleteCalendar(ada, cal.ID, cal.Version); err != nil {
					t.Fatal(err)
				}
			} else if _, deleted, err := f.store.DeleteAccount(ada, "ada@example.com"); err != nil || len(deleted) != 1 {
				t.Fatalf("deleted %v (%v), want the calendar", deleted, err)
			}
			dynamo.SetBeforeTransact(f.store, nil)
			if calls.Load() < at+1 {
				t.Fatalf("%d transactions, the rotation never raced", calls.Load())
			}
			for _, it := range f.items() {
				if it["entityType"] == "FEED_TOKEN" {
					t.Errorf("a feed token outlived its calendar: %v", it["PK"])
				}
			}
		})
	}
}

// TestOwnerWhoTookOverKeepsTheCalendar: between a deleted user's "last owner"
// answer and the deletion of their calendar, another user accepts their owner
// invitation and removes them: the owner count is back at one, but the
// calendar is the newcomer's now and stays, whole.
func TestOwnerWhoTookOverKeepsTheCalendar(t *testing.T) {
	f := newFixture(t)
	ada, bob := f.user("ada@example.com"), f.user("bob@example.com")
	cal := f.calendarOf(ada, "Ada's")
	if _, err := f.book(ada, cal.ID, "Kept", allDay("2026-03-02")); err != nil {
		t.Fatal(err)
	}
	_, token, _, err := f.store.CreateInvitation(ada, calendar.NewInvitation{CalendarID: cal.ID, Role: calendar.RoleOwner})
	f.mustDo(err)
	var calls atomic.Int32
	dynamo.SetBeforeTransact(f.store, func(context.Context) {
		if calls.Add(1) != 3 { // 1: the user, 2: the membership (LAST_OWNER), 3: the calendar
			return
		}
		if _, err := f.store.AcceptInvitation(bob, token); err != nil {
			t.Errorf("accepting meanwhile: %v", err)
		}
		if err := f.store.RemoveMember(bob, calendar.MembershipKey{CalendarID: cal.ID, UserID: viewer(t, ada)}, 1); err != nil {
			t.Errorf("removing Ada meanwhile: %v", err)
		}
	})
	_, deleted, err := f.store.DeleteAccount(ada, "ada@example.com")
	dynamo.SetBeforeTransact(f.store, nil)
	if err != nil || len(deleted) != 0 {
		t.Fatalf("deleted %v (%v), want none: the calendar is Bob's", deleted, err)
	}
	if _, err := f.store.UpdateCalendar(bob, calendar.CalendarUpdate{ID: cal.ID, ExpectedVersion: cal.Version, Name: calendar.Set("Bob's")}); err != nil {
		t.Fatalf("Bob on his calendar: %v", err)
	}
	if n := f.countEntries("Kept"); n != 1 {
		t.Fatalf("%d entries left, want the one", n)
	}
}
