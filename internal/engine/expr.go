package engine

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/truora/minidyn/interpreter/language"
)

// exprs holds one request's expressions' placeholders: the names and values
// they may use, and which of them they did use, since DynamoDB refuses
// placeholders that are undefined and ones that are unused.
type exprs struct {
	names  map[string]string
	values item
	used   map[string]bool
	bare   map[string]string // names written bare, and the placeholders alias gave them
}

func newExprs(names map[string]string, rawValues json.RawMessage) (*exprs, error) {
	if names != nil && len(names) == 0 {
		return nil, validation("ExpressionAttributeNames must not be empty")
	}
	values, err := decodeItem(rawValues)
	if err != nil {
		return nil, err
	}
	if values != nil && len(values) == 0 {
		return nil, validation("ExpressionAttributeValues must not be empty")
	}
	return &exprs{names: names, values: values, used: map[string]bool{}}, nil
}

var placeholder = regexp.MustCompile(`[#:][A-Za-z0-9_]+`)

// use records the placeholders of one expression (label names it in errors),
// refusing undefined ones.
func (x *exprs) use(label, expr string) error {
	for _, p := range placeholder.FindAllString(expr, -1) {
		if p[0] == '#' {
			if _, ok := x.names[p]; !ok {
				return validationf("Invalid %s: An expression attribute name used in the document path is not defined; attribute name: %s", label, p)
			}
		} else if _, ok := x.values[p]; !ok {
			return validationf("Invalid %s: An expression attribute value used in expression is not defined; attribute value: %s", label, p)
		}
		x.used[p] = true
	}
	return nil
}

// checkUnused refuses placeholders no expression used; call it after every
// expression of the request went through use.
func (x *exprs) checkUnused() error {
	var names, values []string
	for k := range x.names {
		if !x.used[k] {
			names = append(names, k)
		}
	}
	for k := range x.values {
		if !x.used[k] {
			values = append(values, k)
		}
	}
	slices.Sort(names)
	slices.Sort(values)
	if len(names) > 0 {
		return validation("Value provided in ExpressionAttributeNames unused in expressions: keys: {" + strings.Join(names, ", ") + "}")
	}
	if len(values) > 0 {
		return validation("Value provided in ExpressionAttributeValues unused in expressions: keys: {" + strings.Join(values, ", ") + "}")
	}
	return nil
}

// condition is a parsed condition or filter expression.
type condition struct {
	x     *exprs
	label string
	ast   *language.ConditionalExpression
}

// compile parses a condition once, for evaluation against many items. A nil
// condition (no expression) matches everything.
func (x *exprs) compile(label, expr string) (*condition, error) {
	if expr == "" {
		return nil, nil
	}
	if err := x.use(label, expr); err != nil {
		return nil, err
	}
	expr, err := x.alias(label, expr)
	if err != nil {
		return nil, err
	}
	p := language.NewParser(language.NewLexer(expr))
	ast := p.ParseConditionalExpression()
	if errs := p.Errors(); len(errs) > 0 || ast.Expression == nil {
		return nil, validationf("Invalid %s: Syntax error; %s", label, strings.Join(errs, "; "))
	}
	c := &condition{x: x, label: label, ast: ast}
	if err := c.checkStatic(ast.Expression); err != nil {
		return nil, err
	}
	return c, nil
}

// evalBool evaluates a condition as DynamoDB does: AND, OR and NOT combine
// comparisons and functions, and a comparison or function that cannot be
// evaluated on the item's values (a function of a missing attribute,
// operands of different types) is false, not an error. Errors the
// expression makes whatever the item (a value of the wrong type for its
// function) DynamoDB refuses before it reads the item; the interpreter
// cannot tell them apart, so they are false here too.
func evalBool(e language.Expression, env *language.Environment) bool {
	switch n := e.(type) {
	case *language.InfixExpression:
		switch strings.ToUpper(n.Operator) {
		case "AND":
			return evalBool(n.Left, env) && evalBool(n.Right, env)
		case "OR":
			return evalBool(n.Left, env) || evalBool(n.Right, env)
		}
	case *language.PrefixExpression:
		if strings.ToUpper(n.Operator) == "NOT" {
			return !evalBool(n.Right, env)
		}
	case *language.InExpression:
		// One candidate of another type than the operand is simply not
		// equal to it (the interpreter fails the whole IN).
		for _, r := range n.Range {
			if evalBool(&language.InfixExpression{Token: n.Token, Left: n.Left, Operator: "=", Right: r}, env) {
				return true
			}
		}
		return false
	}
	res := safeEval(e, env)
	if res.Type() == language.ObjectTypeError {
		// A missing or mistyped operand is "not equal" to anything, and a
		// path that leads nowhere does not exist.
		switch n := e.(type) {
		case *language.InfixExpression:
			return n.Operator == "<>"
		case *language.CallExpression:
			fn, ok := n.Function.(*language.Identifier)
			return ok && fn.Value == "attribute_not_exists"
		}
		return false
	}
	return res == language.TRUE
}

