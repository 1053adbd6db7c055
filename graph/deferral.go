package graph

import (
	"context"
	"strings"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"
)

// Incremental delivery: an operation with @defer is answered as
// multipart/mixed (the incremental-delivery RFC, gqlgen's
// transport.MultipartMixed, as Apollo Client and Relay read it), which the
// client asks for with `Accept: multipart/mixed`. A client that did not ask
// could not read the deferred parts, so deferNeedsMultipart refuses its
// operation before it runs instead of answering half of it.
type deferNeedsMultipart struct{}

var (
	_ graphql.HandlerExtension        = deferNeedsMultipart{}
	_ graphql.OperationContextMutator = deferNeedsMultipart{}
)

func (deferNeedsMultipart) ExtensionName() string { return "DeferNeedsMultipart" }

func (deferNeedsMultipart) Validate(graphql.ExecutableSchema) error { return nil }

func (deferNeedsMultipart) MutateOperationContext(_ context.Context, oc *graphql.OperationContext) *gqlerror.Error {
	if oc.Operation == nil || strings.Contains(oc.Headers.Get("Accept"), "multipart/mixed") || !defers(oc.Doc, oc.Operation.SelectionSet, map[string]bool{}) {
		return nil
	}
	err := gqlerror.Errorf("@defer is answered as multipart/mixed: send the request with `Accept: multipart/mixed`, or without @defer")
	err.Extensions = map[string]any{"code": codeBadRequest}
	return err
}

// defers reports whether a selection, or a fragment it spreads, carries
// @defer.
func defers(doc *ast.QueryDocument, set ast.SelectionSet, seen map[string]bool) bool {
	for _, sel := range set {
		switch s := sel.(type) {
		case *ast.Field:
			if defers(doc, s.SelectionSet, seen) {
				return true
			}
		case *ast.InlineFragment:
			if s.Directives.ForName("defer") != nil || defers(doc, s.SelectionSet, seen) {
				return true
			}
		case *ast.FragmentSpread:
			if s.Directives.ForName("defer") != nil {
				return true
			}
			if f := doc.Fragments.ForName(s.Name); f != nil && !seen[s.Name] {
				seen[s.Name] = true
				if defers(doc, f.SelectionSet, seen) {
					return true
				}
			}
		}
	}
	return false
}
