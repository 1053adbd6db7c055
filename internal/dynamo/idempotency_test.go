package dynamo_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/smithy-go/middleware"

	"github.com/calgraph/calgraph/internal/calendar"
	"github.com/calgraph/calgraph/internal/dynamo"
	"github.com/calgraph/calgraph/internal/dynamotest"
)

// The mechanics of calendar.Once on the store: where the marker goes, what
// a replay answers, what is kept. The API's tests (graph) cover the
// mutations themselves.

// countEntries counts the entry items titled title.
func (f *fixture) countEntries(title string) int {
	n := 0
	for _, it := range f.items() {
		if it["entityType"] == "ENTRY" && it["title"] == title {
			n++
		}
	}
	return n
}

// TestMarkerGoesWithTheFirstCommit: a refused first transaction does not
// carry the marker away; the next one that commits does.
func TestMarkerGoesWithTheFirstCommit(t *testing.T) {
	f := newFixture(t)
	ada, cal := f.resource()
	if _, err := f.book(ada, cal.ID, "Held", timed("2026-03-02T09:00:00Z", "2026-03-02T10:00:00Z", paris)); err != nil {
		t.Fatal(err)
	}
	call := func(ctx context.Context) (string, error) {
		_, err := f.book(ctx, cal.ID, "Clash", timed("2026-03-02T09:00:00Z", "2026-03-02T10:00:00Z", paris))
		if calendar.ErrorCode(err) != calendar.CodeSlotConflict {
			return "", errors.New("want the first booking refused")
		}
		e, err := f.book(ctx, cal.ID, "Later", timed("2026-03-02T11:00:00Z", "2026-03-02T12:00:00Z", paris))
		if err != nil {
			return "", err
		}
		return e.ID, nil
	}
	first, err := calendar.Once(ada, f.store, "k", "fp", call)
	if err != nil {
		t.Fatal(err)
	}
	again, err := calendar.Once(ada, f.store, "k", "fp", call)
	if err != nil || again != first || f.countEntries("Later") != 1 {
		t.Fatalf("replay: %q (%v), first %q, %d created", again, err, first, f.countEntries("Later"))
	}
}

// TestPartialOutcomeReplays: a request that stopped with an error after
// applying something answers the same, value and error, when replayed.
func TestPartialOutcomeReplays(t *testing.T) {
	f := newFixture(t)
	ada := f.user("ada@example.com")
	cal := f.calendarOf(ada, "Ada's")
	stop := calendar.Invalidf("ics", "stopped at the second event")
	call := func(ctx context.Context) ([]string, error) {
		e, err := f.book(ctx, cal.ID, "Created", allDay("2026-03-02"))
		if err != nil {
			return nil, err
		}
		return []string{e.ID}, stop
	}
	first, err := calendar.Once(ada, f.store, "k", "fp", call)
	if !errors.Is(err, stop) || len(first) != 1 {
		t.Fatalf("first: %v, %v", first, err)
	}
	again, err := calendar.Once(ada, f.store, "k", "fp", call)
	wantCode(t, err, calendar.CodeInvalid)
	if len(again) != 1 || again[0] != first[0] || err.Error() != stop.Error() || f.countEntries("Created") != 1 {
		t.Fatalf("replay: %v, %v; %d created", again, err, f.countEntries("Created"))
	}
}

// blockingBatchWrites returns a client option that holds every BatchWriteItem
// until release is closed, telling started when the first one arrives.
func blockingBatchWrites(started chan<- struct{}, release <-chan struct{}) func(*dynamodb.Options) {
	var once sync.Once
	hold := middleware.InitializeMiddlewareFunc("hold", func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
		if middleware.GetOperationName(ctx) == "BatchWriteItem" {
			once.Do(func() { close(started) })
			<-release
		}
		return next.HandleInitialize(ctx, in)
	})
	return func(o *dynamodb.Options) {
		o.APIOptions = append(o.APIOptions, func(s *middleware.Stack) error { return s.Initialize.Add(hold, middleware.Before) })
	}
}

