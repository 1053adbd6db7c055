package calendar

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync/atomic"
	"time"
	"unicode"
)

// Idempotent mutations: a client may send a mutation with a key of its own
// choosing and send it again, as often as it likes, for at least
// IdempotencyWindow; the first one that lands is applied, and every other
// answers with its result. The store writes a marker for (viewer, key) in the
// same transaction as the mutation's effect, conditioned on there being none,
// so two attempts can never both apply; Once then keeps the result with the
// marker for the attempts that come after.

// IdempotencyWindow is how long a key is remembered at least.
const IdempotencyWindow = 24 * time.Hour

// MaxIdempotencyKeyLength bounds a client's idempotency key.
const MaxIdempotencyKeyLength = 100

// ErrReplayed is what a store returns when a mutation's marker exists
// already: another attempt with the same key was applied first.
var ErrReplayed = errors.New("a request with this idempotency key was applied already")

// IdempotentRequest is a mutation sent with an idempotency key.
type IdempotentRequest struct {
	Key         string
	Fingerprint string // identifies the mutation and its input
	claimed     atomic.Bool
}

// Claim reports whether the caller is the first to ask: the store writes the
// marker with the request's first transaction only.
func (r *IdempotentRequest) Claim() bool { return r.claimed.CompareAndSwap(false, true) }

type idempotencyKey struct{}

// IdempotencyOf returns the idempotent request ctx carries, if any.
func IdempotencyOf(ctx context.Context) (*IdempotentRequest, bool) {
	r, ok := ctx.Value(idempotencyKey{}).(*IdempotentRequest)
	return r, ok
}

// IdempotencyRecord is what a store keeps of an applied idempotent request.
type IdempotencyRecord struct {
	Fingerprint string
	Result      []byte // JSON; nil until Once has saved it
}

// IdempotencyService keeps the records of idempotent requests, per viewer.
type IdempotencyService interface {
	// IdempotencyRecord returns the viewer's record for key. Errors:
	// CodeNotFound when there is none.
	IdempotencyRecord(ctx context.Context, key string) (*IdempotencyRecord, error)

	// SaveIdempotentResult keeps the result of the viewer's request with key.
	SaveIdempotentResult(ctx context.Context, key string, result []byte) error
}

// ValidateIdempotencyKey checks a client's key: 1 to 100 printable ASCII
// characters.
func ValidateIdempotencyKey(key string) error {
	if key == "" || len(key) > MaxIdempotencyKeyLength {
		return Invalidf("idempotencyKey", "idempotencyKey must be 1 to %d characters", MaxIdempotencyKeyLength)
	}
	for _, r := range key {
		if r > unicode.MaxASCII || !unicode.IsPrint(r) {
			return Invalidf("idempotencyKey", "idempotencyKey must be printable ASCII")
		}
	}
	return nil
}

// replayWait is how long Once waits for the result of an attempt that landed
// first but has not kept its result yet.
const replayWait = 5 * time.Second

// Once runs call as the mutation the key names: the first time it applies
// it; afterwards, and for concurrent attempts that lose the race, it returns
// the result of the one that was applied. A key sent again with another
// mutation or input is refused. An empty key runs call as it is. Errors:
// call's, CodeInvalid (a bad or reused key), CodeVersionConflict (the first
// attempt was applied but did not finish: its result is unknown).
func Once[T any](ctx context.Context, svc IdempotencyService, key, fingerprint string, call func(context.Context) (T, error)) (T, error) {
	var zero T
	if key == "" {
		return call(ctx)
	}
	if err := ValidateIdempotencyKey(key); err != nil {
		return zero, err
	}
	if v, found, err := replay[T](ctx, svc, key, fingerprint, replayWait); found || err != nil {
		return v, err
	}
	req := &IdempotentRequest{Key: key, Fingerprint: fingerprint}
	v, err := call(context.WithValue(ctx, idempotencyKey{}, req))
	if err != nil {
		// Whatever failed, an attempt that landed first answers for this one.
		if prior, found, rerr := replay[T](ctx, svc, key, fingerprint, replayWait); found {
			return prior, rerr
		}
		return zero, err
	}
	if req.claimed.Load() { // the marker was written: keep the result with it
		result, merr := json.Marshal(v)
		if merr == nil {
			merr = svc.SaveIdempotentResult(ctx, key, result)
		}
		if merr != nil {
			return zero, fmt.Errorf("keep the result of idempotent request: %w", merr)
		}
	}
	return v, nil
}

// replay returns the result of an earlier attempt with key, waiting up to
// wait for it to be kept; found is false when there was none.
func replay[T any](ctx context.Context, svc IdempotencyService, key, fingerprint string, wait time.Duration) (v T, found bool, err error) {
	deadline := time.Now().Add(wait)
	for {
		rec, err := svc.IdempotencyRecord(ctx, key)
		if ErrorCode(err) == CodeNotFound {
			return v, false, nil
		}
		if err != nil {
			return v, false, err
		}
		if rec.Fingerprint != fingerprint {
			return v, true, Invalidf("idempotencyKey", "this idempotencyKey was used for another mutation or input")
		}
		if rec.Result != nil {
			return v, true, json.Unmarshal(rec.Result, &v)
		}
		if time.Now().After(deadline) {
			return v, true, Errorf(CodeVersionConflict,
				"the request first sent with this idempotencyKey was applied but did not finish: read the data again to see its effect")
		}
		select {
		case <-ctx.Done():
			return v, true, ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}
