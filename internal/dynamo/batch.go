package dynamo

import (
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"golang.org/x/sync/errgroup"
)

// DynamoDB's per-call limits, and how many batch calls run at once.
const (
	batchGetLimit    = 100
	batchWriteLimit  = 25
	batchConcurrency = 16
)

// batchGet reads items by key with strongly consistent BatchGetItem calls. Keys are
// deduplicated and sent in chunks of 100, concurrently, so n keys cost ⌈n/100⌉
// calls in one wave. Keys DynamoDB leaves unprocessed are re-sent with backoff.
// Items that do not exist are absent from the result; DynamoDB does not keep
// order, so results are returned by key.
func (s *Store) batchGet(ctx context.Context, keys []itemKey) (map[itemKey]item, error) {
	unique := dedupe(keys)
	found := make(map[itemKey]item, len(unique))
	if len(unique) == 0 {
		return found, nil
	}
	if len(unique) <= batchGetLimit { // one call, the usual case: no goroutine for it
		items, err := s.batchGetChunk(ctx, unique)
		if err != nil {
			return nil, err
		}
		for _, it := range items {
			found[keyOf(it)] = it
		}
		return found, nil
	}
	var mu sync.Mutex
	g, ctx := errgroup.WithContext(ctx)
	g.SetLimit(batchConcurrency)
	for chunk := range slices.Chunk(unique, batchGetLimit) {
		g.Go(func() error {
			items, err := s.batchGetChunk(ctx, chunk)
			mu.Lock()
			defer mu.Unlock()
			for _, it := range items {
				found[keyOf(it)] = it
			}
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	return found, nil
}

func (s *Store) batchGetChunk(ctx context.Context, keys []itemKey) ([]item, error) {
	avs := make([]item, len(keys))
	for i, k := range keys {
		avs[i] = k.av()
	}
	request := map[string]types.KeysAndAttributes{s.table: {Keys: avs, ConsistentRead: aws.Bool(true)}}
	var items []item
	for attempt := 1; ; attempt++ {
		out, err := s.reads.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{RequestItems: request})
		if err != nil {
			return items, fmt.Errorf("batch get %d keys: %w", len(keys), err)
		}
		items = append(items, out.Responses[s.table]...)
		if len(out.UnprocessedKeys[s.table].Keys) == 0 {
			return items, nil
		}
		if attempt == maxAttempts {
			return items, fmt.Errorf("batch get: %d keys still unprocessed after %d attempts", len(out.UnprocessedKeys[s.table].Keys), attempt)
		}
		if err := sleep(ctx, backoff(attempt)); err != nil {
			return items, fmt.Errorf("batch get: %w", err)
		}
		request = out.UnprocessedKeys
	}
}

// batchWrite applies puts and deletes with BatchWriteItem, 25 per call, a few
// calls at a time, re-sending unprocessed items with backoff. It is not atomic:
// callers use it where each item stands alone (import, clean-up).
func (s *Store) batchWrite(ctx context.Context, writes []types.WriteRequest) error {
	g, ctx := errgroup.WithContext(ctx)
	g.SetLimit(4)
	for chunk := range slices.Chunk(writes, batchWriteLimit) {
		g.Go(func() error { return s.batchWriteChunk(ctx, chunk) })
	}
	return g.Wait()
}

func (s *Store) batchWriteChunk(ctx context.Context, writes []types.WriteRequest) error {
	request := map[string][]types.WriteRequest{s.table: writes}
	for attempt := 1; ; attempt++ {
		out, err := s.db.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: request})
		if err != nil {
			return fmt.Errorf("batch write %d items: %w", len(writes), err)
		}
		if len(out.UnprocessedItems[s.table]) == 0 {
			return nil
		}
		if attempt == maxAttempts {
			return fmt.Errorf("batch write: %d items still unprocessed after %d attempts", len(out.UnprocessedItems[s.table]), attempt)
		}
		if err := sleep(ctx, backoff(attempt)); err != nil {
			return fmt.Errorf("batch write: %w", err)
		}
		request = out.UnprocessedItems
	}
}

func dedupe[K comparable](keys []K) []K {
	seen := make(map[K]bool, len(keys))
	out := make([]K, 0, len(keys))
	for _, k := range keys {
		if !seen[k] {
			seen[k] = true
			out = append(out, k)
		}
	}
	return out
}

// writeUnconditionally applies the puts and deletes of ops with
// BatchWriteItem, ignoring their conditions: for items nothing reads yet, or
// any more (see applySeriesEdit).
func (s *Store) writeUnconditionally(ctx context.Context, ops []txOp) error {
	writes := make([]types.WriteRequest, 0, len(ops))
	for _, op := range ops {
		switch {
		case op.err != nil:
			return op.err
		case op.action.Put != nil:
			writes = append(writes, types.WriteRequest{PutRequest: &types.PutRequest{Item: op.action.Put.Item}})
		case op.action.Delete != nil:
			writes = append(writes, types.WriteRequest{DeleteRequest: &types.DeleteRequest{Key: op.action.Delete.Key}})
		default:
			return fmt.Errorf("write %s/%s: only puts and deletes can be batched", op.key.PK, op.key.SK)
		}
	}
	return s.batchWrite(ctx, writes)
}
