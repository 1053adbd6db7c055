package dynamo

import (
	"context"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"

	"github.com/calgraph/calgraph/internal/calendar"
)

// idempotencyRecord marks a user's idempotent request as applied; Result is
// what it returned, once calendar.Once has kept it. It expires after the
// idempotency window: DynamoDB's TTL deletes it some time after ExpiresAt
// (epoch seconds), and a marker past it counts as absent everywhere, so the
// embedded engine, which has no TTL, behaves alike.
type idempotencyRecord struct {
	PK          string    `dynamodbav:"PK"`
	SK          string    `dynamodbav:"SK"`
	EntityType  string    `dynamodbav:"entityType"`
	UserID      string    `dynamodbav:"userId"`
	Fingerprint string    `dynamodbav:"fingerprint"`
	Result      string    `dynamodbav:"result,omitempty"`
	CreatedAt   time.Time `dynamodbav:"createdAt"`
	ExpiresAt   int64     `dynamodbav:"expiresAt"`
}

// attrExpiresAt is the table's TTL attribute.
const attrExpiresAt = "expiresAt"

// idempotencyMarker returns the action that marks the request ctx carries as
// applied, for the first transaction of that request only.
func (s *Store) idempotencyMarker(ctx context.Context) (txOp, bool) {
	req, ok := calendar.IdempotencyOf(ctx)
	if !ok || !req.Claim() {
		return txOp{}, false
	}
	viewer, err := calendar.ViewerID(ctx)
	if err != nil {
		return txOp{err: err}, true
	}
	now := s.timestamp()
	k := idempotencyItemKey(viewer, req.Key)
	rec := idempotencyRecord{PK: k.PK, SK: k.SK, EntityType: entityIdempotent, UserID: viewer, Fingerprint: req.Fingerprint,
		CreatedAt: now, ExpiresAt: now.Add(calendar.IdempotencyWindow + time.Hour).Unix()}
	free := notExists().Or(expression.Name(attrExpiresAt).LessThan(expression.Value(now.Unix())))
	return opPut(k, rec, free, func(item) error { return calendar.ErrReplayed }), true
}

// IdempotencyRecord implements calendar.IdempotencyService.
func (s *Store) IdempotencyRecord(ctx context.Context, key string) (*calendar.IdempotencyRecord, error) {
	viewer, err := calendar.ViewerID(ctx)
	if err != nil {
		return nil, err
	}
	it, found, err := s.getItem(ctx, idempotencyItemKey(viewer, key))
	if err != nil {
		return nil, err
	}
	var r idempotencyRecord
	if found {
		if r, err = unmarshal[idempotencyRecord](it); err != nil {
			return nil, err
		}
	}
	if !found || r.ExpiresAt < s.now().Unix() {
		return nil, calendar.Errorf(calendar.CodeNotFound, "no request with this idempotency key")
	}
	out := &calendar.IdempotencyRecord{Fingerprint: r.Fingerprint}
	if r.Result != "" {
		out.Result = []byte(r.Result)
	}
	return out, nil
}

// SaveIdempotentResult implements calendar.IdempotencyService.
func (s *Store) SaveIdempotentResult(ctx context.Context, key string, result []byte) error {
	viewer, err := calendar.ViewerID(ctx)
	if err != nil {
		return err
	}
	set := expression.Set(expression.Name("result"), expression.Value(string(result)))
	op := opUpdate(idempotencyItemKey(viewer, key), set, exists(), mustBeNew(calendar.CodeInternal, "idempotency marker vanished"))
	if err := s.write(ctx, op); err != nil {
		return fmt.Errorf("keep the result of request %q: %w", key, err)
	}
	return nil
}
