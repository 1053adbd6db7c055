package live

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/calgraph/calgraph/internal/dynamo"
	"github.com/calgraph/calgraph/internal/dynamotest"
	"github.com/calgraph/calgraph/internal/recurrence"
)

// TestIdlePollCostIsConstant: an instance following 1,000 or 2,000
// calendars' logs in which nothing is written makes the same Queries each
// poll, however many it follows: one per shard of the store's recent
// writes (4), and the sweep's maxSweepPerPoll strongly consistent reads of
// logs, once every log is due for it.
func TestIdlePollCostIsConstant(t *testing.T) {
	const polls = 10
	for _, followed := range []int{1000, 2000} {
		rec := &dynamo.Recorder{}
		db := dynamotest.Client(t, dynamo.WithRecorder(rec))
		store := dynamo.New(db, dynamotest.Table(t, db), recurrence.Engine{})
		h := NewHub(store, DefaultPollInterval, nil)
		clock := time.Now()
		h.now = func() time.Time { return clock }
		for range followed {
			k := FeedKey{ID: uuid.NewString()}
			h.feeds[k] = &feed{key: k, token: store.HeadToken(k.ID, false), subs: map[*subscriber]bool{}}
		}
		watch, ctx := store.WatchWrites(), context.Background()
		poll := func() {
			h.round(ctx, !h.due(ctx, watch))
			clock = clock.Add(h.poll)
		}
		poll()                     // the logs count as read now
		clock = clock.Add(h.sweep) // and are all due for the sweep
		rec.Reset()
		for range polls {
			poll()
		}
		calls := map[string]int{}
		for _, c := range rec.Calls() {
			calls[c.Op+" "+c.Index]++
		}
		want := map[string]int{"Query GSI4": 4 * polls, "Query ": maxSweepPerPoll * polls}
		if len(calls) != len(want) || calls["Query GSI4"] != want["Query GSI4"] || calls["Query "] != want["Query "] {
			t.Errorf("following %d logs, %d idle polls made %v, want %v", followed, polls, calls, want)
		}
	}
}