// safeEval evaluates one comparison or function; the interpreter panics on
// some paths that lead nowhere (a list index past the end), which is an
// error like any other here.
func safeEval(e language.Expression, env *language.Environment) (res language.Object) {
	defer func() {
		if p := recover(); p != nil {
			res = &language.Error{Message: fmt.Sprint(p)}
		}
	}()
	return language.Eval(e, env)
}

// safeEvalUpdate runs an update; the interpreter panics on a list index past
// the end, which DynamoDB refuses as a path invalid for the item.
func safeEvalUpdate(stmt *language.UpdateStatement, env *language.Environment) (res language.Object) {
	if stmt == nil {
		return &language.Null{}
	}
	defer func() {
		if p := recover(); p != nil {
			res = &language.Error{Message: "The document path provided in the update expression is invalid for update"}
		}
	}()
	return language.EvalUpdate(stmt, env)
}

// checkStatic refuses what DynamoDB refuses before reading an item: a
// BETWEEN whose bounds are values in the wrong order.
func (c *condition) checkStatic(e language.Expression) error {
	switch n := e.(type) {
	case *language.InfixExpression:
		if err := c.checkStatic(n.Left); err != nil {
			return err
		}
		return c.checkStatic(n.Right)
	case *language.PrefixExpression:
		return c.checkStatic(n.Right)
	case *language.BetweenExpression:
		lo, hi := c.x.operand(n.Range[0]).value, c.x.operand(n.Range[1]).value
		if lo != nil && hi != nil && typeOf(lo) == typeOf(hi) && (lo.S != nil || lo.N != nil || typeOf(lo) == "B") && compareKeyValues(lo, hi) > 0 {
			return validationf("Invalid %s: The BETWEEN operator requires upper bound to be greater than or equal to lower bound; lower bound operand: AttributeValue: %s, upper bound operand: AttributeValue: %s",
				c.label, describeAV(lo), describeAV(hi))
		}
	}
	return nil
}

// names returns the attributes the condition reads at the top level.
func (c *condition) names() []string {
	var out []string
	var walk func(e language.Expression)
	walk = func(e language.Expression) {
		switch n := e.(type) {
		case *language.InfixExpression:
			walk(n.Left)
			walk(n.Right)
		case *language.PrefixExpression:
			walk(n.Right)
		case *language.BetweenExpression:
			walk(n.Left)
			walk(n.Range[0])
			walk(n.Range[1])
		case *language.InExpression:
			walk(n.Left)
			for _, r := range n.Range {
				walk(r)
			}
		case *language.CallExpression:
			for _, a := range n.Arguments {
				walk(a)
			}
		case *language.IndexExpression:
			walk(n.Left)
		case *language.Identifier:
			if op := c.x.operand(n); op.name != "" {
				out = append(out, op.name)
			}
		}
	}
	walk(c.ast.Expression)
	return out
}

// match evaluates the condition against an item (nil: the item does not exist).
func (c *condition) match(it item) (bool, error) {
	if c == nil {
		return true, nil
	}
	env := language.NewEnvironment()
	env.Aliases = c.x.names
	if err := addAttributes(env, it); err != nil {
		return false, validationf("Invalid %s: %s", c.label, err)
	}
	if err := addAttributes(env, c.x.values); err != nil {
		return false, validationf("Invalid %s: %s", c.label, err)
	}
	return evalBool(c.ast.Expression, env), nil
}

// updateExpr is a parsed UpdateExpression and what its actions do.
type updateExpr struct {
	x       *exprs
	stmt    *language.UpdateStatement
	actions []updateAction
}

type updateAction struct {
	kind  language.TokenType // SET, REMOVE, ADD or DELETE
	path  path
	value *av                 // the placeholder's value when the action's operand is one
	right language.Expression // the operand
}

// typeNames are DynamoDB's names of types in operand errors.
var typeNames = map[string]string{"S": "STRING", "N": "NUMBER", "B": "BINARY", "BOOL": "BOOLEAN", "NULL": "NULL",
	"M": "MAP", "L": "LIST", "SS": "STRING_SET", "NS": "NUMBER_SET", "BS": "BINARY_SET"}

