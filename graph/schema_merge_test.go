package graph

import (
	"testing"

	"github.com/vektah/gqlparser/v2/ast"
)

// TestSameNamedFieldsMerge checks GraphQL's field-merging rule
// (OverlappingFieldsCanBeMerged) for the schema's abstract types: a client
// listing entries of every kind, or nodes of every type, selects each
// type's fields in its own fragment, and same-named fields can then share a
// response name only if their types are identical. Without this, a typed
// client needs an alias for every such field.
//
// Node is left out: its implementations are different things (a calendar's
// color is never null, an entry's is null when it uses its calendar's), and
// a client asks `node` for one ID of a known type.
func TestSameNamedFieldsMerge(t *testing.T) {
	schema := NewExecutableSchema(Config{}).Schema()
	for _, abstract := range schema.Types {
		if abstract.Kind != ast.Interface && abstract.Kind != ast.Union || abstract.Name == "Node" {
			continue
		}
		seen := map[string]string{} // field name → "Type.field: Type"
		types := map[string]*ast.Type{}
		for _, impl := range schema.GetPossibleTypes(abstract) {
			for _, f := range impl.Fields {
				if prev, ok := types[f.Name]; ok && prev.String() != f.Type.String() {
					t.Errorf("%s: %s.%s: %s does not merge with %s", abstract.Name, impl.Name, f.Name, f.Type, seen[f.Name])
					continue
				}
				if _, ok := types[f.Name]; !ok {
					types[f.Name], seen[f.Name] = f.Type, impl.Name+"."+f.Name+": "+f.Type.String()
				}
			}
		}
	}
}
