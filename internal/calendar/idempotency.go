package calendar

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"
	"unicode"
)

// Idempotent mutations: a client may send a mutation with a key of its own
// choosing and send it again, as often as it likes, for at least
// IdempotencyWindow; the first one that lands is applied, and every other
// answers as it did. The store writes a marker for (signed-in person, key) in
// the same transaction as the mutation's first effect, conditioned on there
// being none, so two attempts can never both apply; Once then keeps the
// outcome with the marker for the attempts that come after.
//
// The marker is named by a hash of the key and the person's sign-in identity
// (not their user ID, so that replaying deleteAccount after the identity
// signed up again does not delete the new account), and the outcome is kept
// encrypted under a key derived from the client's key, which the store never
// sees: results that hold secrets (an invitation's token, a feed's URL) are
// not readable from the table. Clients should use random keys (UUIDs).
//
// An outcome is the mutation's result, or the error it stopped with once its
// first transaction had committed (a partial import, a series change cut off
// midway): a replay answers with the same, since applying it again could
// apply part of it twice.

// IdempotencyWindow is how long a key is remembered at least.
const IdempotencyWindow = 24 * time.Hour

// MaxIdempotencyKeyLength bounds a client's idempotency key.
const MaxIdempotencyKeyLength = 100

// ErrReplayed is what a store returns when a mutation's marker exists
// already: another attempt with the same key was applied first.
var ErrReplayed = errors.New("a request with this idempotency key was applied already")

// IdempotentRequest is a mutation sent with an idempotency key, as a store
// sees it.
type IdempotentRequest struct {
	Name        string // the marker's name: a hash of the key and its owner
	Fingerprint string // identifies the mutation and its input

	mu      sync.Mutex
	claimed bool
	after   []func(context.Context)
}

// Claim reports whether the caller is to write the marker: the store writes
// it with the request's first transaction, and with the next one again if
// that one did not commit (Release).
func (r *IdempotentRequest) Claim() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.claimed {
		return false
	}
	r.claimed = true
	return true
}

// Release hands the marker back after the transaction that carried it did
// not commit (or may not have: then the next one finds the marker, and the
// request answers that its outcome is unknown). Claim takes it again when
// such a transaction turns out to have committed.
func (r *IdempotentRequest) Release() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.claimed = false
}

// Marked reports whether a transaction carrying the marker has committed.
func (r *IdempotentRequest) Marked() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.claimed
}

type idempotencyKey struct{}

// IdempotencyOf returns the idempotent request ctx carries, if any.
func IdempotencyOf(ctx context.Context) (*IdempotentRequest, bool) {
	r, _ := ctx.Value(idempotencyKey{}).(*IdempotentRequest)
	return r, r != nil
}

// AfterResult runs work that finishes a mutation but does not change its
// result (removing a deleted calendar's items, say) once the result is
// known: under an idempotency key, after the result is kept, so that a retry
// meanwhile gets it rather than waiting; otherwise at once. work gets a
// context without the idempotent request.
func AfterResult(ctx context.Context, work func(context.Context)) {
	if r, ok := IdempotencyOf(ctx); ok {
		r.mu.Lock()
		defer r.mu.Unlock()
		r.after = append(r.after, work)
		return
	}
	work(ctx)
}

// IdempotencyRecord is what a store keeps of an applied idempotent request.
type IdempotencyRecord struct {
	Fingerprint string
	Outcome     string // sealed; "" until Once has kept it
}

