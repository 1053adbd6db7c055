package engine

import (
	"cmp"
	"slices"
	"strings"

	"github.com/truora/minidyn/interpreter/language"
)

// apply returns the item the update makes of it (it is not changed).
// The interpreter holds numbers as float64 and rewrites every number it
// touches: numbers equal to the ones they replace keep their text, and a
// value SET from a placeholder is stored as it was sent, as DynamoDB Local
// stores it.
func (u *updateExpr) apply(it item) (item, error) {
	env := language.NewEnvironment()
	env.Aliases = u.x.names
	if err := addAttributes(env, it); err != nil {
		return nil, validationf("Invalid UpdateExpression: %s", err)
	}
	if err := addAttributes(env, u.x.values); err != nil {
		return nil, validationf("Invalid UpdateExpression: %s", err)
	}
	for _, a := range u.actions {
		if len(a.path) > 1 {
			parent := valueAt(it, a.path[:len(a.path)-1])
			last := a.path[len(a.path)-1]
			if parent == nil || (last.Kind == language.PathKindListIndex && parent.L == nil) ||
				(last.Kind == language.PathKindMapKey && parent.M == nil) {
				return nil, validation("The document path provided in the update expression is invalid for update")
			}
		}
		if err := u.operandsExist(a, it); err != nil {
			return nil, err
		}
	}
	stmt, own := u.forInterpreter(it)
	if len(own) == len(u.actions) {
		stmt = nil // nothing for the interpreter
	}
	if res := safeEvalUpdate(stmt, env); res.Type() == language.ObjectTypeError {
		msg := res.Inspect()
		if e, ok := res.(*language.Error); ok {
			msg = e.Message
		}
		return nil, validation(msg)
	}
	exclude := map[string]bool{}
	for k := range u.x.values {
		exclude[k] = true
	}
	out := item{}
	env.Apply(out, u.x.names, exclude)
	touched := map[string]bool{}
	for _, a := range u.actions {
		touched[a.path[0].Key] = true
	}
	for k, v := range out {
		if !touched[k] {
			out[k] = it[k]
			continue
		}
		out[k] = keepNumbers(v, it[k])
	}
	var removals []path
	var appends []updateAction
	for i, a := range u.actions {
		switch own[i] {
		case ownBeyond:
			// SET past a list's end appends; REMOVE past it does nothing.
			if a.kind == language.SET {
				appends = append(appends, a)
			}
			continue
		case ownRemove:
			removals = append(removals, a.path)
			continue
		}
		if err := u.exact(a, it, out); err != nil {
			return nil, err
		}
	}
	// Appends go in the order of their indexes, not of the clauses, as
	// DynamoDB Local appends them (SET l[11] = :a, l[10] = :b appends b, a).
	slices.SortStableFunc(appends, func(a, b updateAction) int {
		return cmp.Compare(a.path[len(a.path)-1].Index, b.path[len(b.path)-1].Index)
	})
	for _, a := range appends {
		if v := u.setValue(a, it); v != nil {
			list := valueAt(out, a.path[:len(a.path)-1])
			list.L = append(list.L, v)
		}
	}
	// Indexes name the elements of the list as it was: the last goes first.
	slices.SortFunc(removals, func(a, b path) int { return cmp.Compare(b[len(b)-1].Index, a[len(a)-1].Index) })
	for _, p := range removals {
		removeAt(out, p)
	}
	for k := range touched {
		if v, ok := out[k]; ok {
			if err := checkNumbers(v); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}

// Actions the engine applies itself rather than the interpreter.
const (
	ownBeyond = 1 + iota // SET or REMOVE past a list's end: the interpreter panics
	ownRemove            // REMOVE of a list element: the interpreter loses numbers' text
)

// forInterpreter returns the update for the interpreter: without the
// actions the engine applies itself (which it reports), and with every
// if_not_exists decided here (the interpreter fails on a path that leads
// through a string, which DynamoDB reads as a path to nothing).
func (u *updateExpr) forInterpreter(it item) (*language.UpdateStatement, map[int]int) {
	own := map[int]int{}
	for i, a := range u.actions {
		last := a.path[len(a.path)-1]
		if last.Kind != language.PathKindListIndex || (a.kind != language.SET && a.kind != language.REMOVE) {
			continue
		}
		list := valueAt(it, a.path[:len(a.path)-1])
		switch {
		case list != nil && list.L != nil && last.Index >= int64(len(list.L)):
			own[i] = ownBeyond
		case a.kind == language.REMOVE:
			own[i] = ownRemove
		}
	}
	ue := u.stmt.Expression.(*language.UpdateExpression)
	kept := &language.UpdateExpression{Token: ue.Token}
	for i, e := range ue.Expressions {
		if own[i] != 0 {
			continue
		}
		if act, ok := e.(*language.ActionExpression); ok && act.Right != nil {
			e = &language.ActionExpression{Token: act.Token, Left: act.Left, Right: u.decideIfNotExists(act.Right, it)}
		}
		kept.Expressions = append(kept.Expressions, e)
	}
	return &language.UpdateStatement{Token: u.stmt.Token, Expression: kept}, own
}

// setValue is the value a SET action writes when the engine computes it: a
// placeholder, if_not_exists or list_append of operands.
func (u *updateExpr) setValue(a updateAction, old item) *av {
	switch {
	case a.value != nil:
		return a.value
	case isCall(a.right, "if_not_exists"):
		return u.operandValue(a.right, old)
	}
	return u.operandValue(a.right, old)
}

// exact redoes what the interpreter computed with float64 or rewrote: a
// value SET from a placeholder is stored as sent, and sums (ADD of a number,
// SET a = b + c) are exact, as in DynamoDB.
func (u *updateExpr) exact(a updateAction, old, out item) error {
	switch {
	case a.kind == language.SET && a.value != nil:
		setAt(out, a.path, a.value)
	case a.kind == language.ADD && a.value != nil && isSet(a.value):
		cur := valueAt(old, a.path)
		if cur == nil {
			putAt(out, a.path, a.value)
			return nil
		}
		if typeOf(cur) != typeOf(a.value) {
			return validationf("An operand in the update expression has an incorrect data type")
		}
		setAt(out, a.path, setUnion(cur, a.value))
	case a.kind == language.DELETE && a.value != nil && isSet(a.value):
		cur := valueAt(old, a.path)
		if cur == nil {
			removeAt(out, a.path) // the interpreter makes a set here
			return nil
		}
		if typeOf(cur) != typeOf(a.value) {
			return validationf("An operand in the update expression has an incorrect data type")
		}
		if rest := setMinus(cur, a.value); rest != nil {
			setAt(out, a.path, rest)
		} else {
			removeAt(out, a.path)
		}
	case a.kind == language.ADD && a.value != nil && a.value.N != nil:
		sum := *a.value.N
		if cur := valueAt(old, a.path); cur != nil {
			if cur.N == nil {
				return validation("An operand in the update expression has an incorrect data type")
			}
			var err error
			if sum, err = addNumbers(*cur.N, sum, false); err != nil {
				return validation(err.Error())
			}
		}
		// ADD of a missing map key or past a list's end adds it there.
		putAt(out, a.path, &av{N: &sum})
	case a.kind == language.SET && isCall(a.right, "if_not_exists"):
		if v := u.operandValue(a.right, old); v != nil {
			setAt(out, a.path, v)
		}
	case a.kind == language.SET && isCall(a.right, "list_append"):
		call := a.right.(*language.CallExpression)
		if len(call.Arguments) != 2 {
			return nil
		}
		l, r := u.operandValue(call.Arguments[0], old), u.operandValue(call.Arguments[1], old)
		if l == nil || r == nil || l.L == nil || r.L == nil {
			return nil
		}
		setAt(out, a.path, &av{L: append(append([]*av{}, l.L...), r.L...)})
	case a.kind == language.SET:
		in, ok := a.right.(*language.InfixExpression)
		if !ok || (in.Operator != "+" && in.Operator != "-") {
			return nil
		}
		l, r := u.operandValue(in.Left, old), u.operandValue(in.Right, old)
		if l == nil || r == nil || l.N == nil || r.N == nil {
			return nil
		}
		sum, err := addNumbers(*l.N, *r.N, in.Operator == "-")
		if err != nil {
			return validation(err.Error())
		}
		setAt(out, a.path, &av{N: &sum})
	}
	return nil
}

func isCall(e language.Expression, name string) bool {
	call, ok := e.(*language.CallExpression)
	if !ok {
		return false
	}
	fn, ok := call.Function.(*language.Identifier)
	return ok && fn.Value == name
}

// operandsExist refuses SET arithmetic and list_append on a path the item
// does not hold (if_not_exists aside), as DynamoDB does.
func (u *updateExpr) operandsExist(a updateAction, old item) error {
	if a.kind != language.SET {
		return nil
	}
	var operands []language.Expression
	switch n := a.right.(type) {
	case *language.InfixExpression:
		operands = []language.Expression{n.Left, n.Right}
	case *language.CallExpression:
		if isCall(n, "list_append") {
			operands = n.Arguments
		}
	}
	for _, e := range operands {
		if id, ok := e.(*language.Identifier); ok && strings.HasPrefix(id.Value, ":") {
			continue
		}
		if _, ok := e.(*language.CallExpression); ok {
			continue
		}
		if p, err := u.x.pathOf(e); err == nil && valueAt(old, p) == nil {
			return validation("The provided expression refers to an attribute that does not exist in the item")
		}
	}
	return nil
}

// operandValue is the value of an operand of SET arithmetic in the item
// before the update: a placeholder, a path or if_not_exists(path, operand).
func (u *updateExpr) operandValue(e language.Expression, old item) *av {
	if id, ok := e.(*language.Identifier); ok && strings.HasPrefix(id.Value, ":") {
		return u.x.values[id.Value]
	}
	if call, ok := e.(*language.CallExpression); ok {
		if fn, ok := call.Function.(*language.Identifier); ok && fn.Value == "if_not_exists" && len(call.Arguments) == 2 {
			if v := u.operandValue(call.Arguments[0], old); v != nil {
				return v
			}
			return u.operandValue(call.Arguments[1], old)
		}
		return nil
	}
	p, err := u.x.pathOf(e)
	if err != nil {
		return nil
	}
	return valueAt(old, p)
}