// parseUpdate parses an update expression (nil: none given) and checks what
// DynamoDB checks before it reads the item: syntax, placeholders, operand
// types of ADD and DELETE, paths that overlap.
func (x *exprs) parseUpdate(expr *string) (*updateExpr, error) {
	if expr == nil {
		return nil, nil
	}
	if strings.TrimSpace(*expr) == "" {
		return nil, validation("Invalid UpdateExpression: The expression can not be empty;")
	}
	if err := x.use("UpdateExpression", *expr); err != nil {
		return nil, err
	}
	aliased, err := x.alias("UpdateExpression", *expr)
	if err != nil {
		return nil, err
	}
	p := language.NewUpdateParser(language.NewLexer(aliased))
	stmt := p.ParseUpdateExpression()
	if errs := p.Errors(); len(errs) > 0 {
		return nil, validationf("Invalid UpdateExpression: Syntax error; %s", strings.Join(errs, "; "))
	}
	ue, ok := stmt.Expression.(*language.UpdateExpression)
	if !ok {
		return nil, validation("Invalid UpdateExpression: Syntax error")
	}
	u := &updateExpr{x: x, stmt: stmt}
	var paths []path
	for _, e := range ue.Expressions {
		act, ok := e.(*language.ActionExpression)
		if !ok {
			return nil, validation("Invalid UpdateExpression: Syntax error")
		}
		pth, err := x.pathOf(act.Left)
		if err != nil {
			return nil, validation("Invalid UpdateExpression: " + err.Error())
		}
		a := updateAction{kind: act.Token.Type, path: pth, right: act.Right}
		if id, ok := act.Right.(*language.Identifier); ok && strings.HasPrefix(id.Value, ":") {
			a.value = x.values[id.Value]
		}
		if err := a.checkOperand(); err != nil {
			return nil, err
		}
		u.actions = append(u.actions, a)
		paths = append(paths, pth)
	}
	if err := checkOverlaps("UpdateExpression", paths); err != nil {
		return nil, err
	}
	return u, nil
}

func (a updateAction) checkOperand() error {
	if a.value == nil {
		return nil
	}
	t := typeOf(a.value)
	switch {
	case a.kind == language.ADD && t != "N" && t != "SS" && t != "NS" && t != "BS":
		return validationf("Invalid UpdateExpression: Incorrect operand type for operator or function; operator: ADD, operand type: %s, typeSet: ALLOWED_FOR_ADD_OPERAND", typeNames[t])
	case a.kind == language.DELETE && t != "SS" && t != "NS" && t != "BS":
		return validationf("Invalid UpdateExpression: Incorrect operand type for operator or function; operator: DELETE, operand type: %s, typeSet: ALLOWED_FOR_DELETE_OPERAND", typeNames[t])
	}
	return nil
}

// checkKeys refuses an update of a key attribute.
func (u *updateExpr) checkKeys(keys []string) error {
	if u == nil {
		return nil
	}
	for _, a := range u.actions {
		for _, k := range keys {
			if a.path[0].Key == k {
				return validationf("One or more parameter values were invalid: Cannot update attribute %s. This attribute is part of the key", k)
			}
		}
	}
	return nil
}

