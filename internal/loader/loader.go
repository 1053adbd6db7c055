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
package loader

import (
	"context"
	"net/http"
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

// ref names one item the loader can read.
type ref struct {
	kind kind
	a, b string // the ID, or a membership's calendar and user, or an entry's calendar and entry
}

type kind uint8

const (
	kindUser kind = iota
	kindCalendar
	kindMembership
	kindEntry
)

// Loaders are one request's loaders. Create them per request (Middleware): their
// cache must never outlive it.
type Loaders struct {
	reader calendar.Reader
	engine calendar.RecurrenceEngine
	items  *dataloader.Loader[ref, any]
	ranges rangeChecks // ranges.go

	mu       sync.Mutex
	expanded int     // occurrences of series expanded for this request
	shared   *Shared // reads by key go through it, when set (ReadThrough)
}

// New returns fresh loaders reading from r and expanding series with eng.
func New(r calendar.Reader, eng calendar.RecurrenceEngine) *Loaders {
	return newWithWait(r, eng, batchWait)
}

func newWithWait(r calendar.Reader, eng calendar.RecurrenceEngine, wait time.Duration) *Loaders {
	l := &Loaders{reader: r, engine: eng}
	l.items = dataloader.NewBatchedLoader(l.batch, dataloader.WithWait[ref, any](wait))
	return l
}

// batch reads every ref of one window with a single Reader.Read (or through
// the Shared cache it reads through). A missing item loads as nil, not as
// an error: callers decide what absence means.
func (l *Loaders) batch(ctx context.Context, refs []ref) []*dataloader.Result[any] {
	results := make([]*dataloader.Result[any], len(refs))
	if s := l.sharedCache(); s != nil {
		values, err := s.load(ctx, refs, l.read)
		for i := range refs {
			results[i] = &dataloader.Result[any]{Error: err}
			if err == nil {
				results[i].Data = values[i]
			}
		}
		return results
	}
	found, err := l.read(ctx, keysOf(refs))
	for i, r := range refs {
		results[i] = &dataloader.Result[any]{Error: err}
		if err == nil {
			results[i].Data = lookup(found, r)
		}
	}
	return results
}

// keysOf names the items of refs.
func keysOf(refs []ref) calendar.Keys {
	var k calendar.Keys
	for _, r := range refs {
		switch r.kind {
		case kindUser:
			k.Users = append(k.Users, r.a)
		case kindCalendar:
			k.Calendars = append(k.Calendars, r.a)
		case kindMembership:
			k.Memberships = append(k.Memberships, calendar.MembershipKey{CalendarID: r.a, UserID: r.b})
		case kindEntry:
			k.Entries = append(k.Entries, calendar.EntryKey{CalendarID: r.a, EntryID: r.b})
		}
	}
	return k
}

// read is one batch of reads (Reader.Read), in a span of its own for traces.
func (l *Loaders) read(ctx context.Context, k calendar.Keys) (*calendar.Items, error) {
	ctx, span := otel.Tracer("github.com/calgraph/calgraph/internal/loader").Start(ctx, "loader.batch",
		trace.WithAttributes(attribute.Int("calgraph.keys", len(k.Users)+len(k.Calendars)+len(k.Memberships)+len(k.Entries))))
	defer span.End()
	return l.reader.Read(ctx, k)
}

// lookup returns the item r names, or an untyped nil when it is missing.
func lookup(found *calendar.Items, r ref) any {
	var v any
	var ok bool
	switch r.kind {
	case kindUser:
		v, ok = found.Users[r.a]
	case kindCalendar:
		v, ok = found.Calendars[r.a]
	case kindMembership:
		v, ok = found.Memberships[calendar.MembershipKey{CalendarID: r.a, UserID: r.b}]
	case kindEntry:
		v, ok = found.Entries[calendar.EntryKey{CalendarID: r.a, EntryID: r.b}]
	}
	if !ok {
		return nil
	}
	return v
}

// load starts loading r and returns a function that waits for it.
func load[V any](ctx context.Context, l *Loaders, r ref) func() (*V, error) {
	thunk := l.items.Load(ctx, r)
	return func() (*V, error) {
		v, err := thunk()
		item, _ := v.(*V)
		return item, err
	}
}

func userRef(id string) ref     { return ref{kind: kindUser, a: id} }
func calendarRef(id string) ref { return ref{kind: kindCalendar, a: id} }
func membershipRef(k calendar.MembershipKey) ref {
	return ref{kind: kindMembership, a: k.CalendarID, b: k.UserID}
}
func entryRef(k calendar.EntryKey) ref { return ref{kind: kindEntry, a: k.CalendarID, b: k.EntryID} }

type ctxKey struct{}

// Middleware gives every request its own Loaders.
func Middleware(r calendar.Reader, eng calendar.RecurrenceEngine, next http.Handler) http.Handler {
	return MiddlewareWithWait(r, eng, batchWait, next)
}

// MiddlewareWithWait is Middleware with batches that collect keys for wait.
// Request-plan tests lengthen it: a batch whose keys come from a loop can be
// split in two when a loaded machine (the race detector) preempts the loop
// for longer than the window, which is harmless in production (one more
// call, same wave) but not what a test pinning the calls expects.
func MiddlewareWithWait(r calendar.Reader, eng calendar.RecurrenceEngine, wait time.Duration, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		next.ServeHTTP(w, req.WithContext(WithLoaders(req.Context(), newWithWait(r, eng, wait))))
	})
}

// WithLoaders returns a context carrying l, which keeps the calendars the
// store reads for permission checks (calendar.WithCalendarsSeen), and
// tracking the request's writes: its views may come from the store's cache
// until it writes (calendar.WithWriteTracking).
func WithLoaders(ctx context.Context, l *Loaders) context.Context {
	ctx = calendar.WithWriteTracking(ctx)
	ctx = calendar.WithCalendarsSeen(ctx, func(c *calendar.Calendar) { l.Prime(ctx, c) })
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

// Prime records objects already read or just written, replacing whatever this
// request had loaded before, so that nested fields see them without a read.
func (l *Loaders) Prime(ctx context.Context, objs ...any) {
	for _, o := range objs {
		switch o := o.(type) {
		case *calendar.User:
			l.items.Clear(ctx, userRef(o.ID)).Prime(ctx, userRef(o.ID), o)
		case *calendar.Calendar:
			l.items.Clear(ctx, calendarRef(o.ID)).Prime(ctx, calendarRef(o.ID), o)
		case *calendar.Membership:
			l.items.Clear(ctx, membershipRef(o.Key())).Prime(ctx, membershipRef(o.Key()), o)
		case *calendar.Entry:
			if !o.IsOccurrence() { // occurrences are not read by key
				l.items.Clear(ctx, entryRef(o.Key())).Prime(ctx, entryRef(o.Key()), o)
			}
		}
	}
}

// ForgetMembership drops a membership a mutation has just removed.
func (l *Loaders) ForgetMembership(ctx context.Context, key calendar.MembershipKey) {
	l.items.Clear(ctx, membershipRef(key))
}

// ForgetEntry drops an entry a mutation has just deleted or moved away.
func (l *Loaders) ForgetEntry(ctx context.Context, key calendar.EntryKey) {
	l.items.Clear(ctx, entryRef(key))
}
