// Package loader is calgraph's read side for one GraphQL request: a per-request
// dataloader (graph-gophers/dataloader) over the store's batched reads, and the
// authorization of every read. An object reaches a client only through a method
// here, and each method checks the viewer's membership first, so "can the viewer
// see this?" is answered in this one package.
//
// Whatever the resolvers of one query level ask for (users, calendars,
// memberships, entries) within a short window goes into one Reader.Read, that
// is one BatchGetItem wave; results are cached for the rest of the request, and
// list queries and mutations prime the cache with what they already read. A
// nested query therefore costs one DynamoDB round trip per level, not one per
// object.
//
// The one dataloader carries every kind, so that they share that batch, but
// its values are typed: each kind has its own load (loadUser, loadCalendar,
// loadMembership, loadEntry) and its own Prime (PrimeUser, PrimeCalendar,
// PrimeMembership, PrimeEntry), see items.go. A failed read is the request's
// answer for the keys of its batch (the store has retried already, and the
// request's fields see one state); a read that panics is not remembered.
//
// Each request's loaders are made with its read scope (calendar.ReadScope:
// its budget, and whether the store's view cache may answer), which they
// hand the store with every view's read and member page; the GraphQL layer
// decides it from the operation's type. The writes a mutation makes return
// the calendar they authorized against, which the mutation primes here
// (PrimeCalendar): nothing reaches the loaders from the store but through
// what its methods return.
package loader

import (
	"context"
	"sync"
	"time"

	"github.com/graph-gophers/dataloader/v7"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/calgraph/calgraph/internal/calendar"
)

// batchWait is how long the loader collects keys before sending one batch: long
// enough for the resolvers of one list to queue up, short next to a round trip.
const batchWait = 2 * time.Millisecond

// Loaders are one request's loaders: create them per request (New), for one
// GraphQL operation or one delivery of a subscription. Their cache must never
// outlive it.
type Loaders struct {
	reader calendar.Reader
	engine calendar.RecurrenceEngine
	scope  calendar.ReadScope            // handed to the store's view reads
	items  *dataloader.Loader[ref, item] // items.go
	ranges rangeChecks                   // ranges.go

	mu       sync.Mutex
	expanded int             // occurrences of series expanded for this request
	shared   *Shared         // reads by key go through it, when set (ReadThrough)
	reached  map[string]bool // calendars of entries the viewer read by invitation (invited.go)
}

// New returns fresh loaders for one request, reading from r in scope (its
// budget and whether the view cache may answer: see calendar.ReadScope) and
// expanding series with eng.
func New(r calendar.Reader, eng calendar.RecurrenceEngine, scope calendar.ReadScope) *Loaders {
	return NewWithWait(r, eng, scope, batchWait)
}

// NewWithWait is New with batches that collect keys for wait. Request-plan
// tests lengthen it: a batch whose keys come from a loop can be split in two
// when a loaded machine (the race detector) preempts the loop for longer
// than the window, which is harmless in production (one more call, same
// wave) but not what a test pinning the calls expects.
func NewWithWait(r calendar.Reader, eng calendar.RecurrenceEngine, scope calendar.ReadScope, wait time.Duration) *Loaders {
	l := &Loaders{reader: r, engine: eng, scope: scope}
	l.items = dataloader.NewBatchedLoader(l.batch, dataloader.WithWait[ref, item](wait))
	return l
}

// Scope returns the read scope l was made with: its budget also bounds what
// the request's views return (calendar.Budget.ChargeReturned).
func (l *Loaders) Scope() calendar.ReadScope { return l.scope }

// batch reads every ref of one window with a single Reader.Read (or through
// the Shared cache it reads through). A missing object loads as an empty
// item, not as an error: callers decide what absence means.
func (l *Loaders) batch(ctx context.Context, refs []ref) []*dataloader.Result[item] {
	results := make([]*dataloader.Result[item], len(refs))
	if s := l.sharedCache(); s != nil {
		values, err := s.load(ctx, refs, l.read)
		for i := range refs {
			results[i] = &dataloader.Result[item]{Error: err}
			if err == nil {
				results[i].Data = values[i]
			}
		}
		return results
	}
	found, err := l.read(ctx, keysOf(refs))
	for i, r := range refs {
		results[i] = &dataloader.Result[item]{Error: err}
		if err == nil {
			results[i].Data = lookup(found, r)
		}
	}
	return results
}

// read is one batch of reads (Reader.Read), in a span of its own for traces.
func (l *Loaders) read(ctx context.Context, k calendar.Keys) (*calendar.Items, error) {
	ctx, span := otel.Tracer("github.com/calgraph/calgraph/internal/loader").Start(ctx, "loader.batch",
		trace.WithAttributes(attribute.Int("calgraph.keys", len(k.Users)+len(k.Calendars)+len(k.Memberships)+len(k.Entries))))
	defer span.End()
	return l.reader.Read(ctx, k)
}

type ctxKey struct{}

// WithLoaders returns a context carrying l: the GraphQL layer gives each
// operation, and each delivery of a subscription, loaders of its own there,
// where its resolvers find them (For), as gqlgen's dataloaders are found.
func WithLoaders(ctx context.Context, l *Loaders) context.Context {
	return context.WithValue(ctx, ctxKey{}, l)
}

// For returns the request's loaders. Every operation is given some
// (WithLoaders), so their absence is a wiring bug.
func For(ctx context.Context) *Loaders {
	l, ok := Of(ctx)
	if !ok {
		panic("loader: no loaders in the request context; give the GraphQL handler Options.NewLoaders")
	}
	return l
}

// Of returns the request's loaders, and false when it has none: a request
// refused before its operation ran (invalid, too complex) was given none.
func Of(ctx context.Context) (*Loaders, bool) {
	l, ok := ctx.Value(ctxKey{}).(*Loaders)
	return l, ok
}
