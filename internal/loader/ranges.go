package loader

import (
	"context"
	"sync"
	"time"

	"github.com/graph-gophers/dataloader/v7"

	"github.com/calgraph/calgraph/internal/calendar"
)

// rangeRef names one calendar's range read: the calendar as the request read
// it (its revision is what the store checks the read against) and the range.
type rangeRef struct {
	cal      *calendar.Calendar
	from, to time.Time
}

// newRangeLoader returns the loader of a request's range reads: those its
// views ask for within wait go to the store together, one
// EntriesReachingEach per range, so that the check that makes each calendar's
// read a state that existed costs one batch for all the calendars of a view
// (a week view's resolvers each ask for their own calendar). Nothing is kept
// for the rest of the request: a view after the request's own write must
// read afresh.
func newRangeLoader(r calendar.EntryReader, wait time.Duration) *dataloader.Loader[rangeRef, []*calendar.Entry] {
	return dataloader.NewBatchedLoader(func(ctx context.Context, refs []rangeRef) []*dataloader.Result[[]*calendar.Entry] {
		return readRanges(ctx, r, refs)
	}, dataloader.WithWait[rangeRef, []*calendar.Entry](wait),
		dataloader.WithCache[rangeRef, []*calendar.Entry](&dataloader.NoCache[rangeRef, []*calendar.Entry]{}))
}

// readRanges reads refs with one EntriesReachingEach per range, at once.
func readRanges(ctx context.Context, r calendar.EntryReader, refs []rangeRef) []*dataloader.Result[[]*calendar.Entry] {
	type window struct{ from, to time.Time }
	byWindow := map[window][]int{} // indexes into refs
	var order []window
	for i, ref := range refs {
		w := window{ref.from, ref.to}
		if _, ok := byWindow[w]; !ok {
			order = append(order, w)
		}
		byWindow[w] = append(byWindow[w], i)
	}
	results := make([]*dataloader.Result[[]*calendar.Entry], len(refs))
	read := func(w window) {
		idx := byWindow[w]
		cals := make([]*calendar.Calendar, len(idx))
		for j, i := range idx {
			cals[j] = refs[i].cal
		}
		for j, got := range r.EntriesReachingEach(ctx, cals, w.from, w.to) {
			results[idx[j]] = &dataloader.Result[[]*calendar.Entry]{Data: got.Entries, Error: got.Err}
		}
	}
	var wg sync.WaitGroup
	for _, w := range order[1:] { // usually none: a request's views mostly share their range
		wg.Add(1)
		go func() {
			defer wg.Done()
			read(w)
		}()
	}
	read(order[0])
	wg.Wait()
	return results
}

// entriesReaching returns a calendar's entries reaching [from, to) (see
// calendar.EntryReader): from the store's memory when it holds them, at
// once, else through the request's range loader.
func (l *Loaders) entriesReaching(ctx context.Context, c *calendar.Calendar, from, to time.Time) ([]*calendar.Entry, error) {
	if es, ok := l.reader.CachedEntriesReaching(ctx, c, from, to); ok {
		return es, nil
	}
	return l.ranges.Load(ctx, rangeRef{cal: c, from: from, to: to})()
}
