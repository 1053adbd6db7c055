package graph

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/99designs/gqlgen/graphql"
	"golang.org/x/sync/semaphore"

	"github.com/calgraph/calgraph/internal/warm"
)

// marshalConcurrently is graphql.MarshalSliceConcurrently for two elements or
// more — each element on a goroutine of its own, so that fields of sibling
// elements that wait on a loader wait on one batch; a panic recorded as an
// error that makes the list null; at most workerLimit at once if it is
// positive — except that the goroutines are warm workers (internal/warm),
// whose stacks have grown already.
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
		warm.Go(func() {
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
