package graph

import (
	"context"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"

	"github.com/calgraph/calgraph/internal/answercache"
)

// answerConsent tells the answer cache (internal/answercache) which answers
// it may keep: a query's, whole (no @defer), without errors. Nothing else
// gives that consent, so a mutation's or a subscription's answer, one that
// failed, or a request refused before its operation ran is never kept.
// Fields whose answers read the clock mark their request themselves
// (answercache.Mark; for example findTimes and the task lists).
type answerConsent struct{}

var (
	_ graphql.HandlerExtension    = answerConsent{}
	_ graphql.ResponseInterceptor = answerConsent{}
)

func (answerConsent) ExtensionName() string { return "AnswerConsent" }

func (answerConsent) Validate(graphql.ExecutableSchema) error { return nil }

func (answerConsent) InterceptResponse(ctx context.Context, next graphql.ResponseHandler) *graphql.Response {
	resp := next(ctx)
	if resp == nil || !graphql.HasOperationContext(ctx) {
		return resp
	}
	oc := graphql.GetOperationContext(ctx)
	if oc.Operation != nil && oc.Operation.Operation == ast.Query && len(resp.Errors) == 0 &&
		resp.HasNext == nil && !defers(oc.Doc, oc.Operation.SelectionSet, map[string]bool{}) {
		answercache.Confirm(ctx)
	}
	return resp
}
