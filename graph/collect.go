package graph

import (
	"sync"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
)

// collectedFields keeps, for one operation, the fields gqlgen's
// CollectFields collected from each selection set for each object type:
// internal/graphgen gives every execution context one, and has every
// object's marshaler ask collect instead.
// gqlgen caches them too, but its key is a hash of the type's implementors,
// computed again for every object of the answer (a hasher and a byte copy
// of each name: a week view's 280 objects took some 300 allocations for
// it); collect's key is the selection set's and the implementors' own
// addresses, which one operation's AST and the generated code keep fixed.
type collectedFields struct {
	mu     sync.RWMutex
	fields map[collectKey][]graphql.CollectedField
}

// collectKey is a selection set (where its elements are, and how many: two
// slices of one array from one place hold the same selections, as gqlgen's
// key assumes too) and an object type's implementors (the generated code's
// slice of them).
type collectKey struct {
	sel        *ast.Selection
	n          int
	implements *string
}

// collect is graphql.CollectFields(oc, sel, implementors), kept in c for
// the operation (generated code passes its execution context's). Without a
// cache (a test's execution context) it collects each time.
func collect(c *collectedFields, oc *graphql.OperationContext, sel ast.SelectionSet, implementors []string) []graphql.CollectedField {
	if c == nil || len(sel) == 0 || len(implementors) == 0 {
		return graphql.CollectFields(oc, sel, implementors)
	}
	k := collectKey{&sel[0], len(sel), &implementors[0]}
	c.mu.RLock()
	fields, ok := c.fields[k]
	c.mu.RUnlock()
	if ok {
		return fields
	}
	fields = graphql.CollectFields(oc, sel, implementors)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.fields == nil {
		c.fields = map[collectKey][]graphql.CollectedField{}
	}
	c.fields[k] = fields
	return fields
}
