// This file holds what graph changes in gqlgen's execution; internal/graphgen
// points the generated code at it.

package graph

import (
	"context"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
)

// marshalList marshals the elements of a list; generated.go calls it where
// gqlgen would call graphql.MarshalSliceConcurrently (internal/graphgen
// rewrites the calls). gqlgen runs every element on a goroutine of its own so
// that fields of sibling elements that wait on a loader wait on one batch
// together. Only the fields in concurrentFields can wait: when the elements'
// selection set holds none of them, at any depth, nothing can, and the
// elements run inline, in order, without the goroutines (a week view's 100
// entries cost about a fifth less CPU). Otherwise gqlgen's marshaling runs as
// it would have.
func marshalList(ctx context.Context, sel ast.SelectionSet, length int, workerLimit int64, omitPanicHandler bool, marshal func(ctx context.Context, i int) graphql.Marshaler) graphql.Array {
	if length <= 1 || selectionMayWait(sel) {
		return graphql.MarshalSliceConcurrently(ctx, length, workerLimit, omitPanicHandler, marshal)
	}
	ret := make(graphql.Array, length)
	for i := range length {
		fc := &graphql.FieldContext{Index: &i}
		if !marshalElement(graphql.WithFieldContext(ctx, fc), i, ret, omitPanicHandler, marshal) {
			return nil
		}
	}
	return ret
}

// marshalElement marshals element i into ret, and reports false if it
// panicked: the error is recorded and the list becomes null, as gqlgen does.
func marshalElement(ctx context.Context, i int, ret graphql.Array, omitPanicHandler bool, marshal func(ctx context.Context, i int) graphql.Marshaler) (ok bool) {
	if !omitPanicHandler {
		defer func() {
			if r := recover(); r != nil {
				graphql.AddError(ctx, graphql.Recover(ctx, r))
				ok = false
			}
		}()
	}
	ret[i] = marshal(ctx, i)
	return true
}

// selectionMayWait reports whether sel selects, at any depth, a field gqlgen
// runs concurrently. What it cannot place counts as such.
func selectionMayWait(sel ast.SelectionSet) bool {
	for _, s := range sel {
		switch s := s.(type) {
		case *ast.Field:
			if s.ObjectDefinition == nil || concurrentFields[s.ObjectDefinition.Name][s.Name] || selectionMayWait(s.SelectionSet) {
				return true
			}
		case *ast.InlineFragment:
			if selectionMayWait(s.SelectionSet) {
				return true
			}
		case *ast.FragmentSpread:
			if s.Definition == nil || selectionMayWait(s.Definition.SelectionSet) {
				return true
			}
		default:
			return true
		}
	}
	return false
}

// deferredPath is the path in the response an object hands to its deferred
// fragments (graphql.DeferredGroup.Path); generated.go calls it where gqlgen
// would call graphql.GetPath. The path costs an allocation per step, and
// gqlgen computed it for every object, though it is used only when the
// object has fragments deferred with @defer.
func deferredPath(ctx context.Context, defers map[string]*graphql.FieldSetView) ast.Path {
	if len(defers) == 0 {
		return nil
	}
	return graphql.GetPath(ctx)
}
