package graph

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/99designs/gqlgen/graphql"
	"golang.org/x/sync/semaphore"
)

// marshalConcurrently is graphql.MarshalSliceConcurrently for two elements or
// more — each element on a goroutine of its own, so that fields of sibling
// elements that wait on a loader wait on one batch; a panic recorded as an
// error that makes the list null; at most workerLimit at once if it is
// positive — except that the goroutines are warm workers (warm).
func marshalConcurrently(ctx context.Context, length int, workerLimit int64, omitPanicHandler bool, marshal func(ctx context.Context, i int) graphql.Marshaler) graphql.Array {
	ret := make(graphql.Array, length)
	var wg sync.WaitGroup
	var sem *semaphore.Weighted
	if workerLimit > 0 {
		sem = semaphore.NewWeighted(workerLimit)
	}
	var failed atomic.Bool
	for i := range length {
		fc := &graphql.FieldContext{Index: &i}
		child := graphql.WithFieldContext(ctx, fc)
		if sem != nil {
			if err := sem.Acquire(ctx, 1); err != nil {
				graphql.AddError(child, ctx.Err())
				failed.Store(true)
				break
			}
		}
		wg.Add(1)
		warm.run(func() {
			defer wg.Done()
			if sem != nil {
				defer sem.Release(1)
			}
			if !marshalElement(child, i, ret, omitPanicHandler, marshal) {
				failed.Store(true)
			}
		})
	}
	wg.Wait()
	if failed.Load() {
		return nil
	}
	return ret
}

// warm runs the elements of lists that marshalConcurrently marshals.
var warm = &warmWorkers{work: make(chan func()), maxIdle: 256}

// warmWorkers runs functions on goroutines kept between requests. A list
// element's goroutine runs deep — gqlgen's execution, a loader, the store,
// ddbread's call and net/http — and a new goroutine's stack grew by copying
// (runtime.newstack, copystack) two or three times on the way: about a
// twentieth of a cold week view's CPU, its 20 calendars each on one. A worker
// keeps its grown stack for the next element. The collector still shrinks the
// stacks of idle workers (by half, at each cycle in which one uses less than
// a quarter of its stack), so idle workers cost little memory, and at most
// maxIdle wait for work: a worker that finds that many waiting ends. run
// never waits: with no idle worker, it starts one.
type warmWorkers struct {
	work    chan func() // unbuffered: a send succeeds only to an idle worker
	idle    atomic.Int32
	maxIdle int32
}

func (w *warmWorkers) run(f func()) {
	select {
	case w.work <- f:
	default:
		go w.loop(f)
	}
}

// loop runs f, then whatever run hands it, until maxIdle workers are idle.
func (w *warmWorkers) loop(f func()) {
	for {
		f()
		if w.idle.Add(1) > w.maxIdle {
			w.idle.Add(-1)
			return
		}
		f = <-w.work
		w.idle.Add(-1)
	}
}
