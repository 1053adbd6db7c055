// Package answercache keeps finished GraphQL answers of this instance, each
// with the read set of the request that made it, and answers a later
// identical request from it only when the store proves every read unchanged
// (Source.Unchanged). A request's answer is kept only when every layer that
// ran it agreed: the GraphQL layer confirms a query that finished without
// errors (Confirm), anything that read what no read set can validate (the
// clock, an in-memory index) marks it (Mark), and the store's read set says
// whether it recorded every read (ReadSet.Uncacheable). What no one
// confirmed is not kept: uncacheable, never stale.
package answercache

import (
	"context"
	"sync"
)

// ReadSet is what one request read, as the store records it: opaque here,
// handed back to the Source that made it.
type ReadSet interface {
	// Uncacheable is why the reads cannot be validated later ("" when they
	// can): a read the store could not record, or too many to check.
	Uncacheable() string
	// Bytes is about how much memory the read set holds.
	Bytes() int
}

// Source records a request's reads and validates them later: the store.
type Source interface {
	// Record returns ctx carrying a fresh read set that every read made
	// with it (or a context derived from it) adds to.
	Record(ctx context.Context) (context.Context, ReadSet)
	// Unchanged reports whether every read of rs would read the same now
	// (strongly consistent reads).
	Unchanged(ctx context.Context, rs ReadSet) (bool, error)
}

// recording is one request's verdict on whether its answer may be kept.
type recording struct {
	mu        sync.Mutex
	confirmed bool
	why       string
}

type ctxKey struct{}

// Mark records that the request's answer depends on something no read set
// validates (reason names it, for the misses metric: a fixed word, such as
// "clock"): the answer is not kept. Outside a recorded request it does
// nothing.
func Mark(ctx context.Context, reason string) {
	if r, ok := ctx.Value(ctxKey{}).(*recording); ok {
		r.mu.Lock()
		defer r.mu.Unlock()
		if r.why == "" {
			r.why = reason
		}
	}
}

// Confirm records that the request ran a query (no mutation, subscription
// or @defer) that finished without errors: the GraphQL layer's consent to
// keeping its answer, which nothing else gives.
func Confirm(ctx context.Context) {
	if r, ok := ctx.Value(ctxKey{}).(*recording); ok {
		r.mu.Lock()
		defer r.mu.Unlock()
		r.confirmed = true
	}
}

// verdict returns why the answer may not be kept, "" when it may.
func (r *recording) verdict(rs ReadSet) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch {
	case r.why != "":
		return r.why
	case !r.confirmed:
		return ReasonNotConfirmed
	}
	return rs.Uncacheable()
}

// Reasons for a miss besides those Mark and ReadSet.Uncacheable give.
const (
	// ReasonAbsent: no answer held for the request (first time, evicted).
	ReasonAbsent = "absent"
	// ReasonChanged: an answer was held, but something it read changed.
	ReasonChanged = "changed"
	// ReasonCheckFailed: the reads could not be checked (the store failed).
	ReasonCheckFailed = "check_failed"
	// ReasonNotConfirmed: the GraphQL layer did not confirm a query without
	// errors (a mutation, a subscription, @defer, an error, a request
	// refused before it ran).
	ReasonNotConfirmed = "not_a_clean_query"
	// ReasonResponse: the answer was not a plain 200 JSON body (streamed,
	// encoded already, or larger than an entry may be).
	ReasonResponse = "response"
	// ReasonUnreadBody: the request body was too large to key on.
	ReasonUnreadBody = "large_request"
)
