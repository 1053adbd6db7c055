package dynamo

import (
	"context"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"

	"github.com/calgraph/calgraph/internal/calendar"
)

// idempotencyRecord marks an idempotent request as applied (see
// calendar.Once, which names it and seals its outcome); Outcome is set once
// kept. It expires after the idempotency window: DynamoDB's TTL deletes it
// some time after ExpiresAt (epoch seconds): within days on DynamoDB, within
// a minute of sweeping on the embedded engine, never on DynamoDB Local. So a
// marker past it counts as absent, and every engine behaves alike.
type idempotencyRecord struct {
	PK          string    `dynamodbav:"PK"`
	SK          string    `dynamodbav:"SK"`
	EntityType  string    `dynamodbav:"entityType"`
	Fingerprint string    `dynamodbav:"fingerprint"`
	Outcome     string    `dynamodbav:"outcome,omitempty"`
	CreatedAt   time.Time `dynamodbav:"createdAt"`
	ExpiresAt   int64     `dynamodbav:"expiresAt"`
}

// attrExpiresAt is the table's TTL attribute.
const attrExpiresAt = "expiresAt"

// markerOp returns the put that marks req as applied, carried by the
// request's first write that commits (write.Idempotent, commit).
func (s *Store) markerOp(req *calendar.IdempotentRequest) txOp {
	now := s.timestamp()
	k := idempotencyItemKey(req.Name)
	rec := idempotencyRecord{PK: k.PK, SK: k.SK, EntityType: entityIdempotent, Fingerprint: req.Fingerprint,
		CreatedAt: now, ExpiresAt: now.Add(calendar.IdempotencyWindow + time.Hour).Unix()}
	free := notExists().Or(expression.Name(attrExpiresAt).LessThan(expression.Value(now.Unix())))
	return opPut(k, rec, free, func(item) error { return calendar.ErrReplayed })
}

// markerCommitted records that a transaction that failed ambiguously, and
// so released the marker it carried, was applied after all.
func markerCommitted(ctx context.Context) {
	if req, ok := calendar.IdempotencyOf(ctx); ok {
		req.Claim()
	}
}

// IdempotencyRecord implements calendar.IdempotencyService.
func (s *Store) IdempotencyRecord(ctx context.Context, name string) (*calendar.IdempotencyRecord, error) {
	it, found, err := s.getItem(ctx, idempotencyItemKey(name))
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
	return &calendar.IdempotencyRecord{Fingerprint: r.Fingerprint, Outcome: r.Outcome}, nil
}

// SaveIdempotentResult implements calendar.IdempotencyService.
func (s *Store) SaveIdempotentResult(ctx context.Context, name, outcome string) error {
	set := expression.Set(expression.Name("outcome"), expression.Value(outcome))
	w := newWrite() // carries no marker: it runs once the request has written its own
	w.Update(idempotencyItemKey(name), set, exists(), mustBeNew(calendar.CodeInternal, "idempotency marker vanished"))
	if err := s.commitSmall(ctx, w); err != nil {
		s.log.ErrorContext(ctx, "keeping the outcome of an idempotent request (its replays will answer VERSION_CONFLICT)", "err", err)
		return fmt.Errorf("keep the outcome of request %s: %w", name, err)
	}
	return nil
}
