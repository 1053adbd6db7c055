package graph

import (
	"fmt"
	"strings"
	"testing"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
)

// TestFieldSetWritesAsGqlgen: an object's fields written by fieldSet are the
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
		set := graphql.NewFieldSet(fields)
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
		var want, got strings.Builder
		set.MarshalGQL(&want)
		fieldSet{fields, set}.MarshalGQL(&got)
		if got.String() != want.String() {
			t.Errorf("%s: fieldSet wrote\n%s\nFieldSet writes\n%s", c.name, got.String(), want.String())
		}
	}
}