// returnedPaths are what UPDATED_OLD and UPDATED_NEW return of an item (the
// item before or after the update), as DynamoDB Local answers: the whole
// top-level attribute of every path the update names that the item holds.
func (u *updateExpr) returnedPaths(it item) []path {
	var out []path
	for _, a := range u.actions {
		if valueAt(it, a.path) != nil {
			out = append(out, a.path[:1])
		}
	}
	return out
}

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
	stmt, beyond := u.withoutIndexesBeyond(it)
	if len(beyond) == len(u.actions) {
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
	for i, a := range u.actions {
		if beyond[i] {
			// SET past a list's end appends; REMOVE past it does nothing.
			if a.kind == language.SET {
				if v := u.setValue(a, it); v != nil {
					list := valueAt(out, a.path[:len(a.path)-1])
					list.L = append(list.L, v)
				}
			}
			continue
		}
		if err := u.exact(a, it, out); err != nil {
			return nil, err
		}
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

// withoutIndexesBeyond returns the update without its actions on a list
// index past the end of an existing list (the interpreter panics on them),
// and which actions those were.
func (u *updateExpr) withoutIndexesBeyond(it item) (*language.UpdateStatement, map[int]bool) {
	beyond := map[int]bool{}
	for i, a := range u.actions {
		last := a.path[len(a.path)-1]
		if last.Kind != language.PathKindListIndex || (a.kind != language.SET && a.kind != language.REMOVE) {
			continue
		}
		if list := valueAt(it, a.path[:len(a.path)-1]); list != nil && list.L != nil && last.Index >= int64(len(list.L)) {
			beyond[i] = true
		}
	}
	if len(beyond) == 0 {
		return u.stmt, beyond
	}
	ue := u.stmt.Expression.(*language.UpdateExpression)
	kept := &language.UpdateExpression{Token: ue.Token}
	for i, e := range ue.Expressions {
		if !beyond[i] {
			kept.Expressions = append(kept.Expressions, e)
		}
	}
	return &language.UpdateStatement{Token: u.stmt.Token, Expression: kept}, beyond
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
			setAt(out, a.path, a.value)
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
		setAt(out, a.path, &av{N: &sum})
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

// addAttributes puts an item's attributes into the interpreter's
// environment.
func addAttributes(env *language.Environment, it item) error {
	for k, v := range it {
		obj, err := toObject(v)
		if err != nil {
			return err
		}
		env.Set(k, obj)
	}
	return nil
}

// toObject converts a value for the interpreter, which cannot read an empty
// binary (DynamoDB allows one outside keys) at any depth.
func toObject(v *av) (language.Object, error) {
	switch {
	case v.M != nil:
		m := make(map[string]language.Object, len(v.M))
		for k, e := range v.M {
			obj, err := toObject(e)
			if err != nil {
				return nil, err
			}
			m[k] = obj
		}
		return &language.Map{Value: m}, nil
	case v.L != nil:
		l := make([]language.Object, len(v.L))
		for i, e := range v.L {
			obj, err := toObject(e)
			if err != nil {
				return nil, err
			}
			l[i] = obj
		}
		return &language.List{Value: l}, nil
	case typeOf(v) == "B" && len(v.B) == 0:
		return &language.Binary{Value: []byte{}}, nil
	}
	return language.MapToObject(v)
}

// equalAV compares two values, sets as sets.
func equalAV(a, b *av) bool {
	if typeOf(a) != typeOf(b) {
		return false
	}
	switch {
	case a.S != nil:
		return *a.S == *b.S
	case a.N != nil:
		return *a.N == *b.N
	case a.BOOL != nil:
		return *a.BOOL == *b.BOOL
	case a.NULL != nil:
		return true
	case a.M != nil:
		if len(a.M) != len(b.M) {
			return false
		}
		for k, v := range a.M {
			if w, ok := b.M[k]; !ok || !equalAV(v, w) {
				return false
			}
		}
		return true
	case a.L != nil:
		return slices.EqualFunc(a.L, b.L, equalAV)
	case a.SS != nil:
		return sameStrings(a.SS, b.SS)
	case a.NS != nil:
		return sameStrings(a.NS, b.NS)
	case a.BS != nil:
		return sameStrings(bytesAsStrings(a.BS), bytesAsStrings(b.BS))
	}
	return string(a.B) == string(b.B)
}

func sameStrings(a, b []*string) bool {
	if len(a) != len(b) {
		return false
	}
	set := map[string]bool{}
	for _, s := range a {
		set[*s] = true
	}
	for _, s := range b {
		if !set[*s] {
			return false
		}
	}
	return true
}

func bytesAsStrings(bs [][]byte) []*string {
	out := make([]*string, len(bs))
	for i, b := range bs {
		s := string(b)
		out[i] = &s
	}
	return out
}

// projection is a parsed ProjectionExpression: the paths it keeps.
type projection struct {
	paths []path
}

func (x *exprs) projection(expr string) (*projection, error) {
	if expr == "" {
		return nil, nil
	}
	if err := x.use("ProjectionExpression", expr); err != nil {
		return nil, err
	}
	expr, err := x.alias("ProjectionExpression", expr)
	if err != nil {
		return nil, err
	}
	p := language.NewParser(language.NewLexer(expr))
	list := p.ParseProjectionExpression()
	if errs := p.Errors(); len(errs) > 0 || len(list) == 0 {
		return nil, validationf("Invalid ProjectionExpression: Syntax error; %s", strings.Join(errs, "; "))
	}
	proj := &projection{}
	for _, e := range list {
		pth, err := x.pathOf(e)
		if err != nil {
			return nil, validation("Invalid ProjectionExpression: " + err.Error())
		}
		proj.paths = append(proj.paths, pth)
	}
	if err := checkOverlaps("ProjectionExpression", proj.paths); err != nil {
		return nil, err
	}
	return proj, nil
}

// apply returns the projected item (the whole item when p is nil).
func (p *projection) apply(it item) (item, error) {
	if p == nil {
		return it, nil
	}
	return project(it, p.paths), nil
}
