package live

import (
	"cmp"
	"slices"
	"sync"
)

// subscriber receives the reads of the feeds it follows.
type subscriber struct {
	ch      chan batch
	dropped chan struct{} // closed when it fell too far behind
	once    sync.Once

	// While the subscription catches up (Hub.mu), it reads its backlog
	// itself: the Hub does not hand it the reads of the feeds it is behind
	// on (all of them while catchingUp, those of behind after), it notes
	// them in missed, for the subscription to read those logs once more
	// before it takes the Hub's reads of them. Neither the backlog nor the
	// reads made meanwhile count against feedBuffer.
	catchingUp bool
	behind     map[FeedKey]bool
	missed     map[FeedKey]bool
}

func (s *subscriber) drop() { s.once.Do(func() { close(s.dropped) }) }

// hand gives s one read of a log (Hub.mu held).
func (s *subscriber) hand(b batch) {
	if s.catchingUp || s.behind[b.feed] {
		s.missed[b.feed] = true
		return
	}
	select {
	case s.ch <- b:
	default:
		s.drop()
	}
}

// handQuiet gives s a read that found nothing, for its token alone: the
// position of an INVITATION delivery's token is that of the log delivered
// from longest ago (invited.go), and a log without changes would otherwise
// hold it back. Only when nothing waits for s, so it takes no room a read
// with changes needs, and never while s reads the log itself (Hub.mu held).
func (s *subscriber) handQuiet(b batch) {
	if s.catchingUp || s.behind[b.feed] || len(s.ch) > 0 {
		return // s keeps its older token: it only reads more again
	}
	select {
	case s.ch <- b:
	default:
	}
}

// beside runs read, a subscriber's own read of k's log, while no read of
// the Hub's of it runs (see feed.reading). With last, the subscriber is no
// longer behind on k: the Hub's reads of k come after read, and are handed
// to it.
func (h *Hub) beside(k FeedKey, last *subscriber, read func()) {
	h.mu.Lock()
	f := h.feeds[k]
	h.mu.Unlock()
	if f != nil {
		f.reading.RLock()
		defer f.reading.RUnlock()
	}
	if last != nil {
		h.mu.Lock()
		delete(last.behind, k)
		delete(last.missed, k)
		h.mu.Unlock()
	}
	read()
}

// endCatchUp returns the feeds s missed while it caught up: it is behind on
// those alone from now on, and takes the Hub's reads of the others.
func (h *Hub) endCatchUp(s *subscriber) []FeedKey {
	h.mu.Lock()
	defer h.mu.Unlock()
	s.catchingUp = false
	keys := make([]FeedKey, 0, len(s.missed))
	for k := range s.missed {
		s.behind[k] = true
		keys = append(keys, k)
	}
	clear(s.missed)
	slices.SortFunc(keys, func(a, b FeedKey) int {
		return cmp.Or(cmp.Compare(a.ID, b.ID), compareBool(a.User, b.User))
	})
	return keys
}

func compareBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case b:
		return -1
	}
	return 1
}
