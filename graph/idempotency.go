package graph

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"maps"

	"github.com/99designs/gqlgen/graphql"

	"github.com/calgraph/calgraph/internal/calendar"
	"github.com/calgraph/calgraph/internal/loader"
)

// once runs a mutation's writes under the client's idempotency key, if it
// sent one (see calendar.Once): the mutation and its arguments, less the key,
// make the fingerprint a replay must match. T is what the writes return,
// kept as JSON for replays.
func once[T any](ctx context.Context, svc calendar.IdempotencyService, key graphql.Omittable[*string],
	call func(context.Context) (T, error)) (T, error) {
	k := key.Value()
	if k == nil {
		if _, set := key.ValueOK(); set {
			var zero T
			return zero, calendar.Invalidf("idempotencyKey", "idempotencyKey cannot be null; omit it")
		}
		return call(ctx)
	}
	v, err := calendar.Once(ctx, svc, *k, fingerprint(ctx), call)
	if calendar.ErrorCode(err) == calendar.CodeOutcomeUnknown {
		err = &keyedWrite{err}
	}
	return v, err
}

// keyedWrite marks a write of unknown outcome that carried an idempotency
// key: sending the mutation again with the same key and input applies it at
// most once (a replay finds the first attempt's marker), so the client is
// told that a retry is safe (`extensions.retrySafe`).
type keyedWrite struct{ error }

func (k *keyedWrite) Unwrap() error { return k.error }

// fingerprint hashes the mutation's name and its arguments as the client
// sent them (with variables substituted), without the idempotency key: an
// omitted field and an explicit null differ, as they do in effect.
func fingerprint(ctx context.Context) string {
	fc := graphql.GetFieldContext(ctx)
	args := fc.Field.ArgumentMap(graphql.GetOperationContext(ctx).Variables)
	if in, ok := args["input"].(map[string]any); ok { // maybe the request's own variable: not to be changed
		in = maps.Clone(in)
		delete(in, "idempotencyKey")
		args["input"] = in
	}
	canonical, _ := json.Marshal(args) // maps marshal with sorted keys
	h := sha256.New()
	h.Write([]byte(fc.Field.Name + "\n"))
	h.Write(canonical)
	return hex.EncodeToString(h.Sum(nil))
}

// onceOn is once for writes that also return the calendar they authorized
// against (the store's access check read it just before): the request's
// loaders take it, so that the payload shows the calendar without reading it
// again. The calendar is not kept for replays; a replay primes the one its
// own access check read.
func onceOn[T any](ctx context.Context, svc calendar.IdempotencyService, key graphql.Omittable[*string],
	call func(context.Context) (T, *calendar.Calendar, error)) (T, error) {
	var authorized *calendar.Calendar
	v, err := once(ctx, svc, key, func(ctx context.Context) (T, error) {
		v, cal, err := call(ctx)
		authorized = cal
		return v, err
	})
	if err == nil && authorized != nil {
		loader.For(ctx).PrimeCalendar(ctx, authorized)
	}
	return v, err
}

// none is the result of writes that return nothing.
type none struct{}

// onceDo is once for a write that returns nothing but its error.
func onceDo(ctx context.Context, svc calendar.IdempotencyService, key graphql.Omittable[*string], call func(context.Context) error) error {
	_, err := once(ctx, svc, key, func(ctx context.Context) (none, error) { return none{}, call(ctx) })
	return err
}
