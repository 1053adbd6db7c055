package live

import (
	"context"
	"maps"
	"sync"
	"testing"
	"time"

	"github.com/calgraph/calgraph/internal/calendar"
	"github.com/calgraph/calgraph/internal/dynamo"
	"github.com/calgraph/calgraph/internal/dynamotest"
	"github.com/calgraph/calgraph/internal/recurrence"
)

// tokenSpy notes the calendars' tokens each INVITATION delivery's token is
// made of.
type tokenSpy struct {
	Source
	mu    sync.Mutex
	calls []map[string]string
}

func (s *tokenSpy) InvitedToken(userID, userToken string, calendarTokens map[string]string) (string, error) {
	s.mu.Lock()
	s.calls = append(s.calls, maps.Clone(calendarTokens))
	s.mu.Unlock()
	return s.Source.InvitedToken(userID, userToken, calendarTokens)
}

// TestQuietInvitedLogKeepsUp: the token of an INVITATION delivery is made of
// the position of every invited calendar's log the subscription reached,
// and a calendar in which nothing is written reaches the Hub's reads of it
// (the sweep's) all the same: else its position would stay where the
// subscription started, and resuming would read every other calendar's log
// from then.
func TestQuietInvitedLogKeepsUp(t *testing.T) {
	db := dynamotest.Client(t)
	var h *Hub
	store := dynamo.New(db, dynamotest.Table(t, db), recurrence.Engine{}, dynamo.WithCommitHook(func(l []calendar.LogRef) { h.Notify(l) }))
	spy := &tokenSpy{Source: store}
	h = NewHub(spy, 50*time.Millisecond, nil, WithSweep(100*time.Millisecond))
	running, stop := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); h.Run(running) }()
	defer func() { stop(); <-done }()
	as := func(email string) context.Context {
		id, _, err := store.ResolveIdentity(context.Background(), calendar.SignUp{Identity: calendar.Identity{Provider: "test", Subject: email}, Email: email, Name: email})
		if err != nil {
			t.Fatal(err)
		}
		return calendar.WithViewer(context.Background(), calendar.Viewer{ID: id})
	}
	owner, guest := as("owner-quiet@example.com"), as("guest-quiet@example.com")
	invited := func(name string) calendar.EntryKey {
		cal, _, err := store.CreateCalendar(owner, calendar.NewCalendar{Name: name})
		if err != nil {
			t.Fatal(err)
		}
		due, _ := calendar.ParseDate("due", "2026-12-01")
		e, _, err := store.CreateEntry(owner, calendar.NewEntry{CalendarID: cal.ID, Title: name, Timing: calendar.Timing{Task: &calendar.TaskDue{Date: &due}}})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := store.ChangeAttendees(owner, calendar.AttendeeDelta{Key: e.Key(), Add: []calendar.NewAttendee{{Email: "guest-quiet@example.com"}}}); err != nil {
			t.Fatal(err)
		}
		return e.Key()
	}
	quiet, busy := invited("Quiet"), invited("Busy")
	ctx, cancel := context.WithCancel(guest)
	defer cancel()
	sub, err := h.Subscribe(ctx, Follow{})
	if err != nil {
		t.Fatal(err)
	}
	rename := func(version int, title string) {
		t.Helper()
		if _, _, err := store.UpdateEntry(owner, calendar.EntryUpdate{Key: busy, ExpectedVersion: version, Title: calendar.Set(title)}); err != nil {
			t.Fatal(err)
		}
		select {
		case d := <-sub.Deliveries():
			if d.Kind != Invited || d.Token == "" {
				t.Fatalf("got %+v, want an INVITATION delivery with a token", d)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("no delivery of the busy calendar's entry")
		}
	}
	rename(1, "Busy, renamed")
	time.Sleep(time.Second) // sweeps of both logs, finding nothing
	rename(2, "Busy, again")
	spy.mu.Lock()
	defer spy.mu.Unlock()
	first, last := spy.calls[0][quiet.CalendarID], spy.calls[len(spy.calls)-1][quiet.CalendarID]
	if first == "" || first == last {
		t.Errorf("the quiet calendar's token in the deliveries' tokens: first %q, last %q, want it to move on", first, last)
	}
}
