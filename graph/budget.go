package graph

import (
	"context"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/calgraph/calgraph/internal/calendar"
	"github.com/calgraph/calgraph/internal/loader"
)

// Defaults of the request budget (Options.MaxEntries, Options.MaxResponseBytes):
// twice the largest view, and 16 MiB of entry text.
const (
	DefaultMaxEntries       = 2 * calendar.MaxViewEntries
	DefaultMaxResponseBytes = 16 << 20
)

// requestScope gives every operation, and each delivery of a subscription,
// loaders of its own (Options.NewLoaders) with its read scope
// (calendar.ReadScope), decided here, where the operation's type is known:
//
//   - a budget of its own, which the store charges for the entries the
//     views read and the views for those they return. An operation that went
//     over it is refused as a whole: its answer is the REQUEST_TOO_LARGE
//     error alone, with no data, whatever its shape (aliases, repeated
//     views). The views after the budget is spent fail without reading, so
//     the memory a request holds stays near the budget;
//   - the view cache for a query or a subscription's deliveries, never for
//     a mutation (see calendar.ReadScope).
//
// A subscription's deliveries each get fresh loaders and a fresh budget, as
// if each were a request of its own: the subscription's loaders would keep
// what they read for its whole life, and name calendar revisions long gone
// to the store's view cache. Each query or mutation sent over a WebSocket is
// an operation of its own, with its own loaders too.
type requestScope struct {
	maxEntries int
	maxBytes   int64
	newLoaders func(calendar.ReadScope) *loader.Loaders
}

var (
	_ graphql.HandlerExtension     = requestScope{}
	_ graphql.OperationInterceptor = requestScope{}
	_ graphql.ResponseInterceptor  = requestScope{}
)

func (requestScope) ExtensionName() string { return "RequestScope" }

func (requestScope) Validate(graphql.ExecutableSchema) error { return nil }

// loaders returns fresh loaders in the scope of an operation of type op.
func (s requestScope) loaders(op ast.Operation) *loader.Loaders {
	return s.newLoaders(calendar.ReadScope{
		Budget: calendar.NewBudget(s.maxEntries, s.maxBytes),
		Cached: op != ast.Mutation,
	})
}

func (s requestScope) InterceptOperation(ctx context.Context, next graphql.OperationHandler) graphql.ResponseHandler {
	if oc := graphql.GetOperationContext(ctx); oc.Operation != nil {
		ctx = loader.WithLoaders(ctx, s.loaders(oc.Operation.Operation))
	}
	return next(ctx)
}

func (s requestScope) InterceptResponse(ctx context.Context, next graphql.ResponseHandler) *graphql.Response {
	l, ok := loader.Of(ctx)
	if !ok { // refused before its operation ran: it read nothing
		return next(ctx)
	}
	if graphql.GetOperationContext(ctx).Operation.Operation == ast.Subscription {
		l = s.loaders(ast.Subscription)
		ctx = loader.WithLoaders(ctx, l)
	}
	resp := next(ctx)
	budget := l.Scope().Budget
	if resp == nil || budget == nil || !budget.Exceeded() || resp.Path != nil {
		return resp // a deferred part keeps its errors where they arose
	}
	tooLarge := budget.TooLarge()
	return &graphql.Response{Errors: gqlerror.List{{
		Message:    tooLarge.Message,
		Extensions: map[string]any{"code": extensionCodes[tooLarge.Code]},
	}}}
}
