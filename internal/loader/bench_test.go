package loader

import (
	"fmt"
	"sync"
	"testing"

	"github.com/calgraph/calgraph/internal/calendar"
	"github.com/calgraph/calgraph/internal/recurrence"
)

// BenchmarkNestedRequest measures the loaders' own cost in one request of a
// nested view's shape, against the fake reader (so no store's cost): 20
// calendars authorized at once by 20 resolvers (their memberships and
// calendars in one batch), then one calendar's 20 members with their users
// (a second batch). Run it with -benchmem: the time is mostly the two batch
// windows.
func BenchmarkNestedRequest(b *testing.B) {
	f := newFakeReader()
	f.addUser(ada)
	var cals []string
	for i := range 20 {
		id := fmt.Sprintf("%08x-0000-4000-8000-000000000000", i+1)
		cals = append(cals, id)
		f.addCalendar(id)
		f.addMember(id, ada, calendar.RoleOwner)
		user := fmt.Sprintf("%08x-1111-4000-8000-000000000000", i+1)
		f.addUser(user)
		f.addMember(cals[0], user, calendar.RoleReader)
	}
	b.ReportAllocs()
	reads := 0
	for b.Loop() {
		f.mu.Lock()
		f.reads = f.reads[:0]
		f.mu.Unlock()
		l := New(f, recurrence.Engine{}, calendar.ReadScope{Cached: true})
		ctx := WithLoaders(calendar.WithViewer(b.Context(), calendar.Viewer{ID: ada}), l)
		var wg sync.WaitGroup
		for _, id := range cals {
			wg.Go(func() {
				if _, err := l.Calendar(ctx, id); err != nil {
					b.Error(err)
				}
			})
		}
		wg.Wait()
		page, err := l.Members(ctx, &calendar.Calendar{ID: cals[0]}, calendar.Page{First: 20})
		if err != nil {
			b.Fatal(err)
		}
		for _, m := range page.Memberships {
			if _, err := l.UserOf(ctx, m); err != nil {
				b.Fatal(err)
			}
		}
		reads += len(f.readLog())
	}
	b.ReportMetric(float64(reads)/float64(b.N), "reads/op")
}
