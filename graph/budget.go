package graph

import (
	"context"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/calgraph/calgraph/internal/calendar"
)

// Defaults of the request budget (Options.MaxEntries, Options.MaxResponseBytes):
// twice the largest view, and 16 MiB of entry text.
const (
	DefaultMaxEntries       = 2 * calendar.MaxViewEntries
	DefaultMaxResponseBytes = 16 << 20
)

// requestBudget gives every operation a calendar.Budget, which the store
// charges for the entries it reads and the views for those they return, and
// refuses an operation that went over it as a whole: its answer is the
// REQUEST_TOO_LARGE error alone, with no data, whatever its shape (aliases,
// repeated views). The views after the budget is spent fail without reading,
// so the memory a request holds stays near the budget.
type requestBudget struct {
	maxEntries int
	maxBytes   int64
}

var (
	_ graphql.HandlerExtension     = requestBudget{}
	_ graphql.OperationInterceptor = requestBudget{}
	_ graphql.ResponseInterceptor  = requestBudget{}
)

func (requestBudget) ExtensionName() string { return "RequestBudget" }

func (requestBudget) Validate(graphql.ExecutableSchema) error { return nil }

func (b requestBudget) InterceptOperation(ctx context.Context, next graphql.OperationHandler) graphql.ResponseHandler {
	return next(calendar.WithBudget(ctx, calendar.NewBudget(b.maxEntries, b.maxBytes)))
}

func (requestBudget) InterceptResponse(ctx context.Context, next graphql.ResponseHandler) *graphql.Response {
	resp := next(ctx)
	budget := calendar.BudgetFrom(ctx)
	if resp == nil || budget == nil || !budget.Exceeded() || resp.Path != nil {
		return resp // a deferred part keeps its errors where they arose
	}
	tooLarge := budget.TooLarge()
	return &graphql.Response{Errors: gqlerror.List{{
		Message:    tooLarge.Message,
		Extensions: map[string]any{"code": extensionCodes[tooLarge.Code]},
	}}}
}
