package warm

import (
	"context"
	"errors"
	"runtime/metrics"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestWarmWorkersAreReusedAndBounded checks that workers runs work on
// goroutines it started before when they are idle, never waits for one, and
// keeps at most maxIdle of them.
func TestWarmWorkersAreReusedAndBounded(t *testing.T) {
	w := &workers{work: make(chan func()), maxIdle: 4}
	together := func(n int) { // n functions that each wait until all n run: n goroutines at once
		var started, done sync.WaitGroup
		started.Add(n)
		done.Add(n)
		for range n {
			w.run(func() { started.Done(); started.Wait(); done.Done() })
		}
		done.Wait()
	}
	together(8) // run may not wait for a worker: had it, this would never end
	waitIdle(t, w, 4)
	before := goroutinesCreated()
	together(4)
	waitIdle(t, w, 4)
	if created := goroutinesCreated() - before; created != 0 {
		t.Errorf("%d goroutines started for 4 functions while 4 workers were idle, want 0", created)
	}
	together(6)
	waitIdle(t, w, 4)
}

// waitIdle waits until w has want idle workers, and fails if it ever has more.
func waitIdle(t *testing.T, w *workers, want int32) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(time.Millisecond) {
		n := w.idle.Load()
		if n > want {
			t.Fatalf("%d idle workers, want at most %d", n, want)
		}
		if n == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d idle workers after 10 s, want %d", n, want)
		}
	}
}

func goroutinesCreated() uint64 {
	s := []metrics.Sample{{Name: "/sched/goroutines-created:goroutines"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// TestGroupIsErrgroup checks Group against what errgroup promises: every
// function runs, the first error is returned, the context is cancelled by
// it and by Wait, and no more than the limit run at once.
func TestGroupIsErrgroup(t *testing.T) {
	g, ctx := WithContext(context.Background())
	g.SetLimit(3)
	var running, most, ran atomic.Int32
	boom := errors.New("boom")
	for i := range 20 {
		g.Go(func() error {
			n := running.Add(1)
			defer running.Add(-1)
			for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
			}
			time.Sleep(time.Millisecond)
			ran.Add(1)
			if i == 5 {
				return boom
			}
			if i > 5 {
				<-ctx.Done() // cancelled by the error of function 5
			}
			return nil
		})
	}
	if err := g.Wait(); err != boom {
		t.Errorf("Wait returned %v, want %v", err, boom)
	}
	if ran.Load() != 20 || most.Load() > 3 {
		t.Errorf("%d functions ran, at most %d at once; want 20, at most 3", ran.Load(), most.Load())
	}
	if context.Cause(ctx) != boom {
		t.Errorf("the context's cause is %v, want %v", context.Cause(ctx), boom)
	}

	g, ctx = WithContext(context.Background())
	g.Go(func() error { return nil })
	if err := g.Wait(); err != nil || ctx.Err() == nil {
		t.Errorf("a group without errors: Wait returned %v and left the context %v; want nil, cancelled", err, ctx.Err())
	}
}
