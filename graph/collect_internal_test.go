package graph

import (
	"slices"
	"sync"
	"testing"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
)

// TestCollectKeepsGqlgensFields: collect gives what graphql.CollectFields
// gives, for selection sets that share their first selection and their
// length but not the rest, for one array's prefixes and for two types'
// implementors; a second time from its cache, without an allocation; and
// from goroutines at once (under -race).
func TestCollectKeepsGqlgensFields(t *testing.T) {
	oc := &graphql.OperationContext{Variables: map[string]any{}}
	field := func(name string) *ast.Field { return &ast.Field{Name: name, Alias: name} }
	id, title, start, date := field("id"), field("title"), field("start"), field("date")
	whole := ast.SelectionSet{id, title,
		&ast.InlineFragment{TypeCondition: "TimedEntry", SelectionSet: ast.SelectionSet{start}},
		&ast.InlineFragment{TypeCondition: "AllDayEntry", SelectionSet: ast.SelectionSet{date}}}
	sets := []ast.SelectionSet{whole, whole[:2], whole[:1], whole[:3], {id, start}, {id, date}}
	implementors := [][]string{{"TimedEntry", "Entry"}, {"AllDayEntry", "Entry"}}
	names := func(fields []graphql.CollectedField) []string {
		var out []string
		for _, f := range fields {
			out = append(out, f.Alias)
		}
		return out
	}
	var c collectedFields
	check := func() {
		for _, sel := range sets {
			for _, impl := range implementors {
				got, want := names(collect(&c, oc, sel, impl)), names(graphql.CollectFields(oc, sel, impl))
				if !slices.Equal(got, want) {
					t.Errorf("%v on %v: collected %v, want %v", names(graphql.CollectFields(oc, sel, []string{"TimedEntry", "AllDayEntry"})), impl, got, want)
				}
			}
		}
	}
	check()
	check() // from the cache
	if n := len(c.fields); n != len(sets)*len(implementors) {
		t.Errorf("%d cached, want %d", n, len(sets)*len(implementors))
	}
	if n := testing.AllocsPerRun(100, func() { collect(&c, oc, whole, implementors[0]) }); n != 0 {
		t.Errorf("a cached collection allocates %v times, want 0", n)
	}
	var wg sync.WaitGroup
	var fresh collectedFields
	for range 8 {
		wg.Go(func() {
			for _, sel := range sets {
				collect(&fresh, oc, sel, implementors[1])
			}
		})
	}
	wg.Wait()
}
