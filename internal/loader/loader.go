// Package loader is calgraph's read side for one GraphQL request: per-request
// dataloaders (graph-gophers/dataloader) over the store's batched reads, and the
// authorization of every read. An object reaches a client only through a method
// here, and each method checks the viewer's membership first, so "can the viewer
// see this?" is answered in this one package.
//
// Loaders batch what resolvers ask for within a short window into one
// BatchGetItem, cache it for the rest of the request, and are primed with what a
// list query or a mutation already read, so a nested query costs one DynamoDB
// round trip per level, not one per object.
package loader

import (
	"context"
	"net/http"
	"time"

	"github.com/graph-gophers/dataloader/v7"

	"github.com/calgraph/calgraph/internal/calendar"
)

// batchWait is how long a loader collects keys before sending one batch: long
// enough for the resolvers of one list to queue up, short next to a round trip.
const batchWait = 2 * time.Millisecond

// Loaders are one request's loaders. Create them per request (Middleware): their
// caches must never outlive it.
type Loaders struct {
	reader      calendar.Reader
	users       *dataloader.Loader[string, *calendar.User]
	calendars   *dataloader.Loader[string, *calendar.Calendar]
	memberships *dataloader.Loader[calendar.MembershipKey, *calendar.Membership]
}

// New returns fresh loaders reading from r.
func New(r calendar.Reader) *Loaders {
	return &Loaders{
		reader:      r,
		users:       newLoader(r.UsersByID),
		calendars:   newLoader(r.CalendarsByID),
		memberships: newLoader(r.MembershipsByKey),
	}
}

// newLoader wraps a batched read. A missing item loads as nil, not as an error:
// callers decide what absence means.
func newLoader[K comparable, V any](read func(context.Context, []K) (map[K]*V, error)) *dataloader.Loader[K, *V] {
	batch := func(ctx context.Context, keys []K) []*dataloader.Result[*V] {
		found, err := read(ctx, keys)
		results := make([]*dataloader.Result[*V], len(keys))
		for i, k := range keys {
			results[i] = &dataloader.Result[*V]{Data: found[k], Error: err}
		}
		return results
	}
	return dataloader.NewBatchedLoader(batch, dataloader.WithWait[K, *V](batchWait))
}

type ctxKey struct{}

// Middleware gives every request its own Loaders.
func Middleware(r calendar.Reader, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		next.ServeHTTP(w, req.WithContext(WithLoaders(req.Context(), New(r))))
	})
}

// WithLoaders returns a context carrying l.
func WithLoaders(ctx context.Context, l *Loaders) context.Context {
	return context.WithValue(ctx, ctxKey{}, l)
}

// For returns the request's loaders. Handlers are always wrapped in Middleware,
// so their absence is a wiring bug.
func For(ctx context.Context) *Loaders {
	l, ok := ctx.Value(ctxKey{}).(*Loaders)
	if !ok {
		panic("loader: no loaders in the request context; wrap the handler in loader.Middleware")
	}
	return l
}

// Prime records objects a mutation has just written, replacing whatever this
// request had loaded before, so that the payload's nested fields see them.
func (l *Loaders) Prime(ctx context.Context, objs ...any) {
	for _, o := range objs {
		switch o := o.(type) {
		case *calendar.Calendar:
			l.calendars.Clear(ctx, o.ID).Prime(ctx, o.ID, o)
		case *calendar.Membership:
			l.memberships.Clear(ctx, o.Key()).Prime(ctx, o.Key(), o)
		case *calendar.User:
			l.users.Clear(ctx, o.ID).Prime(ctx, o.ID, o)
		}
	}
}

// ForgetMembership drops a membership a mutation has just removed.
func (l *Loaders) ForgetMembership(ctx context.Context, key calendar.MembershipKey) {
	l.memberships.Clear(ctx, key)
}
