package dynamo

import (
	"context"
	"fmt"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/calgraph/calgraph/internal/calendar"
)

// The recent-writes index (GSI4) tells live delivery which logs were written
// lately, whichever instance wrote them (calendar.WriteWatch): the first
// change record of each log in a transaction carries GSI4PK, one of
// recentShards shards chosen by its log (recentShardKey), and GSI4 sorts a
// shard by the records' own sort keys, that is by position. A watch reads
// every shard after a moment, so an idle instance reads recentShards
// Queries a poll whatever the number of logs it follows, and what it reads
// grows with the writes.
//
// The index is a hint, not the log: it is eventually consistent, and
// positions are not commit order (changes.go), so a hint can show up after
// reads that were past its position. Each read therefore goes back
// recentOverlap before the previous one, and every deepReadEvery back the
// whole overlapWindow, remembering the hints it already told. A hint later
// than that (an index lagging by more than 30 s, or a writer of a version
// that wrote none) is never told: live delivery also reads every log it
// follows now and then (package live). Exactness does not rest on the
// index: a log is read from its own token with a strongly consistent Query.
//
// Limits: a GSI partition takes about 1,000 writes a second, so the index
// takes about recentShards × 1,000 hinted logs a second (a write to one
// calendar is one; a membership's two: the calendar's log and the user's);
// past that DynamoDB throttles the index, and with it the writes. One log's
// hints stay in one shard, which its calendar's own partition (1,000 WCU a
// second, 2 per transactional record) keeps below that.

const (
	// recentShards is how many GSI4 partitions the hints are spread over.
	recentShards = 4
	// recentOverlap is how far back of the previous read each read begins:
	// a transaction's time to commit (3 s attempts), the instances' clocks
	// (about a second) and the index's usual lag.
	recentOverlap = 5 * time.Second
	// deepReadEvery is how often a read goes back overlapWindow instead.
	deepReadEvery = 10 * time.Second
	// maxHints bounds the hints one read goes through; past it, the watch
	// cannot tell (a read of every log costs less then).
	maxHints = 10_000
)

// writeWatch implements calendar.WriteWatch on GSI4.
type writeWatch struct {
	s        *Store
	last     time.Time        // the moment of the previous read
	deep     time.Time        // the moment of the previous deep read
	told     map[string]int64 // hints told, by PK and SK, with their positions
	maxHints int              // maxHints (tests lower it)
}

// WatchWrites returns a new calendar.WriteWatch of the table's recent writes.
func (s *Store) WatchWrites() calendar.WriteWatch {
	return &writeWatch{s: s, told: map[string]int64{}, maxHints: maxHints}
}

// Written implements calendar.WriteWatch.
func (w *writeWatch) Written(ctx context.Context) ([]calendar.LogRef, bool, error) {
	now := w.s.clock.readNow()
	from, gap := now.Add(-overlapWindow), !w.last.IsZero() && w.last.Add(-recentOverlap).Before(now.Add(-overlapWindow))
	deep := w.last.IsZero() || now.Sub(w.deep) >= deepReadEvery
	if !deep {
		from = w.last.Add(-recentOverlap)
	}
	hints, err := w.read(ctx, from.UnixMicro())
	if err != nil {
		return nil, false, err
	}
	if len(hints) > w.maxHints {
		w.last, w.deep = now, now
		return nil, true, nil
	}
	var logs []calendar.LogRef
	have := map[calendar.LogRef]bool{}
	for _, h := range hints {
		if _, ok := w.told[h.key]; ok {
			continue
		}
		w.told[h.key] = h.pos
		if l := logOf(h.partition); !have[l] {
			have[l] = true
			logs = append(logs, l)
		}
	}
	w.last = now
	if deep {
		w.deep = now
	}
	for k, pos := range w.told { // no read goes back that far again
		if pos <= now.Add(-overlapWindow).UnixMicro() {
			delete(w.told, k)
		}
	}
	return logs, gap, nil
}

// hint is one record of GSI4.
type hint struct {
	key       string // its PK and SK
	partition string
	pos       int64
}

// read reads every shard's hints after position from, at once.
func (w *writeWatch) read(ctx context.Context, from int64) ([]hint, error) {
	var mu sync.Mutex
	var hints []hint
	g, gctx := errgroup.WithContext(ctx)
	for n := range recentShards {
		g.Go(func() error {
			got, err := w.readShard(gctx, recentShard(n), from)
			mu.Lock()
			defer mu.Unlock()
			hints = append(hints, got...)
			return err
		})
	}
	return hints, g.Wait()
}

// readShard reads one shard's hints after position from, at most past
// maxHints.
func (w *writeWatch) readShard(ctx context.Context, shard string, from int64) ([]hint, error) {
	lo, hi := changesAfter(from)
	in := keyQuery{index: indexGSI4, pkAttr: attrGSI4PK, partition: shard, sk: skBetween(attrSK, lo, hi),
		projection: []string{attrPK, attrSK}}.input(w.s.table)
	var hints []hint
	for {
		out, err := w.s.reads.Query(ctx, in)
		if err != nil {
			return hints, fmt.Errorf("read recent writes %s: %w", shard, err)
		}
		for _, it := range out.Items {
			pk, sk := stringAttr(it, attrPK), stringAttr(it, attrSK)
			r, err := parseChangeKey(sk)
			if err != nil {
				return hints, err
			}
			hints = append(hints, hint{key: pk + "\x00" + sk, partition: pk, pos: r.pos})
		}
		if len(out.LastEvaluatedKey) == 0 || len(hints) > w.maxHints {
			return hints, nil
		}
		in.ExclusiveStartKey = out.LastEvaluatedKey
	}
}
