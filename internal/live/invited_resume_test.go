package live_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/calgraph/calgraph/internal/calendar"
	"github.com/calgraph/calgraph/internal/dynamo"
	"github.com/calgraph/calgraph/internal/dynamotest"
	"github.com/calgraph/calgraph/internal/live"
	"github.com/calgraph/calgraph/internal/recurrence"
)

// TestResumeInvitationsRefusesBadTokens: a subscription resumes INVITATION
// deliveries only from a token of the viewer's own log, within the
// retention, and only while following all: anything else fails before
// anything is delivered, with a code.
func TestResumeInvitationsRefusesBadTokens(t *testing.T) {
	in, table := newInstance(t, "", 0)
	alice, bob := signIn(t, in.store, "alice-ri@example.com"), signIn(t, in.store, "bob-ri@example.com")
	cal, _, err := in.store.CreateCalendar(alice, calendar.NewCalendar{Name: "Home"})
	if err != nil {
		t.Fatal(err)
	}
	own, err := in.store.InvitationChanges(alice, "", 10)
	if err != nil || own.More {
		t.Fatalf("alice's invitations: %v %v", own, err)
	}
	theirs, err := in.store.InvitationChanges(bob, "", 10)
	if err != nil {
		t.Fatal(err)
	}
	calToken, err := in.store.Changes(alice, cal.ID, "", 10)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		f    live.Follow
		want calendar.Code
	}{
		{"garbage", live.Follow{ResumeInvitations: "garbage"}, calendar.CodeInvalid},
		{"too long", live.Follow{ResumeInvitations: strings.Repeat("A", 9000)}, calendar.CodeInvalid},
		{"cut short", live.Follow{ResumeInvitations: own.Token[:len(own.Token)-3]}, calendar.CodeInvalid},
		{"another user's", live.Follow{ResumeInvitations: theirs.Token}, calendar.CodeInvalid},
		{"a calendar's", live.Follow{ResumeInvitations: calToken.Token}, calendar.CodeInvalid},
		{"with calendarIds", live.Follow{CalendarIDs: []string{cal.ID}, ResumeInvitations: own.Token}, calendar.CodeInvalid},
	} {
		_, err := in.hub.Subscribe(alice, c.f)
		if got := calendar.ErrorCode(err); got != c.want {
			t.Errorf("%s: got %v (code %s), want code %s", c.name, err, got, c.want)
		}
	}
	ctx, cancel := context.WithCancel(alice)
	defer cancel()
	if _, err := in.hub.Subscribe(ctx, live.Follow{ResumeInvitations: own.Token}); err != nil {
		t.Fatalf("her own token: %v", err)
	}

	// A token older than the retention: the log's records may be gone.
	// (With a retention shorter than the 30 s overlap window, every token
	// is.)
	short := dynamo.New(dynamotest.Client(t), table, recurrence.Engine{}, dynamo.WithChangeRetention(20*time.Second))
	hub := live.NewHub(short, 0, nil)
	if _, err := hub.Subscribe(alice, live.Follow{ResumeInvitations: own.Token}); calendar.ErrorCode(err) != calendar.CodeSyncTokenExpired {
		t.Errorf("too old: got %v, want code %s", err, calendar.CodeSyncTokenExpired)
	}
}
