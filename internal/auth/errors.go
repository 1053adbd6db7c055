package auth

import (
	"errors"
	"slices"

	"github.com/golang-jwt/jwt/v5"
)

// Errors that Verify wraps; exactly one of them is in each of its errors.
var (
	// ErrExpired means the token was good but has expired, so the client should
	// get a fresh one and retry.
	ErrExpired = errors.New("token expired")
	// ErrInvalid means the token is unusable for any other reason; retrying with
	// it is pointless.
	ErrInvalid = errors.New("invalid token")
)

// Causes this package adds to the library's, to give clients a precise reason.
var (
	errAlgorithm = errors.New("signing algorithm not accepted")
	errKey       = errors.New("signing key not accepted")
	errNoSubject = errors.New("token has no subject")
	errTimeClaim = errors.New("exp, nbf and iat must be JSON numbers")
)

// verifyError carries a client-safe message while keeping the library's error in
// the chain for logs: the library's text can quote header fields such as kid.
type verifyError struct {
	kind   error // ErrExpired or ErrInvalid
	reason string
	cause  error
}

// Error returns the kind and reason only, never the cause.
func (e *verifyError) Error() string {
	if e.reason == "" {
		return e.kind.Error()
	}
	return e.kind.Error() + ": " + e.reason
}

// Unwrap exposes the kind for errors.Is and the cause for logs.
func (e *verifyError) Unwrap() []error {
	if e.cause == nil {
		return []error{e.kind}
	}
	return []error{e.kind, e.cause}
}

// reasons maps the library's and this package's causes to client-safe text, in
// order of precedence.
var reasons = []struct {
	cause  error
	reason string
}{
	{errTimeClaim, errTimeClaim.Error()}, // the library calls it malformed: say which part
	{jwt.ErrTokenMalformed, "malformed token"},
	{errAlgorithm, errAlgorithm.Error()},
	{errKey, errKey.Error()},
	{jwt.ErrTokenSignatureInvalid, "bad signature"},
	{jwt.ErrTokenUnverifiable, "unverifiable token"},
	{jwt.ErrTokenRequiredClaimMissing, "missing a required claim"},
	{errNoSubject, "missing a subject"},
	{jwt.ErrTokenInvalidIssuer, "wrong issuer"},
	{jwt.ErrTokenInvalidAudience, "wrong audience"},
	{jwt.ErrTokenNotValidYet, "not valid yet"},
	{jwt.ErrTokenUsedBeforeIssued, "issued in the future"},
	{jwt.ErrTokenExpired, "expired"},
}

// classify turns a parse error into a *verifyError. tok is what the parser
// returned alongside err and may be nil.
func (v *Verifier) classify(tok *jwt.Token, err error) error {
	if expiredOnly(err) {
		return &verifyError{kind: ErrExpired, cause: err}
	}
	// The library reports an alg outside WithValidMethods as a bad signature;
	// saying so would mislead whoever debugs the client.
	if !errors.Is(err, jwt.ErrTokenMalformed) && tok != nil &&
		(tok.Method == nil || !slices.Contains(v.methods, tok.Method.Alg())) {
		return &verifyError{kind: ErrInvalid, reason: errAlgorithm.Error(), cause: err}
	}
	for _, r := range reasons {
		if errors.Is(err, r.cause) {
			return &verifyError{kind: ErrInvalid, reason: r.reason, cause: err}
		}
	}
	return &verifyError{kind: ErrInvalid, reason: "rejected", cause: err}
}

// expiredOnly reports whether expiry is the token's only fault. Only then is
// "token expired" true: it invites the client to refresh and retry, which is
// pointless for a token that would fail anyway. Any unrecognised leaf error
// counts as another fault, so the check fails closed.
func expiredOnly(err error) bool {
	if !errors.Is(err, jwt.ErrTokenExpired) {
		return false
	}
	return allLeaves(err, func(leaf error) bool {
		return leaf == jwt.ErrTokenExpired || leaf == jwt.ErrTokenInvalidClaims
	})
}

// allLeaves reports whether ok holds for every error in err's tree that wraps
// nothing.
func allLeaves(err error, ok func(error) bool) bool {
	switch e := err.(type) {
	case interface{ Unwrap() []error }:
		for _, inner := range e.Unwrap() {
			if !allLeaves(inner, ok) {
				return false
			}
		}
		return true
	case interface{ Unwrap() error }:
		if inner := e.Unwrap(); inner != nil {
			return allLeaves(inner, ok)
		}
	}
	return ok(err)
}
