package graph

import (
	"context"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/calgraph/calgraph/internal/calendar"
	"github.com/calgraph/calgraph/internal/reqinfo"
)

// requestRecord tells the HTTP edge (reqinfo) which operation a request ran
// and for which user, for its access log and metrics; presentError adds the
// codes of the errors.
type requestRecord struct{}

var (
	_ graphql.HandlerExtension          = requestRecord{}
	_ graphql.OperationParameterMutator = requestRecord{}
	_ graphql.OperationInterceptor      = requestRecord{}
)

func (requestRecord) ExtensionName() string { return "RequestRecord" }

func (requestRecord) Validate(graphql.ExecutableSchema) error { return nil }

// MutateOperationParameters records the name the client gave, for requests
// refused before their operation is known.
func (requestRecord) MutateOperationParameters(ctx context.Context, p *graphql.RawParams) *gqlerror.Error {
	reqinfo.From(ctx).SetOperation(p.OperationName)
	return nil
}

func (requestRecord) InterceptOperation(ctx context.Context, next graphql.OperationHandler) graphql.ResponseHandler {
	info := reqinfo.From(ctx)
	name := "anonymous"
	if op := graphql.GetOperationContext(ctx).Operation; op != nil && op.Name != "" {
		name = op.Name
	}
	info.SetOperation(name)
	if id, err := calendar.ViewerID(ctx); err == nil {
		info.SetUser(id)
	}
	return next(ctx)
}
