package graph

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2"
	"github.com/vektah/gqlparser/v2/ast"
)

// TestSelectionMayWait: a list's elements run inline only when their
// selection, at any depth and through fragments, holds no field gqlgen runs
// concurrently (a resolver, which may wait on a loader's batch).
func TestSelectionMayWait(t *testing.T) {
	const entries = `entries(range: {dates: {start: "2026-06-15", end: "2026-06-22"}}) { entries { id } }`
	tests := []struct {
		name, query string
		list        string // the list field whose elements' selection is checked
		want        bool
	}{
		{"the week view's entries", `{ viewer { calendars(first: 20) { edges { node { calendar { entries(range: {dates: {start: "2026-06-15", end: "2026-06-22"}}) { entries {
			__typename id title color tags calendar { id name }
			... on TimedEntry { start end timeZone } ... on AllDayEntry { date } } } } } } } } }`, "entries", false},
		{"a series, in an inline fragment", `{ viewer { agenda(range: {dates: {start: "2026-06-15", end: "2026-06-22"}}) { entries {
			id ... on TimedEntry { series { id } } } } } }`, "entries", true},
		{"a series, on the interface", `{ viewer { agenda(range: {dates: {start: "2026-06-15", end: "2026-06-22"}}) { entries {
			id series { id } } } } }`, "entries", true},
		{"a resolver two levels down, in a fragment", `query { viewer { agenda(range: {dates: {start: "2026-06-15", end: "2026-06-22"}}) { entries {
			...shown } } } } fragment shown on Entry { id calendar { name description } }`, "entries", true},
		{"the agenda's entries: a calendar's viewerRole is settled", `{ viewer { agenda(range: {dates: {start: "2026-06-15", end: "2026-06-22"}}) { entries {
			__typename id title calendar { id name color viewerRole } ... on TimedEntry { start end } } } } }`, "entries", false},
		{"members without their users", `{ viewer { calendars(first: 20) { edges { node { calendar { members(first: 20) { edges { node { id role } } } } } } } } }`, "edges", false},
		{"the fragment without it", `query { viewer { agenda(range: {dates: {start: "2026-06-15", end: "2026-06-22"}}) { entries {
			...shown } } } } fragment shown on Entry { id calendar { name } }`, "entries", false},
		{"calendars, each with its entries", `{ viewer { calendars(first: 20) { edges { node { calendar { id ` + entries + ` } } } } } }`, "edges", true},
		{"members with their users", `{ viewer { calendars(first: 20) { edges { node { calendar { members(first: 20) { edges { node { role user { name } } } } } } } } } }`, "edges", true},
	}
	schema := NewExecutableSchema(Config{}).Schema()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc, errs := gqlparser.LoadQueryWithRules(schema, tt.query, nil)
			if errs != nil {
				t.Fatal(errs)
			}
			list := lastField(doc.Operations[0].SelectionSet, tt.list)
			if list == nil {
				t.Fatalf("no field %s", tt.list)
			}
			if got := selectionMayWait(list.SelectionSet); got != tt.want {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

// lastField returns the outermost field named name found last in a
// depth-first walk: the innermost list of that name in the tests' queries.
func lastField(sel ast.SelectionSet, name string) *ast.Field {
	var found *ast.Field
	for _, s := range sel {
		if f, ok := s.(*ast.Field); ok {
			if inner := lastField(f.SelectionSet, name); inner != nil {
				found = inner
			} else if f.Name == name {
				found = f
			}
		}
	}
	return found
}

// TestSettledFieldsAreConcurrent: a settled field that gqlgen no longer runs
// concurrently (renamed, or its resolver gone) is a stale entry.
func TestSettledFieldsAreConcurrent(t *testing.T) {
	for typ, fields := range settledFields {
		for f := range fields {
			if !concurrentFields[typ][f] {
				t.Errorf("%s.%s is settled, but gqlgen does not run it concurrently", typ, f)
			}
		}
	}
}

// TestInlineListElementPanics: an element that panics while marshaled inline
// leaves an error and a null list, as under gqlgen's own marshaling, and the
// elements after it are not marshaled.
func TestInlineListElementPanics(t *testing.T) {
	ctx := graphql.WithResponseContext(context.Background(), graphql.DefaultErrorPresenter,
		func(_ context.Context, r any) error { return fmt.Errorf("recovered: %v", r) })
	ctx = graphql.WithFieldContext(ctx, &graphql.FieldContext{Field: graphql.CollectedField{Field: &ast.Field{Alias: "entries"}}})
	var marshaled []int
	got := marshalList(ctx, nil, 3, 0, false, func(_ context.Context, i int) graphql.Marshaler {
		marshaled = append(marshaled, i) // inline: no goroutine, no race
		if i == 1 {
			panic("boom")
		}
		return graphql.MarshalString("ok")
	})
	if got != nil {
		t.Errorf("got %v, want a null list", got)
	}
	if !slices.Equal(marshaled, []int{0, 1}) {
		t.Errorf("marshaled elements %v, want [0 1]", marshaled)
	}
	if errs := graphql.GetErrors(ctx); len(errs) != 1 || errs[0].Message != "recovered: boom" || errs[0].Path.String() != "entries[1]" {
		t.Errorf("got errors %v, want one at entries[1]", errs)
	}
}

// TestInlineListElementsHaveTheirOwnPaths: each element marshaled inline
// has its own index in its path, and the list's field contexts and indexes
// cost one allocation each for the whole list, not one each per element
// (what is left per element is its context).
func TestInlineListElementsHaveTheirOwnPaths(t *testing.T) {
	ctx := graphql.WithFieldContext(context.Background(), &graphql.FieldContext{Field: graphql.CollectedField{Field: &ast.Field{Alias: "entries"}}})
	var paths []string
	marshalList(ctx, nil, 3, 0, false, func(ctx context.Context, i int) graphql.Marshaler {
		paths = append(paths, graphql.GetFieldContext(ctx).Path().String())
		return graphql.Null
	})
	if want := []string{"entries[0]", "entries[1]", "entries[2]"}; !slices.Equal(paths, want) {
		t.Errorf("paths %v, want %v", paths, want)
	}
	const length = 100
	allocs := testing.AllocsPerRun(20, func() {
		marshalList(ctx, nil, length, 0, false, func(context.Context, int) graphql.Marshaler { return graphql.Null })
	})
	if most := float64(length + 3); allocs > most {
		t.Errorf("a list of %d elements marshaled inline allocates %v times, want at most %v", length, allocs, most)
	}
}
