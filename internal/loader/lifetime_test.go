package loader

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"

	"github.com/calgraph/calgraph/internal/calendar"
	"github.com/calgraph/calgraph/internal/recurrence"
)

// TestLoadersLiveOneRequest: each request through Middleware gets loaders
// of its own: what one request read or primed is not what the next one
// sees, which reads again, while within a request an object is read once.
func TestLoadersLiveOneRequest(t *testing.T) {
	f := newFakeReader()
	f.addUser(ada).Name = "Ada as stored"
	var names []string
	h := Middleware(f, recurrence.Engine{}, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx := calendar.WithViewer(r.Context(), calendar.Viewer{ID: ada})
		l := For(ctx)
		for range 2 {
			u, err := l.Viewer(ctx)
			if err != nil {
				t.Errorf("viewer: %v", err)
				return
			}
			names = append(names, u.Name)
		}
		// What the request wrote, as a mutation primes it.
		l.PrimeUser(ctx, &calendar.User{ID: ada, Name: "Ada as this request wrote"})
		if u, _ := l.Viewer(ctx); u.Name != "Ada as this request wrote" {
			t.Errorf("after priming: got %q, want what the request wrote", u.Name)
		}
	}))
	for range 2 {
		h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodPost, "/query", nil))
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

// TestCalendarsTheStoreSaw: a calendar the store read to authorize a write
// (calendar.SawCalendar) is primed, so that the request's payload reads
// only the viewer's membership.
func TestCalendarsTheStoreSaw(t *testing.T) {
	f := authStore()
	l, ctx := newTestLoaders(f, ada)
	calendar.SawCalendar(ctx, &calendar.Calendar{ID: work, Name: "as the write saw it"})
	c, err := l.Calendar(ctx, work)
	if err != nil || c.Name != "as the write saw it" {
		t.Fatalf("got %+v, %v; want the calendar the store saw", c, err)
	}
	reads := f.readLog()
	if len(reads) != 1 || len(reads[0].Calendars) != 0 || len(reads[0].Memberships) != 1 {
		t.Errorf("reads: got %+v, want one, of the viewer's membership only", reads)
	}
}
