package dynamo_test

import (
	"context"
	"sync"
	"testing"

	"github.com/calgraph/calgraph/internal/calendar"
	"github.com/calgraph/calgraph/internal/dynamo"
)

// interleave runs meanwhile once, the first time a transaction is about to be
// sent by anyone other than meanwhile itself.
func interleave(t *testing.T, s *dynamo.Store, meanwhile func()) {
	t.Helper()
	var once sync.Once
	inside := false
	dynamo.SetBeforeTransact(s, func(context.Context) {
		if inside {
			return
		}
		once.Do(func() {
			inside = true
			defer func() { inside = false }()
			meanwhile()
		})
	})
	t.Cleanup(func() { dynamo.SetBeforeTransact(s, nil) })
}

// TestChecksInsideTheWrite changes the world between each write's read and its
// transaction and checks that the transaction's own conditions catch it.
func TestChecksInsideTheWrite(t *testing.T) {
	t.Run("role revoked before an edit", func(t *testing.T) {
		f := newFixture(t)
		r := f.roles()
		if _, _, err := f.store.ChangeRole(r.owner, r.writerM.Key(), calendar.RoleOwner, r.writerM.Version); err != nil {
			t.Fatal(err)
		}
		interleave(t, f.store, func() {
			if _, _, err := f.store.ChangeRole(r.writer, r.ownerM.Key(), calendar.RoleReader, r.ownerM.Version); err != nil {
				t.Errorf("demote meanwhile: %v", err)
			}
		})
		_, err := f.store.UpdateCalendar(r.owner, calendar.CalendarUpdate{ID: r.cal.ID, ExpectedVersion: 1, Name: calendar.Set("Mine")})
		wantCode(t, err, calendar.CodeForbidden)
	})
	t.Run("two owners step down at once", func(t *testing.T) {
		f := newFixture(t)
		r := f.roles()
		second, _, err := f.store.ChangeRole(r.owner, r.writerM.Key(), calendar.RoleOwner, r.writerM.Version)
		if err != nil {
			t.Fatal(err)
		}
		// Both read "two owners"; the other one's step-down lands first, so only
		// the owner tally can stop this one.
		interleave(t, f.store, func() {
			if _, _, err := f.store.ChangeRole(r.writer, second.Key(), calendar.RoleReader, second.Version); err != nil {
				t.Errorf("step down meanwhile: %v", err)
			}
		})
		_, _, err = f.store.ChangeRole(r.owner, r.ownerM.Key(), calendar.RoleReader, r.ownerM.Version)
		wantCode(t, err, calendar.CodeLastOwner)
	})
	t.Run("two owners leave at once", func(t *testing.T) {
		f := newFixture(t)
		r := f.roles()
		second, _, err := f.store.ChangeRole(r.owner, r.writerM.Key(), calendar.RoleOwner, r.writerM.Version)
		if err != nil {
			t.Fatal(err)
		}
		interleave(t, f.store, func() {
			if _, err := f.store.LeaveCalendar(r.writer, r.cal.ID, second.Version); err != nil {
				t.Errorf("leave meanwhile: %v", err)
			}
		})
		_, err = f.store.LeaveCalendar(r.owner, r.cal.ID, r.ownerM.Version)
		wantCode(t, err, calendar.CodeLastOwner)
	})
	t.Run("calendar deleted before a member is added", func(t *testing.T) {
		f := newFixture(t)
		f.messy = true // the deletion is left halfway, with no pending item
		r := f.roles()
		// A co-owner's delete has committed, but the clean-up has not yet
		// removed this owner's membership: only the calendar check can refuse.
		interleave(t, f.store, func() {
			for _, sk := range []string{"CAL#" + r.cal.ID, "OWNERS"} {
				f.deleteRaw("CAL#"+r.cal.ID, sk)
			}
		})
		_, _, err := f.store.AddMember(r.owner, r.cal.ID, "outsider@example.com", calendar.RoleReader)
		wantCode(t, err, calendar.CodeNotFound)
		if n := f.countEntities()["MEMBERSHIP"]; n != 3 {
			t.Fatalf("got %d memberships, want the 3 from before (no new one for a deleted calendar)", n)
		}
	})
	t.Run("version bumped before a delete", func(t *testing.T) {
		f := newFixture(t)
		r := f.roles()
		interleave(t, f.store, func() {
			if _, err := f.store.UpdateCalendar(r.owner, calendar.CalendarUpdate{ID: r.cal.ID, ExpectedVersion: 1, Color: calendar.Set("#000000")}); err != nil {
				t.Errorf("edit meanwhile: %v", err)
			}
		})
		wantCode(t, f.store.DeleteCalendar(r.owner, r.cal.ID, 1), calendar.CodeVersionConflict)
	})
}

