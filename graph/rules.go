package graph

import (
	"strconv"
	"strings"

	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/validator/core"
	"github.com/vektah/gqlparser/v2/validator/rules"
)

// validationRules are gqlparser's rules with singleRootField in place of its
// SingleFieldSubscriptions.
func validationRules() *rules.Rules {
	r := rules.NewDefaultRules()
	r.RemoveRule(rules.SingleFieldSubscriptionsRule.Name)
	r.AddRule(singleRootField.Name, singleRootField.RuleFunc)
	return r
}

// singleRootField is GraphQL's "single root field" rule for subscriptions,
// counted by response name as the spec's CollectFields (and graphql-js) count
// them. gqlparser's own counts field names, so two aliases of one field
// passed validation and reached gqlgen's executor, which failed the operation
// as an internal error ("must subscribe to exactly one stream"). @skip and
// @include are not evaluated: a subscription's root field may not depend on
// variables (the spec's newer wording forbids them there).
var singleRootField = core.Rule{
	Name: "SingleRootFieldSubscriptions",
	RuleFunc: func(observers *core.Events, addError core.AddErrFunc) {
		observers.OnOperation(func(_ *core.Walker, op *ast.OperationDefinition) {
			if op.Operation != ast.Subscription {
				return
			}
			name := "Anonymous Subscription"
			if op.Name != "" {
				name = "Subscription " + strconv.Quote(op.Name)
			}
			fields := rootFields(op.SelectionSet)
			if len(fields) > 1 {
				addError(core.Message("%s must select only one top level field.", name), core.At(fields[1].Position))
			}
			for _, f := range fields {
				if strings.HasPrefix(f.Name, "__") {
					addError(core.Message("%s must not select an introspection top level field.", name), core.At(f.Position))
				}
			}
		})
	},
}

// rootFields returns the first field of each response name in a selection
// set, fragments included.
func rootFields(set ast.SelectionSet) []*ast.Field {
	var out []*ast.Field
	seen := map[string]bool{}
	spread := map[string]bool{}
	var walk func(ast.SelectionSet)
	walk = func(set ast.SelectionSet) {
		for _, sel := range set {
			switch sel := sel.(type) {
			case *ast.Field:
				if !seen[sel.Alias] {
					seen[sel.Alias] = true
					out = append(out, sel)
				}
			case *ast.InlineFragment:
				walk(sel.SelectionSet)
			case *ast.FragmentSpread:
				if sel.Definition != nil && !spread[sel.Name] {
					spread[sel.Name] = true
					walk(sel.Definition.SelectionSet)
				}
			}
		}
	}
	walk(set)
	return out
}
