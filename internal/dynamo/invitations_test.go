package dynamo_test

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/calgraph/calgraph/internal/calendar"
	"github.com/calgraph/calgraph/internal/dynamo"
	"github.com/calgraph/calgraph/internal/dynamotest"
)

// TestInvitationsNeedTheirCreatorsStanding: an invitation works only while
// its creator may still manage the calendar, so a removed or demoted owner
// cannot come back through one, theirs or anyone's use of it.
func TestInvitationsNeedTheirCreatorsStanding(t *testing.T) {
	tests := []struct {
		name     string
		after    func(f *fixture, ada context.Context, bob *calendar.Membership) // what happens to Bob, the creator
		accepter string                                                          // "bob" or "cy"
		wantCode calendar.Code                                                   // -1: accepted
	}{
		{"the creator still an owner", func(*fixture, context.Context, *calendar.Membership) {}, "cy", -1},
		{"the creator removed, someone else accepts", removeBob, "cy", calendar.CodeNotFound},
		{"the creator removed, accepts their own", removeBob, "bob", calendar.CodeNotFound},
		{"the creator demoted, someone else accepts", demoteBob, "cy", calendar.CodeNotFound},
		{"the creator still an owner, accepts their own", func(*fixture, context.Context, *calendar.Membership) {}, "bob", calendar.CodeAlreadyExists},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			ada, bob, cy := f.user("ada@example.com"), f.user("bob@example.com"), f.user("cy@example.com")
			cal := f.calendarOf(ada, "Ada's")
			m := f.share(ada, cal, bob, "bob@example.com", calendar.RoleOwner)
			_, token, _, err := f.store.CreateInvitation(bob, calendar.NewInvitation{CalendarID: cal.ID, Role: calendar.RoleOwner})
			if err != nil {
				t.Fatal(err)
			}
			tt.after(f, ada, m)
			who := map[string]context.Context{"bob": bob, "cy": cy}[tt.accepter]
			got, err := f.store.AcceptInvitation(who, token)
			if tt.wantCode < 0 {
				if err != nil || got.Role != calendar.RoleOwner {
					t.Fatalf("accepting: %v, %v", got, err)
				}
				return
			}
			wantCode(t, err, tt.wantCode)
			if tt.wantCode == calendar.CodeNotFound {
				_, unknown := f.store.AcceptInvitation(who, calendar.NewFeedToken())
				if err.Error() != unknown.Error() {
					t.Fatalf("a dead invitation says %q, an unknown token %q", err, unknown)
				}
			}
		})
	}
}

func removeBob(f *fixture, ada context.Context, bob *calendar.Membership) {
	if err := f.store.RemoveMember(ada, bob.Key(), bob.Version); err != nil {
		f.t.Fatal(err)
	}
}

func demoteBob(f *fixture, ada context.Context, bob *calendar.Membership) {
	if _, _, err := f.store.ChangeRole(ada, bob.Key(), calendar.RoleWriter, bob.Version); err != nil {
		f.t.Fatal(err)
	}
}

// TestMemberOfADeletedCalendarGetsNotFound: a member of a calendar whose
// deletion has not removed their membership yet gets the NOT_FOUND any dead
// token gets, not ALREADY_EXISTS.
func TestMemberOfADeletedCalendarGetsNotFound(t *testing.T) {
	f := newFixture(t)
	ada, bob := f.user("ada@example.com"), f.user("bob@example.com")
	cal := f.calendarOf(ada, "Ada's")
	f.share(ada, cal, bob, "bob@example.com", calendar.RoleReader)
	_, token, _, err := f.store.CreateInvitation(ada, calendar.NewInvitation{CalendarID: cal.ID, Role: calendar.RoleReader})
	if err != nil {
		t.Fatal(err)
	}
	var failing atomic.Bool
	failing.Store(true)
	cutOff := dynamo.New(dynamotest.Client(t, failingBatchWrites(&failing)), f.store.Table(), engine)
	if err := cutOff.DeleteCalendar(ada, cal.ID, cal.Version); err != nil {
		t.Fatal(err)
	}
	_, err = f.store.AcceptInvitation(bob, token)
	_, unknown := f.store.AcceptInvitation(bob, calendar.NewFeedToken())
	if calendar.ErrorCode(err) != calendar.CodeNotFound || err.Error() != unknown.Error() {
		t.Fatalf("a member accepting a deleted calendar's token: %v; an unknown token: %v", err, unknown)
	}
	if _, err := f.store.ResumeDeletions(context.Background()); err != nil {
		t.Fatal(err)
	}
}
