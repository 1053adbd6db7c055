package graph

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"

	"github.com/99designs/gqlgen/graphql"

	"github.com/calgraph/calgraph/internal/calendar"
)

// once runs a mutation's writes under the client's idempotency key, if it
// sent one (see calendar.Once): the mutation and its input, less the key,
// make the fingerprint a replay must match. T is what the writes return,
// kept as JSON for replays.
func once[T any](ctx context.Context, svc calendar.IdempotencyService, key graphql.Omittable[*string], input any,
	call func(context.Context) (T, error)) (T, error) {
	k := key.Value()
	if k == nil {
		if _, set := key.ValueOK(); set {
			var zero T
			return zero, calendar.Invalidf("idempotencyKey", "idempotencyKey cannot be null; omit it")
		}
		return call(ctx)
	}
	return calendar.Once(ctx, svc, *k, fingerprint(ctx, input), call)
}

// fingerprint hashes the mutation's name and its input without the key.
func fingerprint(ctx context.Context, input any) string {
	raw, _ := json.Marshal(input)
	var fields map[string]any
	_ = json.Unmarshal(raw, &fields)
	delete(fields, "idempotencyKey")
	canonical, _ := json.Marshal(fields) // maps marshal with sorted keys
	h := sha256.New()
	h.Write([]byte(graphql.GetFieldContext(ctx).Field.Name + "\n"))
	h.Write(canonical)
	return hex.EncodeToString(h.Sum(nil))
}

// none is the result of writes that return nothing.
type none struct{}
