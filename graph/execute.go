// This file holds what graph changes in gqlgen's execution; internal/graphgen
// points the generated code at it.

package graph

import (
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
)

// marshalList marshals the elements of a list; generated.go calls it where
// gqlgen would call graphql.MarshalSliceConcurrently (internal/graphgen
// rewrites the calls). gqlgen runs every element on a goroutine of its own so
// that fields of sibling elements that wait on a loader wait on one batch
// together. Only the fields in concurrentFields can wait, and not all of those
// do (settledFields): when the elements' selection set holds none that may, at
// any depth, the elements run inline, in order, without the goroutines (a
// week view's 100 entries took a tenth less CPU). Otherwise gqlgen's
// marshaling runs as it would have, except that the elements' goroutines
// are warm workers (internal/warm), whose stacks have grown already.
func marshalList(ctx context.Context, sel ast.SelectionSet, length int, workerLimit int64, omitPanicHandler bool, marshal func(ctx context.Context, i int) graphql.Marshaler) graphql.Array {
	if length <= 1 {
		return graphql.MarshalSliceConcurrently(ctx, length, workerLimit, omitPanicHandler, marshal)
	}
	if selectionMayWait(sel) {
		return marshalConcurrently(ctx, length, workerLimit, omitPanicHandler, marshal)
	}
	ret := make(graphql.Array, length)
	// The elements' field contexts and indexes, one allocation each for the
	// list rather than for each element.
	fcs, indexes := make([]graphql.FieldContext, length), make([]int, length)
	for i := range length {
		indexes[i] = i
		fcs[i].Index = &indexes[i]
		if !marshalElement(graphql.WithFieldContext(ctx, &fcs[i]), i, ret, omitPanicHandler, marshal) {
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

// settledFields are fields gqlgen runs concurrently that never wait: global
// IDs computed on the spot, and a calendar's viewerRole, the role of the
// viewer's membership, which the loaders read to authorize showing the
// calendar at all (every calendar is shown only to its members).
// TestSettledFieldsReadNothing checks that asking for them costs no call.
var settledFields = map[string]map[string]bool{
	"Calendar":   {"viewerRole": true},
	"Invitation": {"id": true},
	"Membership": {"id": true},
	"Node":       {"id": true},
	"User":       {"id": true},
}

// selectionMayWait reports whether sel selects, at any depth, a field gqlgen
// runs concurrently that may wait. What it cannot place counts as such.
func selectionMayWait(sel ast.SelectionSet) bool {
	for _, s := range sel {
		switch s := s.(type) {
		case *ast.Field:
			if s.ObjectDefinition == nil || fieldMayWait(s.ObjectDefinition.Name, s.Name) || selectionMayWait(s.SelectionSet) {
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

// fieldMayWait reports whether the field of that name, selected on that type,
// may wait on a loader.
func fieldMayWait(typ, field string) bool {
	return concurrentFields[typ][field] && !settledFields[typ][field]
}

// deferring returns an object's set and views of deferred fields, made
// when its first deferred field needs them: gqlgen made both for every
// object of an answer, two allocations each, deferred fields or not
// (generated.go calls it; internal/graphgen writes the calls). Nil ones stand
// for none: gqlgen's ProcessDeferredGroup does nothing without views.
func deferring(set *graphql.FieldSet, views map[string]*graphql.FieldSetView) (*graphql.FieldSet, map[string]*graphql.FieldSetView) {
	if set == nil {
		return graphql.NewFieldSet(nil), map[string]*graphql.FieldSetView{}
	}
	return set, views
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

// scalarFieldContext is graphql.NewScalarFieldContext for a field of the
// scalar (or enum) type typ; generated.go calls it where gqlgen would call
// that. gqlgen's made an error and a closure returning it for every scalar
// field resolved — a third of the allocations of a week view's 1,500 field
// contexts — for FieldContext.Child, which nothing calls on a scalar. Here
// each type's Child is made once, with the same error message.
func scalarFieldContext(object string, field graphql.CollectedField, isMethod, isResolver bool, typ string) (*graphql.FieldContext, error) {
	return &graphql.FieldContext{Object: object, Field: field, IsMethod: isMethod, IsResolver: isResolver, Child: noChildFields(typ)}, nil
}

// childless holds each scalar type's FieldContext.Child (scalarFieldContext).
var childless sync.Map // type name → func(context.Context, graphql.CollectedField) (*graphql.FieldContext, error)

func noChildFields(typ string) func(context.Context, graphql.CollectedField) (*graphql.FieldContext, error) {
	if f, ok := childless.Load(typ); ok {
		return f.(func(context.Context, graphql.CollectedField) (*graphql.FieldContext, error))
	}
	err := fmt.Errorf("field of type %s does not have child fields", typ)
	f, _ := childless.LoadOrStore(typ, func(context.Context, graphql.CollectedField) (*graphql.FieldContext, error) { return nil, err })
	return f.(func(context.Context, graphql.CollectedField) (*graphql.FieldContext, error))
}

// plainFields reports whether fields without a resolver may be resolved
// without gqlgen's machinery (internal/graphgen writes the paths that ask).
// A field read from a struct field or a method without a context has no
// resolver and no middleware, so the closures and boxed values gqlgen makes
// for it could matter only to an extension that intercepts fields
// (graphql.FieldInterceptor). A String, ID, Boolean, Int, DateTime or Date,
// or a list of String or DateTime, takes no field context either: its
// marshaler reads its context only for a non-null field's null, which a
// non-pointer value cannot be. Any other such field is marshaled in a
// context holding its field context, as gqlgen does (recoverField). NewHandler
// says whether its server intercepts fields; a schema served some other way
// takes gqlgen's path.
func (ec *executionContext) plainFields() bool {
	r, ok := ec.Resolvers.(*Resolver)
	return ok && r.plainFields
}

// recoverField is gqlgen's recovery of a panic while a field is marshaled,
// deferred by plainFields' path for fields other than scalars: the panic is
// the field's error, at its path (ctx holds its field context), and its
// value null.
func (ec *executionContext) recoverField(ctx context.Context, ret *graphql.Marshaler) {
	if r := recover(); r != nil {
		ec.Error(ctx, ec.Recover(ctx, r))
		*ret = graphql.Null
	}
}

// nilInterface reports whether v is a nil interface, which gqlgen's field
// resolution reports as a null of its own ("must not be null"), so
// plainFields' path leaves it to gqlgen. A value of any other type, a nil
// pointer or slice included, never is: gqlgen hands those to their marshaler,
// as the plain path does. (Generic, so that it costs no allocation and the
// check is not flagged as always true for the concrete types.)
func nilInterface[T any](v T) bool { return any(v) == nil }

// interceptsFields reports whether any of exts intercepts fields.
func interceptsFields(exts []graphql.HandlerExtension) bool {
	return slices.ContainsFunc(exts, func(e graphql.HandlerExtension) bool {
		_, ok := e.(graphql.FieldInterceptor)
		return ok
	})
}

// plainCall returns the value of a field's method (plainFields' path), or
// false if it panicked: the caller then resolves the field gqlgen's way,
// which calls the method again and reports its panic on the field. Such
// methods take no context and only read their object.
func plainCall[T any](f func() T) (v T, ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	return f(), true
}