func TestConcurrentLeavesKeepAnOwner(t *testing.T) {
	for round := range 5 {
		f := newFixture(t)
		r := f.roles()
		second, _, err := f.store.ChangeRole(r.owner, r.writerM.Key(), calendar.RoleOwner, r.writerM.Version)
		if err != nil {
			t.Fatal(err)
		}
		errs := make([]error, 2)
		var wg sync.WaitGroup
		wg.Go(func() { _, errs[0] = f.store.LeaveCalendar(r.owner, r.cal.ID, r.ownerM.Version) })
		wg.Go(func() { _, errs[1] = f.store.LeaveCalendar(r.writer, r.cal.ID, second.Version) })
		wg.Wait()
		if (errs[0] == nil) == (errs[1] == nil) {
			t.Fatalf("round %d: got errors %v, want exactly one owner to leave", round, errs)
		}
		for _, err := range errs {
			if err != nil && calendar.ErrorCode(err) != calendar.CodeLastOwner {
				t.Fatalf("round %d: got %v, want LAST_OWNER", round, err)
			}
		}
	}
}

// TestMembershipMadeAgainMeanwhile: a membership removed and made again
// between a change's read and its transaction starts over at version 1, like
// the one read; the change must still fail (VERSION_CONFLICT), or the owner
// count worked out from the role read goes wrong and a calendar can lose its
// last owner.
func TestMembershipMadeAgainMeanwhile(t *testing.T) {
	tests := []struct {
		name      string
		meanwhile func(f *fixture, r roles) // remove and make again
		change    func(f *fixture, r roles) error
	}{
		{"change role", func(f *fixture, r roles) {
			f.mustDo(f.store.RemoveMember(r.owner, r.writerM.Key(), r.writerM.Version))
			_, _, err := f.store.AddMember(r.owner, r.cal.ID, "writer@example.com", calendar.RoleOwner)
			f.mustDo(err)
		}, func(f *fixture, r roles) error {
			_, _, err := f.store.ChangeRole(r.owner, r.writerM.Key(), calendar.RoleReader, r.writerM.Version)
			return err
		}},
		{"remove", func(f *fixture, r roles) {
			_, err := f.store.LeaveCalendar(r.reader, r.cal.ID, r.readerM.Version)
			f.mustDo(err)
			_, token, _, err := f.store.CreateInvitation(r.owner, calendar.NewInvitation{CalendarID: r.cal.ID, Role: calendar.RoleOwner})
			f.mustDo(err)
			_, err = f.store.AcceptInvitation(r.reader, token)
			f.mustDo(err)
		}, func(f *fixture, r roles) error {
			return f.store.RemoveMember(r.owner, r.readerM.Key(), r.readerM.Version)
		}},
		{"leave", func(f *fixture, r roles) {
			f.mustDo(f.store.RemoveMember(r.owner, r.readerM.Key(), r.readerM.Version))
			_, _, err := f.store.AddMember(r.owner, r.cal.ID, "reader@example.com", calendar.RoleOwner)
			f.mustDo(err)
		}, func(f *fixture, r roles) error {
			_, err := f.store.LeaveCalendar(r.reader, r.cal.ID, r.readerM.Version)
			return err
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			r := f.roles()
			interleave(t, f.store, func() { tt.meanwhile(f, r) })
			wantCode(t, tt.change(f, r), calendar.CodeVersionConflict)
			// The calendar has two owners, and its tally says so: the first
			// may step down (the fixture checks the table when the test ends).
			if _, _, err := f.store.ChangeRole(r.owner, r.ownerM.Key(), calendar.RoleReader, r.ownerM.Version); err != nil {
				t.Fatal(err)
			}
		})
	}
}
