package live

import (
	"context"
	"slices"
	"time"

	"github.com/calgraph/calgraph/internal/calendar"
)

// maxSweepPerPoll bounds the logs the sweep reads in one poll interval, so
// that what an idle instance reads does not grow with the logs it follows.
const maxSweepPerPoll = 8

// Option configures a Hub.
type Option func(*Hub)

// WithSweep sets how often, at most, the Hub reads every log it follows
// whether or not the recent writes named it (DefaultSweepInterval).
func WithSweep(d time.Duration) Option {
	return func(h *Hub) {
		if d > 0 {
			h.sweep = d
		}
	}
}

// due marks the feeds to read this poll: those whose logs watch names, and
// the sweep's. It returns true when every feed is to be read instead: the
// watch could not tell which logs were written.
func (h *Hub) due(ctx context.Context, watch calendar.WriteWatch) (everything bool) {
	if h.Feeds() == 0 {
		return false // nothing to learn; a feed joining later starts from now
	}
	logs, everything, err := watch.Written(ctx)
	switch {
	case err != nil && ctx.Err() == nil:
		if !h.watchFailed.Load() {
			h.log.WarnContext(ctx, "reading the recent writes failed: live delivery reads every followed log each poll until it works "+
				"(a table without the index GSI4 gets it from `calgraph init-table`)", "err", err)
		}
		h.watchFailed.Store(true)
		return true
	case err != nil:
		return false
	case h.watchFailed.Load():
		h.log.InfoContext(ctx, "reading the recent writes works again: live delivery reads the followed logs they name")
		h.watchFailed.Store(false)
	}
	if everything {
		return true
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, l := range logs {
		if f := h.feeds[l]; f != nil {
			f.dirty, f.swept = true, false
		}
	}
	h.markSweep()
	return false
}

// markSweep marks the feeds not read for a sweep interval, the longest
// unread first: as many as read every feed once a sweep interval, at most
// maxSweepPerPoll. A feed first seen counts as read now (it started from a
// fresh token). Called with h.mu held.
func (h *Hub) markSweep() {
	now := h.now()
	var stale []*feed
	for _, f := range h.feeds {
		switch {
		case f.read.IsZero():
			f.read = now
		case !f.dirty && now.Sub(f.read) >= h.sweep:
			stale = append(stale, f)
		}
	}
	n := min(maxSweepPerPoll, (len(h.feeds)*int(h.poll)+int(h.sweep)-1)/int(h.sweep), len(stale))
	slices.SortFunc(stale, func(a, b *feed) int { return a.read.Compare(b.read) })
	for _, f := range stale[:n] {
		f.dirty, f.swept = true, true
	}
}
