package graph

import (
	"fmt"
	"strings"
	"testing"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
)

// TestFieldSetWritesAsGqlgen: an object's fields written by objectSet are the
// bytes gqlgen's FieldSet writes: in order, an alias said again left out
// (whether the aliases are checked by a scan or, past maxScannedAliases, a
// map), nulls and nested objects as they are, and an alias that is no
// GraphQL name (none parses, but) escaped.
func TestFieldSetWritesAsGqlgen(t *testing.T) {
	many := func(n int, repeatEvery int) []string {
		var aliases []string
		for i := range n {
			if repeatEvery > 0 && i%repeatEvery == repeatEvery-1 {
				aliases = append(aliases, aliases[i/2])
				continue
			}
			aliases = append(aliases, fmt.Sprint("f", i))
		}
		return aliases
	}
	for _, c := range []struct {
		name    string
		aliases []string
	}{
		{"none", nil},
		{"one", []string{"id"}},
		{"several", []string{"__typename", "id", "title", "start", "end", "calendar"}},
		{"an alias said again", []string{"id", "title", "id", "start", "title"}},
		{"the first said again last", []string{"a", "b", "a"}},
		{"many, scanned", many(maxScannedAliases, 5)},
		{"many, by map", many(3*maxScannedAliases, 4)},
		{"not a name", []string{`a"b`, "é", "x\ny"}},
	} {
		fields := make([]graphql.CollectedField, len(c.aliases))
		for i, a := range c.aliases {
			fields[i] = graphql.CollectedField{Field: &ast.Field{Alias: a, Name: "n"}}
		}
		set, ours := graphql.NewFieldSet(fields), newObjectSet(fields)
		for i := range fields {
			switch i % 3 {
			case 0:
				set.Values[i] = graphql.MarshalString(fmt.Sprintf("v%d \"q\"", i))
			case 1:
				set.Values[i] = graphql.Null
			default:
				inner := graphql.NewFieldSet([]graphql.CollectedField{{Field: &ast.Field{Alias: "x"}}})
				inner.Values[0] = graphql.MarshalInt(i)
				set.Values[i] = inner
			}
		}
		copy(ours.Values, set.Values)
		var want, got strings.Builder
		set.MarshalGQL(&want)
		ours.MarshalGQL(&got)
		if got.String() != want.String() {
			t.Errorf("%s: objectSet wrote\n%s\nFieldSet writes\n%s", c.name, got.String(), want.String())
		}
	}
}

// TestObjectSetAllocatesOnce: an object of up to 16 fields costs one
// allocation for its set and its values (gqlgen's cost three, with the
// set's return as a Marshaler); more, two.
func TestObjectSetAllocatesOnce(t *testing.T) {
	for _, n := range []int{0, 1, 4, 5, 8, 9, 16, 17, 40} {
		fields := make([]graphql.CollectedField, n)
		var set *objectSet
		allocs := testing.AllocsPerRun(100, func() {
			set = newObjectSet(fields)
			marshalerSink = set
		})
		if want := map[bool]float64{true: 1, false: 2}[n <= 16]; allocs != want {
			t.Errorf("%d fields: %v allocations, want %v", n, allocs, want)
		}
		if len(set.Values) != n {
			t.Errorf("%d fields: room for %d values", n, len(set.Values))
		}
	}
}
