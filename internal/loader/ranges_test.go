package loader

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/calgraph/calgraph/internal/calendar"
)

// fakeRanges is a reader of ranges whose reads wait until started reads have
// begun, and which records the batches it is asked to check and the read
// scopes it is handed.
type fakeRanges struct {
	calendar.Reader // not called
	started         *sync.WaitGroup
	settled         map[string]bool // calendars whose read takes one call
	panics          string          // a calendar whose read panics

	mu      sync.Mutex
	batches [][]string
	scopes  []calendar.ReadScope
}

func (f *fakeRanges) saw(scope calendar.ReadScope) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.scopes = append(f.scopes, scope)
}

func (f *fakeRanges) CachedEntriesReaching(_ context.Context, scope calendar.ReadScope, _ *calendar.Calendar, _, _ time.Time) ([]*calendar.Entry, bool) {
	f.saw(scope)
	return nil, false
}

func (f *fakeRanges) ReadRange(_ context.Context, scope calendar.ReadScope, c *calendar.Calendar, from, to time.Time) *calendar.RangeRead {
	f.saw(scope)
	f.started.Done()
	f.started.Wait() // every read is under way before any comes back
	if c.ID == f.panics {
		panic("read " + c.ID)
	}
	return &calendar.RangeRead{Calendar: c, From: from, To: to, Settled: f.settled[c.ID],
		Entries: []*calendar.Entry{{ID: "read in " + c.ID}}}
}

func (f *fakeRanges) CheckRanges(_ context.Context, scope calendar.ReadScope, reads []*calendar.RangeRead) {
	f.saw(scope)
	var ids []string
	for _, r := range reads {
		ids = append(ids, r.Calendar.ID)
		r.Entries, r.Settled = []*calendar.Entry{{ID: "checked in " + r.Calendar.ID}}, true
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.batches = append(f.batches, ids)
}

// TestRangeChecksTogether reads five calendars at once, as a view's
// resolvers do: the three reads that need a check are checked in one batch,
// by the last read to come back, and each caller gets its own calendar's
// entries, checked or not as its read needed; a read that panics leaves the
// others checked, not waiting. Every call hands the store the loaders' read
// scope.
func TestRangeChecksTogether(t *testing.T) {
	scope := calendar.ReadScope{Budget: calendar.NewBudget(10, 10), Cached: true}
	for _, panics := range []string{"", "c4"} {
		t.Run(fmt.Sprintf("panicking %q", panics), func(t *testing.T) {
			var started sync.WaitGroup
			started.Add(5)
			f := &fakeRanges{started: &started, settled: map[string]bool{"c1": true, "c3": true}, panics: panics}
			l := New(f, nil, scope)
			got := make([]string, 5)
			var done sync.WaitGroup
			for i := range 5 {
				done.Add(1)
				go func() {
					defer done.Done()
					id := fmt.Sprint("c", i)
					defer func() {
						if p := recover(); p != nil {
							got[i] = fmt.Sprint("panic: ", p)
						}
					}()
					es, err := l.entriesReaching(context.Background(), &calendar.Calendar{ID: id}, time.Time{}, time.Time{})
					if err != nil {
						got[i] = err.Error()
						return
					}
					got[i] = es[0].ID
				}()
			}
			done.Wait()
			want := []string{"checked in c0", "read in c1", "checked in c2", "read in c3", "checked in c4"}
			wantBatch := fmt.Sprint([]string{"c0", "c2", "c4"})
			if panics != "" {
				want[4], wantBatch = "panic: read c4", fmt.Sprint([]string{"c0", "c2"})
			}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("got %q, want %q", got, want)
			}
			if len(f.batches) != 1 || fmt.Sprint(slices.Sorted(slices.Values(f.batches[0]))) != wantBatch {
				t.Errorf("checked %v, want one batch of %s", f.batches, wantBatch)
			}
			// 5 looks in the cache, 5 reads, 1 check
			if len(f.scopes) != 11 || slices.ContainsFunc(f.scopes, func(s calendar.ReadScope) bool { return s != scope }) {
				t.Errorf("scopes handed to the store: got %v, want the loaders' %v 11 times", f.scopes, scope)
			}
		})
	}
}
