package answercache

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/klauspost/compress/gzip"

	"github.com/calgraph/calgraph/internal/calendar"
)

// fakeSource's reads are one version number: a read set holds the version
// it saw, and is unchanged while the version is.
type fakeSource struct {
	version atomic.Int64
	why     string // what every read set says (Uncacheable)
}

type fakeReads struct {
	version int64
	why     string
}

func (r *fakeReads) Uncacheable() string { return r.why }
func (r *fakeReads) Bytes() int          { return 8 }

func (s *fakeSource) Record(ctx context.Context) (context.Context, ReadSet) {
	return ctx, &fakeReads{version: s.version.Load(), why: s.why}
}

func (s *fakeSource) Unchanged(_ context.Context, rs ReadSet) (bool, error) {
	return rs.(*fakeReads).version == s.version.Load(), nil
}

// app answers every request with its body and a run count, confirming it
// (as graph's answerConsent does for a clean query) unless the body says
// "mutation", and marking it when the body says "clock".
func app(runs *atomic.Int64, size int) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		n := runs.Add(1)
		if !bytes.Contains(body, []byte("mutation")) {
			Confirm(r.Context())
		}
		if bytes.Contains(body, []byte("clock")) {
			Mark(r.Context(), "clock")
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"data":{"run":%d,"q":%q,"pad":%q}}`, n, body, strings.Repeat("x", size))
	})
}

func post(t *testing.T, h http.Handler, viewer, body string, header ...string) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest(http.MethodPost, "/query", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	req = req.WithContext(calendar.WithViewer(req.Context(), calendar.Viewer{ID: viewer}))
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	return w
}

func TestServedOnlyWhileTheReadsAreUnchanged(t *testing.T) {
	src := &fakeSource{}
	c := New(src, 1<<20)
	var runs atomic.Int64
	h := c.Middleware(app(&runs, 10))
	first := post(t, h, "u1", `{"query":"{ a }"}`).Body.String()
	if again := post(t, h, "u1", `{"query":"{ a }"}`).Body.String(); again != first || runs.Load() != 1 {
		t.Fatalf("repeated query: got %s after %d runs, want %s from the cache", again, runs.Load(), first)
	}
	for _, other := range []struct{ viewer, body string }{{"u2", `{"query":"{ a }"}`}, {"u1", `{"query":"{ a } "}`}} {
		if got := post(t, h, other.viewer, other.body).Body.String(); got == first {
			t.Errorf("viewer %s, body %s: got the answer of another request", other.viewer, other.body)
		}
	}
	src.version.Add(1) // something read changed
	if got := post(t, h, "u1", `{"query":"{ a }"}`).Body.String(); got == first {
		t.Fatalf("after a change: got the cached answer %s", got)
	}
	s := c.Stats()
	if s.Hits != 1 || s.Misses[ReasonChanged] != 1 || s.Misses[ReasonAbsent] != 3 {
		t.Errorf("got stats %+v, want 1 hit, 1 changed, 3 absent", s)
	}
}

func TestNeverKeptWithoutConsent(t *testing.T) {
	for _, tc := range []struct {
		name, body, why string
		src             *fakeSource
	}{
		{"not confirmed (a mutation)", `{"query":"mutation { a }"}`, ReasonNotConfirmed, &fakeSource{}},
		{"marked (the clock)", `{"query":"{ clock }"}`, "clock", &fakeSource{}},
		{"reads the store could not record", `{"query":"{ a }"}`, "unrecorded_read", &fakeSource{why: "unrecorded_read"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := New(tc.src, 1<<20)
			var runs atomic.Int64
			h := c.Middleware(app(&runs, 10))
			post(t, h, "u1", tc.body)
			post(t, h, "u1", tc.body)
			if runs.Load() != 2 {
				t.Errorf("ran %d times, want 2 (never from the cache)", runs.Load())
			}
			if s := c.Stats(); s.Misses[tc.why] != 2 || s.Entries != 0 {
				t.Errorf("got stats %+v, want 2 misses for %q and nothing held", s, tc.why)
			}
		})
	}
}

func TestBoundedInBytes(t *testing.T) {
	const bound = 64 << 10
	c := New(&fakeSource{}, bound)
	var runs atomic.Int64
	h := c.Middleware(app(&runs, 1000))
	for i := range 200 {
		post(t, h, "u1", fmt.Sprintf(`{"query":"{ a%d }"}`, i), "Accept-Encoding", "gzip")
		post(t, h, "u1", fmt.Sprintf(`{"query":"{ a%d }"}`, i), "Accept-Encoding", "gzip") // a hit: compressed and kept too
		if s := c.Stats(); s.Bytes > bound {
			t.Fatalf("after %d answers: %d bytes held, bound %d", i+1, s.Bytes, bound)
		}
	}
	s := c.Stats()
	if s.Entries == 0 || s.Entries >= 200 || s.Hits != 200 {
		t.Errorf("got %+v: want some entries held, not all 200, and every repeat a hit", s)
	}
	// The least recently used went first: the last one is still held.
	before := runs.Load()
	post(t, h, "u1", `{"query":"{ a199 }"}`)
	if runs.Load() != before {
		t.Error("the most recent answer was evicted")
	}
	// An answer larger than an eighth of the cache is not kept.
	big := New(&fakeSource{}, bound).Middleware(app(&runs, bound/4))
	before = runs.Load()
	post(t, big, "u1", `{"query":"{ big }"}`)
	post(t, big, "u1", `{"query":"{ big }"}`)
	if runs.Load() != before+2 {
		t.Error("an answer of a quarter of the cache was kept")
	}
}

func TestServedCompressedAsTheEdgeChose(t *testing.T) {
	c := New(&fakeSource{}, 1<<20)
	var runs atomic.Int64
	h := c.Middleware(app(&runs, 5000))
	plain := post(t, h, "u1", `{"query":"{ a }"}`, "Accept-Encoding", "gzip").Body.String()
	hit := post(t, h, "u1", `{"query":"{ a }"}`, "Accept-Encoding", "gzip")
	if hit.Header().Get("Content-Encoding") != "gzip" || hit.Header().Get("Content-Type") != "application/json" {
		t.Fatalf("hit headers: %v", hit.Header())
	}
	zr, err := gzip.NewReader(hit.Body)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(zr)
	if string(got) != plain {
		t.Errorf("the hit decompressed differs:\n%s\n%s", got, plain)
	}
	if identity := post(t, h, "u1", `{"query":"{ a }"}`); identity.Header().Get("Content-Encoding") != "" || identity.Body.String() != plain {
		t.Errorf("a client accepting no coding got %v %q", identity.Header(), identity.Body.String()[:40])
	}
}

// TestKeyedOnTheMediaTypeSent: the GraphQL handler refuses a POST that is not
// application/json (4xx, the GraphQL-over-HTTP audit's 9ABE); the same body
// sent without it must reach the handler, not the answer kept for the JSON
// one.
func TestKeyedOnTheMediaTypeSent(t *testing.T) {
	c := New(&fakeSource{}, 1<<20)
	var runs atomic.Int64
	h := c.Middleware(app(&runs, 10))
	post(t, h, "u1", `{"query":"{ a }"}`)
	for _, ct := range []string{"", "text/plain"} {
		before := runs.Load()
		post(t, h, "u1", `{"query":"{ a }"}`, "Content-Type", ct)
		if runs.Load() != before+1 {
			t.Errorf("Content-Type %q: answered from the cache, want the handler to decide", ct)
		}
	}
}
