package loader

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/calgraph/calgraph/internal/calendar"
	"github.com/calgraph/calgraph/internal/recurrence"
)

// fakeUsers is a reader of users that counts its reads, each of which waits
// for gate (when set) and fails when its context has ended.
type fakeUsers struct {
	calendar.Reader // not called
	reads           atomic.Int32
	gate            chan struct{}
}

func (f *fakeUsers) Read(ctx context.Context, k calendar.Keys) (*calendar.Items, error) {
	f.reads.Add(1)
	if f.gate != nil {
		select {
		case <-f.gate:
		case <-ctx.Done():
		}
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	found := &calendar.Items{Users: map[string]*calendar.User{}}
	for _, id := range k.Users {
		if id != "nobody" {
			found.Users[id] = &calendar.User{ID: id, Email: id + "@example.com"}
		}
	}
	return found, nil
}

// usersOf reads users through a fresh request's loaders that read through s.
func usersOf(ctx context.Context, r calendar.Reader, s *Shared, ids ...string) ([]*calendar.User, error) {
	l := NewWithWait(r, recurrence.Engine{}, calendar.ReadScope{}, time.Millisecond)
	l.ReadThrough(s)
	var thunks []func() (*calendar.User, error)
	for _, id := range ids {
		thunks = append(thunks, l.loadUser(ctx, id))
	}
	var out []*calendar.User
	for _, th := range thunks {
		u, err := th()
		if err != nil {
			return nil, err
		}
		out = append(out, u)
	}
	return out, nil
}

// TestSharedReadsOnce: fifty requests reading the same users (and one that
// does not exist) through one Shared read them once, each getting them all.
func TestSharedReadsOnce(t *testing.T) {
	r := &fakeUsers{gate: make(chan struct{})}
	s := NewShared()
	var wg sync.WaitGroup
	errs := make(chan error, 50)
	for range 50 {
		wg.Go(func() {
			us, err := usersOf(context.Background(), r, s, "ada", "bob", "nobody")
			if err == nil && (len(us) != 3 || us[0].ID != "ada" || us[1].ID != "bob" || us[2] != nil) {
				err = fmt.Errorf("got %v", us)
			}
			errs <- err
		})
	}
	time.Sleep(50 * time.Millisecond) // every request waits for the first read
	close(r.gate)
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if n := r.reads.Load(); n != 1 {
		t.Fatalf("%d reads for fifty requests, want 1", n)
	}
}

// TestSharedReadOfAnEndedRequest: the request whose read the others wait for
// ends before its read does; the others read for themselves, and get their
// users, while it gets its own context's error.
func TestSharedReadOfAnEndedRequest(t *testing.T) {
	r := &fakeUsers{gate: make(chan struct{})}
	s := NewShared()
	first, cancel := context.WithCancel(context.Background())
	failed := make(chan error, 1)
	go func() {
		_, err := usersOf(first, r, s, "ada")
		failed <- err
	}()
	for r.reads.Load() == 0 {
		time.Sleep(time.Millisecond)
	}
	done := make(chan error, 1)
	go func() {
		us, err := usersOf(context.Background(), r, s, "ada")
		if err == nil && (len(us) != 1 || us[0] == nil) {
			err = fmt.Errorf("got %v", us)
		}
		done <- err
	}()
	time.Sleep(20 * time.Millisecond) // the second waits for the first's read
	cancel()
	if err := <-failed; !errors.Is(err, context.Canceled) {
		t.Fatalf("the ended request: %v, want its context's error", err)
	}
	close(r.gate)
	if err := <-done; err != nil {
		t.Fatalf("the request that waited: %v", err)
	}
	if n := r.reads.Load(); n != 2 {
		t.Fatalf("%d reads, want 2 (the ended one, then the waiting one's own)", n)
	}
}
