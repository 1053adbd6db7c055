package loader

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/calgraph/calgraph/internal/calendar"
)

// rangeChecks gathers the range reads of a request that need checking
// (calendar.EntryReader.CheckRanges), so that the reads made at the same
// time, the calendars of one view, are checked together: each read is sent
// at once, on its caller's goroutine, and the last of those under way to
// come back checks every read waiting, in one batch, for them all. No
// window of time collects them, so none waits longer than its view's
// slowest read, and none depends on how a loaded machine schedules the
// resolvers; a read that starts after the others came back is checked on
// its own.
type rangeChecks struct {
	mu      sync.Mutex
	reading int                   // reads sent and not back yet
	waiting []*calendar.RangeRead // back, to be checked together
	checked chan struct{}         // closed once waiting is checked
}

// entriesReaching returns a calendar's entries reaching [from, to) as one
// state of it that existed: from the store's memory when it holds them, else
// read, and checked with the reads made beside it when it needs to be.
func (l *Loaders) entriesReaching(ctx context.Context, c *calendar.Calendar, from, to time.Time) ([]*calendar.Entry, error) {
	if es, ok := l.reader.CachedEntriesReaching(ctx, l.scope, c, from, to); ok {
		return es, nil
	}
	r, wait, batch, checked := l.ranges.read(ctx, l.reader, l.scope, c, from, to)
	if batch != nil {
		func() {
			defer close(checked) // a panic in the check must not leave the others waiting
			l.reader.CheckRanges(ctx, l.scope, batch)
		}()
	} else if wait {
		select {
		case <-checked:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	if !r.Settled { // its check panicked
		return nil, errors.New("the check of a range read beside this one failed")
	}
	return r.Entries, r.Err
}

// read sends a range read and, once it is back, adds it to those waiting
// to be checked when it needs to be (wait; r is then the checker's until
// checked is closed). When it is the last read under way it returns the
// batch to check, which the caller checks and then closes checked.
func (rc *rangeChecks) read(ctx context.Context, reader calendar.EntryReader, scope calendar.ReadScope, c *calendar.Calendar, from, to time.Time) (
	r *calendar.RangeRead, wait bool, batch []*calendar.RangeRead, checked chan struct{}) {
	rc.mu.Lock()
	rc.reading++
	rc.mu.Unlock()
	defer func() { // also when the read panics, so that the others are checked
		rc.mu.Lock()
		defer rc.mu.Unlock()
		rc.reading--
		if rc.checked == nil {
			rc.checked = make(chan struct{})
		}
		checked = rc.checked
		if wait = r != nil && !r.Settled; wait {
			rc.waiting = append(rc.waiting, r)
		}
		if rc.reading == 0 && len(rc.waiting) > 0 {
			batch, rc.waiting, rc.checked = rc.waiting, nil, nil
		}
		if r == nil && batch != nil { // panicking: the others' check goes on without this caller
			go func(batch []*calendar.RangeRead, checked chan struct{}) {
				defer close(checked)
				reader.CheckRanges(ctx, scope, batch)
			}(batch, checked)
		}
	}()
	return reader.ReadRange(ctx, scope, c, from, to), false, nil, nil
}
