package loader

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/calgraph/calgraph/internal/calendar"
	"github.com/calgraph/calgraph/internal/recurrence"
)

// TestLoadersLiveOneRequest: each request's loaders (New) are its own:
// what one request read or primed is not what the next one sees, which
// reads again, while within a request an object is read once.
func TestLoadersLiveOneRequest(t *testing.T) {
	f := newFakeReader()
	f.addUser(ada).Name = "Ada as stored"
	var names []string
	for range 2 {
		l := New(f, recurrence.Engine{}, calendar.ReadScope{})
		ctx := WithLoaders(calendar.WithViewer(context.Background(), calendar.Viewer{ID: ada}), l)
		for range 2 {
			u, err := For(ctx).Viewer(ctx)
			if err != nil {
				t.Fatalf("viewer: %v", err)
			}
			names = append(names, u.Name)
		}
		// What the request wrote, as a mutation primes it.
		l.PrimeUser(ctx, &calendar.User{ID: ada, Name: "Ada as this request wrote"})
		if u, _ := l.Viewer(ctx); u.Name != "Ada as this request wrote" {
			t.Errorf("after priming: got %q, want what the request wrote", u.Name)
		}
	}
	if want := []string{"Ada as stored", "Ada as stored", "Ada as stored", "Ada as stored"}; !slices.Equal(names, want) {
		t.Errorf("names seen: got %q, want %q", names, want)
	}
	if n := len(f.readLog()); n != 2 {
		t.Errorf("%d reads for two requests reading the viewer twice each, want 2", n)
	}
}

// TestLoadAfterTheRequestEnded: a load sent once the request's context has
// ended fails with the context's error.
func TestLoadAfterTheRequestEnded(t *testing.T) {
	f := newFakeReader()
	f.addUser(ada)
	l, ctx := newTestLoaders(f, ada)
	ctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := l.Viewer(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, want %v", err, context.Canceled)
	}
}

// TestForWithoutLoaders: a handler not wrapped in Middleware is a wiring
// bug, reported as such on its first read, not as a missing object.
func TestForWithoutLoaders(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("For without loaders did not panic")
		}
	}()
	For(context.Background())
}