// TestReplayDuringCleanUp: a retry of a calendar deletion whose clean-up is
// still running gets the result at once, not a wait and VERSION_CONFLICT.
func TestReplayDuringCleanUp(t *testing.T) {
	f := newFixture(t)
	ada := f.user("ada@example.com")
	cal := fullCalendar(f, ada, "Room")
	started, release := make(chan struct{}), make(chan struct{})
	slow := dynamo.New(dynamotest.Client(t, blockingBatchWrites(started, release)), f.store.Table(), engine)
	call := func(ctx context.Context) (string, error) {
		return cal.ID, slow.DeleteCalendar(ctx, cal.ID, cal.Version)
	}
	done := make(chan error, 1)
	go func() {
		_, err := calendar.Once(ada, slow, "del", "fp", call)
		done <- err
	}()
	<-started // the calendar is deleted; its clean-up has begun
	begin := time.Now()
	id, err := calendar.Once(ada, slow, "del", "fp", call)
	if err != nil || id != cal.ID || time.Since(begin) > 2500*time.Millisecond {
		t.Fatalf("retry during the clean-up: %q, %v after %v", id, err, time.Since(begin))
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if left, pending := f.partitionItems(cal.ID); left != 0 || pending != 0 {
		t.Fatalf("%d items and %d pending deletions left", left, pending)
	}
}

// TestKeysBelongToTheIdentity: markers are the sign-in identity's, so a
// user made again for the same identity replays its requests; another
// identity's key of the same name is its own.
func TestKeysBelongToTheIdentity(t *testing.T) {
	f := newFixture(t)
	ada := f.user("ada@example.com")
	cal := f.calendarOf(ada, "Ada's")
	id := calendar.Identity{Provider: "test", Subject: "ada@example.com"}
	call := func(ctx context.Context) (string, error) {
		e, err := f.book(ctx, cal.ID, "Once", allDay("2026-03-02"))
		if err != nil {
			return "", err
		}
		return e.ID, nil
	}
	signedIn := signedInWith(ada, id)
	first, err := calendar.Once(signedIn, f.store, "k", "fp", call)
	if err != nil {
		t.Fatal(err)
	}
	remade := calendar.WithViewer(context.Background(), calendar.Viewer{ID: "another-user-id", Identity: id})
	if got, err := calendar.Once(remade, f.store, "k", "fp", call); err != nil || got != first {
		t.Fatalf("the same identity as another user: %q (%v), want the replay of the first, %q", got, err, first)
	}
	bob := signedInWith(ada, calendar.Identity{Provider: "test", Subject: "bob@example.com"})
	if got, err := calendar.Once(bob, f.store, "k", "fp", call); err != nil || got == first || f.countEntries("Once") != 2 {
		t.Fatalf("another identity's key: %q (%v), want its own request; %d created", got, err, f.countEntries("Once"))
	}
}

// TestOutcomeKeptAfterHangUp: a client that hangs up after its mutation
// was applied (its retry timer fired) still has the outcome kept, so its
// retry gets the result rather than VERSION_CONFLICT.
func TestOutcomeKeptAfterHangUp(t *testing.T) {
	t.Run("create", func(t *testing.T) {
		f := newFixture(t)
		ada := f.user("ada@example.com")
		cal := f.calendarOf(ada, "Ada's")
		request, hangUp := context.WithCancel(ada)
		call := func(ctx context.Context) (string, error) {
			e, err := f.book(ctx, cal.ID, "Once", allDay("2026-03-02"))
			if err != nil {
				return "", err
			}
			hangUp() // the connection closes after the commit
			return e.ID, nil
		}
		first, _ := calendar.Once(request, f.store, "k", "fp", call)
		again, err := calendar.Once(ada, f.store, "k", "fp", call)
		if err != nil || again != first || f.countEntries("Once") != 1 {
			t.Fatalf("retry: %q, %v, want %q; %d created", again, err, first, f.countEntries("Once"))
		}
	})
	t.Run("deleteAccount", func(t *testing.T) {
		f := newFixture(t)
		ada := f.user("ada@example.com")
		cal := f.calendarOf(ada, "Ada's")
		request, hangUp := context.WithCancel(ada)
		var calls atomic.Int32
		dynamo.SetBeforeTransact(f.store, func(context.Context) {
			if calls.Add(1) == 2 { // while the memberships go
				hangUp()
			}
		})
		call := func(ctx context.Context) ([]string, error) {
			_, deleted, err := f.store.DeleteAccount(ctx, "ada@example.com")
			return deleted, err
		}
		_, _ = calendar.Once(request, f.store, "bye", "fp", call)
		dynamo.SetBeforeTransact(f.store, nil)
		again, err := calendar.Once(ada, f.store, "bye", "fp", call)
		if err != nil || len(again) != 1 || again[0] != cal.ID {
			t.Fatalf("retry: %v, %v, want [%s]", again, err, cal.ID)
		}
	})
}

// signedInWith returns ctx whose viewer, the same user, signed in with id.
func signedInWith(ctx context.Context, id calendar.Identity) context.Context {
	v := calendar.ViewerOf(ctx)
	v.Identity = id
	return calendar.WithViewer(ctx, v)
}
