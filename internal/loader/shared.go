package loader

import (
	"context"
	"sync"

	"github.com/calgraph/calgraph/internal/calendar"
)

// Shared is a cache of items read by key that the loaders of many requests
// share: those of the deliveries of one change to every subscriber of an
// instance, who select the same objects around it (a member's user, say).
// The first request to need an item reads it, the others wait for that read
// and take its result, so an item is read once however many subscribers
// select it. It holds raw items: each request's loaders still authorize
// every object they hand out. Keep one only as long as the requests that
// share it show the same moment (one read of a change log).
type Shared struct {
	mu    sync.Mutex
	items map[ref]*sharedItem
}

// sharedItem is one item of a Shared, read or being read.
type sharedItem struct {
	done  chan struct{} // closed once read
	value item
	err   error
}

// maxSharedTries bounds the times a request waits for reads of others that
// fail (their requests ended, say) before it reads the items itself.
const maxSharedTries = 3

// NewShared returns an empty Shared.
func NewShared() *Shared { return &Shared{items: map[ref]*sharedItem{}} }

// ReadThrough makes l read by key through s from now on (call it before
// any read): what l primed stays l's own.
func (l *Loaders) ReadThrough(s *Shared) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.shared = s
}

func (l *Loaders) sharedCache() *Shared {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.shared
}

// load returns the items refs name (an empty item for a missing one): those
// another request read or is reading are waited for, the rest are read in
// one call of read.
func (s *Shared) load(ctx context.Context, refs []ref, read func(context.Context, calendar.Keys) (*calendar.Items, error)) ([]item, error) {
	values := make([]item, len(refs))
	todo := refs
	index := make(map[ref][]int, len(refs))
	for i, r := range refs {
		index[r] = append(index[r], i)
	}
	for try := 0; len(todo) > 0; try++ {
		if try == maxSharedTries {
			return values, fillFrom(ctx, read, todo, index, values)
		}
		mine, theirs := s.claim(todo)
		s.readClaimed(ctx, mine, read)
		todo = nil
		for r, it := range theirs {
			select {
			case <-it.done:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
			if it.err != nil {
				todo = append(todo, r) // their read failed: try again
				continue
			}
			for _, i := range index[r] {
				values[i] = it.value
			}
		}
		for r, it := range mine {
			if it.err != nil {
				return nil, it.err
			}
			for _, i := range index[r] {
				values[i] = it.value
			}
		}
	}
	return values, nil
}

// claim splits refs into those this call is to read (now in s, being read)
// and those read or being read already.
func (s *Shared) claim(refs []ref) (mine, theirs map[ref]*sharedItem) {
	s.mu.Lock()
	defer s.mu.Unlock()
	mine, theirs = map[ref]*sharedItem{}, map[ref]*sharedItem{}
	for _, r := range refs {
		if it, ok := s.items[r]; ok {
			if _, own := mine[r]; !own {
				theirs[r] = it
			}
			continue
		}
		it := &sharedItem{done: make(chan struct{})}
		s.items[r], mine[r] = it, it
	}
	return mine, theirs
}

// readClaimed reads the items claimed in one call; a failed read is
// forgotten, so that whoever needs those items next reads them again.
func (s *Shared) readClaimed(ctx context.Context, mine map[ref]*sharedItem, read func(context.Context, calendar.Keys) (*calendar.Items, error)) {
	if len(mine) == 0 {
		return
	}
	refs := make([]ref, 0, len(mine))
	for r := range mine {
		refs = append(refs, r)
	}
	found, err := read(ctx, keysOf(refs))
	s.mu.Lock()
	for r, it := range mine {
		if it.err = err; err == nil {
			it.value = lookup(found, r)
		} else {
			delete(s.items, r)
		}
		close(it.done)
	}
	s.mu.Unlock()
}

// fillFrom reads refs directly into values.
func fillFrom(ctx context.Context, read func(context.Context, calendar.Keys) (*calendar.Items, error), refs []ref, index map[ref][]int, values []item) error {
	found, err := read(ctx, keysOf(refs))
	if err != nil {
		return err
	}
	for _, r := range refs {
		for _, i := range index[r] {
			values[i] = lookup(found, r)
		}
	}
	return nil
}