// IdempotencyService keeps the records of idempotent requests by name.
type IdempotencyService interface {
	// IdempotencyRecord returns the record named name. Errors: CodeNotFound
	// when there is none (or it expired).
	IdempotencyRecord(ctx context.Context, name string) (*IdempotencyRecord, error)

	// SaveIdempotentResult keeps the sealed outcome of the request named name.
	SaveIdempotentResult(ctx context.Context, name, outcome string) error
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

// replayWait is how long Once waits for the outcome of an attempt that
// landed first but has not kept it yet.
const replayWait = 5 * time.Second

// replayMargin is the time left before a request's deadline when a replay
// stops waiting and answers that the first attempt did not finish.
const replayMargin = 250 * time.Millisecond

// Once runs call as the mutation the key names: the first time it applies
// it; afterwards, and for concurrent attempts that lose the race, it answers
// as the one that was applied did. A key sent again with another mutation or
// input is refused. An empty key runs call as it is. Errors: call's,
// CodeInvalid (a bad or reused key), CodeVersionConflict (the first attempt
// was applied but its outcome was not kept).
func Once[T any](ctx context.Context, svc IdempotencyService, key, fingerprint string, call func(context.Context) (T, error)) (T, error) {
	var zero T
	if key == "" {
		return call(ctx)
	}
	if err := ValidateIdempotencyKey(key); err != nil {
		return zero, err
	}
	k, err := newSealedKey(ctx, key)
	if err != nil {
		return zero, err
	}
	// The call goes first, unread: its first write carries the marker, which
	// fails if an earlier attempt's is there. So a first attempt costs no
	// read, and a replay, which finds its write refused or nothing to do, is
	// answered from the marker.
	req := &IdempotentRequest{Name: k.name, Fingerprint: fingerprint}
	v, err := call(context.WithValue(ctx, idempotencyKey{}, req))
	defer req.runAfter(context.WithValue(ctx, idempotencyKey{}, (*IdempotentRequest)(nil)))
	if code := ErrorCode(err); !req.Marked() && (code == CodeOutcomeUnknown || code == CodeUnavailable) {
		// The store did not answer. Asking it for an earlier attempt's
		// outcome would wait out the request's deadline; and if the write
		// carrying the marker was sent, the marker may be this attempt's own,
		// with no outcome ever kept. A retry with the key finds out.
		return v, err
	}
	if !req.Marked() {
		// Nothing was applied; an attempt that landed first answers for this one.
		if prior, found, rerr := replay[T](ctx, svc, k, fingerprint, replayWait); found {
			return prior, rerr
		}
		return v, err
	}
	if sealed, serr := k.seal(v, err); serr == nil {
		// Kept even when the client has hung up: that is when it retries.
		// Failing to keep it loses nothing: replays will answer that the
		// outcome is unknown. The store logs why.
		keep, cancel := context.WithTimeout(context.WithoutCancel(ctx), keepTimeout)
		defer cancel()
		_ = svc.SaveIdempotentResult(keep, k.name, sealed)
	}
	return v, err
}

// keepTimeout bounds keeping an outcome once the request's own context is
// done.
const keepTimeout = 10 * time.Second

// runAfter runs the work AfterResult put off.
func (r *IdempotentRequest) runAfter(ctx context.Context) {
	r.mu.Lock()
	after := r.after
	r.after = nil
	r.mu.Unlock()
	for _, work := range after {
		work(ctx)
	}
}

// replay answers with the outcome of an earlier attempt, waiting up to wait
// for it to be kept; found is false only when there was none (a record that
// cannot be read answers with the read's error).
func replay[T any](ctx context.Context, svc IdempotencyService, k sealedKey, fingerprint string, wait time.Duration) (v T, found bool, err error) {
	deadline := time.Now().Add(wait)
	if end, ok := ctx.Deadline(); ok && end.Add(-replayMargin).Before(deadline) {
		deadline = end.Add(-replayMargin) // answer before the request's own deadline
	}
	for {
		rec, err := svc.IdempotencyRecord(ctx, k.name)
		if ErrorCode(err) == CodeNotFound {
			return v, false, nil
		}
		if err != nil {
			// The earlier attempt's record cannot be read (the store did
			// not answer in time): this attempt's own outcome is that error,
			// never the refusal of its marker, which says nothing a client
			// can act on.
			return v, true, err
		}
		if rec.Fingerprint != fingerprint {
			return v, true, Invalidf("idempotencyKey", "this idempotencyKey was used for another mutation or input")
		}
		if rec.Outcome != "" {
			v, err := open[T](k, rec.Outcome)
			return v, true, err
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

// sealedKey is what a client's key gives: the marker's name, and the
// encryption key of its outcome.
type sealedKey struct {
	name string
	aead cipher.AEAD
}

func newSealedKey(ctx context.Context, key string) (sealedKey, error) {
	owner, err := idempotencyOwner(ctx)
	if err != nil {
		return sealedKey{}, err
	}
	h := sha256.Sum256([]byte("calgraph idempotency marker\n" + owner + "\n" + key))
	secret, err := hkdf.Key(sha256.New, []byte(key), []byte(owner), "calgraph idempotent outcome", 32)
	if err != nil {
		return sealedKey{}, fmt.Errorf("derive outcome key: %w", err)
	}
	block, err := aes.NewCipher(secret)
	if err != nil {
		return sealedKey{}, err
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return sealedKey{}, err
	}
	return sealedKey{name: hex.EncodeToString(h[:]), aead: aead}, nil
}

// idempotencyOwner names whose keys a request's are: the sign-in identity,
// or without one (internal callers, tests) the user.
func idempotencyOwner(ctx context.Context) (string, error) {
	if id := ViewerOf(ctx).Identity; id != (Identity{}) {
		return "identity\n" + id.Provider + "\n" + id.Subject, nil
	}
	viewer, err := ViewerID(ctx)
	if err != nil {
		return "", err
	}
	return "user\n" + viewer, nil
}

// outcome is what a replay answers: a result, or the error the first
// attempt stopped with after it had applied something.
type outcome struct {
	Value json.RawMessage `json:"value,omitempty"`
	Error *Error          `json:"error,omitempty"`
}

func (k sealedKey) seal(v any, err error) (string, error) {
	var o outcome
	raw, merr := json.Marshal(v)
	if merr != nil {
		return "", merr
	}
	o.Value = raw
	if err != nil {
		if de, ok := errors.AsType[*Error](err); ok {
			o.Error = de
		} else {
			o.Error = Errorf(CodeInternal, "the request first sent with this idempotencyKey failed partway")
		}
	}
	plain, merr := json.Marshal(o)
	if merr != nil {
		return "", merr
	}
	nonce := make([]byte, k.aead.NonceSize())
	_, _ = rand.Read(nonce)
	return base64.StdEncoding.EncodeToString(k.aead.Seal(nonce, nonce, plain, nil)), nil
}

func open[T any](k sealedKey, sealed string) (T, error) {
	var v T
	raw, err := base64.StdEncoding.DecodeString(sealed)
	if err != nil || len(raw) < k.aead.NonceSize() {
		return v, fmt.Errorf("kept outcome is not sealed: %w", err)
	}
	plain, err := k.aead.Open(nil, raw[:k.aead.NonceSize()], raw[k.aead.NonceSize():], nil)
	if err != nil {
		return v, fmt.Errorf("open kept outcome: %w", err)
	}
	var o outcome
	if err := json.Unmarshal(plain, &o); err != nil {
		return v, fmt.Errorf("read kept outcome: %w", err)
	}
	if len(o.Value) > 0 {
		if err := json.Unmarshal(o.Value, &v); err != nil {
			return v, fmt.Errorf("read kept result: %w", err)
		}
	}
	if o.Error != nil {
		return v, o.Error
	}
	return v, nil
}
