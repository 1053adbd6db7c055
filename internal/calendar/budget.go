package calendar

import (
	"context"
	"sync"
)

// Budget bounds what one request may make the server hold: the entries it
// reads from the store and the entries (with their text) it returns, counted
// across all its views, so that aliases and repeated fields cannot multiply a
// view's own limits (MaxViewEntries) into hundreds of megabytes. Reads are
// charged page by page as they arrive, so a request over budget stops reading
// instead of holding what it read. A request's loaders hold it in their
// ReadScope and hand it to the store with each view's read. Safe for
// concurrent use.
type Budget struct {
	maxEntries int
	maxBytes   int64

	mu       sync.Mutex
	read     int
	reserved int           // by reads under way (Reserve)
	settled  chan struct{} // closed and replaced whenever a reservation settles
	returned int
	bytes    int64
	exceeded bool
}

// NewBudget returns a request's budget: at most maxEntries entries read, as
// many returned, and maxBytes bytes of entry text returned.
func NewBudget(maxEntries int, maxBytes int64) *Budget {
	return &Budget{maxEntries: maxEntries, maxBytes: maxBytes, settled: make(chan struct{})}
}

// Reserve reserves, before a store read is sent, up to want entries of b:
// the read asks the store for at most n entries, and settle then counts
// those it got and frees the rest. Reads under way hold their reservations,
// so however many a request sends at once, what they bring back never
// exceeds the budget: a read that finds the budget held by others waits for
// them to settle (or for ctx to end), and one that finds it spent gets the
// CodeTooLarge error. A nil budget (ReadScope without one) reserves nothing
// and n is 0: no bound.
func (b *Budget) Reserve(ctx context.Context, want int) (n int, settle func(got int), err error) {
	if b == nil {
		return 0, func(int) {}, nil
	}
	for {
		b.mu.Lock()
		if b.exceeded {
			b.mu.Unlock()
			return 0, nil, b.TooLarge()
		}
		if free := b.maxEntries - b.read - b.reserved; free > 0 {
			n = min(want, free)
			b.reserved += n
			b.mu.Unlock()
			return n, func(got int) { b.settle(n, got) }, nil
		}
		if b.reserved == 0 { // spent, and nothing under way will give any back
			b.exceeded = true
			b.mu.Unlock()
			return 0, nil, b.TooLarge()
		}
		settled := b.settled
		b.mu.Unlock()
		select {
		case <-settled:
		case <-ctx.Done():
			return 0, nil, ctx.Err()
		}
	}
}

func (b *Budget) settle(reserved, got int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.reserved -= reserved
	b.read += got
	_ = b.check()
	close(b.settled)
	b.settled = make(chan struct{})
}

// ChargeReturned counts n entries returned, with bytes of text, against b;
// a nil budget counts nothing.
func (b *Budget) ChargeReturned(n int, bytes int64) error {
	if b == nil {
		return nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.returned += n
	b.bytes += bytes
	return b.check()
}

// Exceeded reports whether the request went over its budget.
func (b *Budget) Exceeded() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.exceeded
}

// TooLarge is the error of a request over its budget.
func (b *Budget) TooLarge() *Error {
	return Errorf(CodeTooLarge,
		"this request reads or returns more than %d entries or %d bytes of entry text, all its views and aliases together: ask for fewer views or shorter ranges",
		b.maxEntries, b.maxBytes)
}

func (b *Budget) check() error {
	if b.read > b.maxEntries || b.returned > b.maxEntries || b.bytes > b.maxBytes {
		b.exceeded = true
	}
	if b.exceeded {
		return b.TooLarge()
	}
	return nil
}

// TextSize is the size of an entry's text as a response carries it: what
// varies from one entry to another, for ChargeReturned.
func (e *Entry) TextSize() int64 {
	n := len(e.Title) + len(e.Description) + len(e.Location)
	for _, t := range e.Tags {
		n += len(t)
	}
	return int64(n)
}
