package loader

import (
	"context"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/calgraph/calgraph/internal/calendar"
)

// holds reads, all at once, the holds entries of other calendars keep on
// cals within [from, to) (mustNotOverlap, calendar/booking.go), by calendar:
// busy time freeBusy shows without saying whose. A calendar never held
// (Calendar.HasHolds false) costs no read, so views of those take no more
// calls than before holds existed.
func (l *Loaders) holds(ctx context.Context, cals []*calendar.Calendar, from, to time.Time) (map[string][]*calendar.Entry, error) {
	var mu sync.Mutex
	out := map[string][]*calendar.Entry{}
	g, gctx := errgroup.WithContext(ctx)
	for _, c := range cals {
		if !c.HasHolds {
			continue
		}
		g.Go(func() error {
			hs, err := l.reader.HoldsReaching(gctx, c, from, to)
			mu.Lock()
			defer mu.Unlock()
			out[c.ID] = hs
			return err
		})
	}
	return out, g.Wait()
}
