package dynamo

import (
	"context"
	"slices"
	"sync"

	"golang.org/x/sync/errgroup"

	"github.com/calgraph/calgraph/internal/answercache"
)

// Unchanged implements answercache.Source: whether every read of a read
// set (Record) reads the same now. Its items are read again strongly,
// 100 keys per BatchGetItem, and its Queries sent again, all at once.
func (s *Store) Unchanged(ctx context.Context, set answercache.ReadSet) (bool, error) {
	rs, ok := set.(*ReadSet)
	if !ok || rs.Uncacheable() != "" {
		return false, nil
	}
	rs.mu.Lock()
	keys := make([]itemKey, 0, len(rs.items))
	for k := range rs.items {
		keys = append(keys, k)
	}
	queries := slices.Clone(rs.queries)
	rs.mu.Unlock()

	var mu sync.Mutex
	same := true
	differ := func() {
		mu.Lock()
		defer mu.Unlock()
		same = false
	}
	g, ctx := errgroup.WithContext(ctx)
	if len(keys) > 0 {
		g.Go(func() error {
			found, err := s.batchGet(ctx, keys)
			if err != nil {
				return err
			}
			for _, k := range keys {
				d := digest{}
				if it, ok := found[k]; ok {
					d = digestOf(func(h *hasher) { h.item(it) })
				}
				if d != rs.items[k] { // rs.items is not written once the request ended
					differ()
				}
			}
			return nil
		})
	}
	for _, q := range queries {
		g.Go(func() error {
			in := q.in
			out, err := s.reads.Query(ctx, &in)
			if err != nil {
				return err
			}
			d := digestOf(func(h *hasher) {
				for _, it := range out.Items {
					h.item(it)
				}
				h.str("LEK")
				h.item(out.LastEvaluatedKey)
			})
			if d != q.out {
				differ()
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return false, err
	}
	return same, nil
}
