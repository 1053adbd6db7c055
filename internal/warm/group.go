package warm

import (
	"context"
	"sync"
)

// Group is errgroup.Group on warm workers: functions run concurrently, the
// first error is kept, and the context WithContext returns is cancelled when
// one fails or when Wait returns. Only what calgraph's loaders use is here
// (WithContext, SetLimit, Go, Wait).
type Group struct {
	cancel func(error)
	wg     sync.WaitGroup
	sem    chan struct{}
	once   sync.Once
	err    error
}

// WithContext returns a Group and a context derived from ctx, cancelled when
// a function of the group fails or when Wait returns.
func WithContext(ctx context.Context) (*Group, context.Context) {
	ctx, cancel := context.WithCancelCause(ctx)
	return &Group{cancel: cancel}, ctx
}

// SetLimit bounds the functions running at once to n (n > 0); Go waits for
// room. Call it before Go.
func (g *Group) SetLimit(n int) { g.sem = make(chan struct{}, n) }

// Go runs f on a warm worker, after waiting for room under the limit.
func (g *Group) Go(f func() error) {
	if g.sem != nil {
		g.sem <- struct{}{}
	}
	g.wg.Add(1)
	Go(func() {
		defer g.wg.Done()
		if g.sem != nil {
			defer func() { <-g.sem }()
		}
		if err := f(); err != nil {
			g.once.Do(func() {
				g.err = err
				if g.cancel != nil {
					g.cancel(err)
				}
			})
		}
	})
}

// Wait waits for every function, cancels the group's context, and returns
// the first error.
func (g *Group) Wait() error {
	g.wg.Wait()
	if g.cancel != nil {
		g.cancel(g.err)
	}
	return g.err
}
