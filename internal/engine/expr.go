package engine

import (
	"encoding/json"
	"regexp"
	"slices"
	"strings"

	"github.com/truora/minidyn/interpreter"
	"github.com/truora/minidyn/interpreter/language"
)

// exprs holds one request's expressions' placeholders: the names and values
// they may use, and which of them they did use, since DynamoDB refuses
// placeholders that are undefined and ones that are unused.
type exprs struct {
	names  map[string]string
	values item
	used   map[string]bool
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
	p := language.NewParser(language.NewLexer(expr))
	ast := p.ParseConditionalExpression()
	if errs := p.Errors(); len(errs) > 0 || ast.Expression == nil {
		return nil, validationf("Invalid %s: Syntax error; %s", label, strings.Join(errs, "; "))
	}
	return &condition{x: x, label: label, ast: ast}, nil
}

// match evaluates the condition against an item (nil: the item does not exist).
func (c *condition) match(it item) (bool, error) {
	if c == nil {
		return true, nil
	}
	env := language.NewEnvironment()
	env.Aliases = c.x.names
	if err := env.AddAttributes(it); err != nil {
		return false, validationf("Invalid %s: %s", c.label, err)
	}
	if err := env.AddAttributes(c.x.values); err != nil {
		return false, validationf("Invalid %s: %s", c.label, err)
	}
	// An error here comes from the item's values (a function of a missing
	// attribute, operands of different types): DynamoDB evaluates such a
	// condition as false. Errors the expression makes whatever the item
	// (a value of the wrong type for its function) DynamoDB refuses before
	// it reads the item; the interpreter cannot tell them apart, so they
	// are false here too.
	return language.Eval(c.ast, env) == language.TRUE, nil
}

// update applies an update expression to an item (empty when it does not
// exist) and returns the new item. Attributes the expression leaves as they
// were keep their exact stored values: the interpreter holds numbers as
// float64, so only numbers it computed are rounded to 15–17 digits.
func (x *exprs) update(expr string, it item) (item, error) {
	if err := x.use("UpdateExpression", expr); err != nil {
		return nil, err
	}
	p := language.NewUpdateParser(language.NewLexer(expr))
	stmt := p.ParseUpdateExpression()
	if errs := p.Errors(); len(errs) > 0 {
		return nil, validationf("Invalid UpdateExpression: Syntax error; %s", strings.Join(errs, "; "))
	}
	if err := interpreter.ValidateExpressionAttributeNamesDeclared("UpdateExpression", expr, x.names); err != nil {
		return nil, validation(err.Error())
	}
	env := language.NewEnvironment()
	env.Aliases = x.names
	if err := env.AddAttributes(it); err != nil {
		return nil, validationf("Invalid UpdateExpression: %s", err)
	}
	if err := env.AddAttributes(x.values); err != nil {
		return nil, validationf("Invalid UpdateExpression: %s", err)
	}
	if res := language.EvalUpdate(stmt, env); res.Type() == language.ObjectTypeError {
		msg := res.Inspect()
		if e, ok := res.(*language.Error); ok {
			msg = e.Message
		}
		return nil, validation(msg)
	}
	exclude := map[string]bool{}
	for k := range x.values {
		exclude[k] = true
	}
	out := item{}
	env.Apply(out, x.names, exclude)
	for k, v := range out {
		if old, ok := it[k]; ok && sameAsRoundTrip(old, v) {
			out[k] = old
			continue
		}
		norm, err := normalize(v)
		if err != nil {
			return nil, err
		}
		out[k] = norm
	}
	return out, nil
}

// sameAsRoundTrip reports whether v is what the interpreter makes of old
// when it does not touch it.
func sameAsRoundTrip(old, v *av) bool {
	obj, err := language.MapToObject(old)
	if err != nil {
		return false
	}
	rt := obj.ToDynamoDB()
	return equalAV(&rt, v)
}

// normalize re-reads a value the interpreter computed as if a client had
// sent it: numbers canonical, sets checked.
func normalize(v *av) (*av, error) {
	return decodeAV(appendAV(nil, v))
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

// projection is a parsed ProjectionExpression.
type projection struct {
	x    *exprs
	expr string
}

func (x *exprs) projection(expr string) (*projection, error) {
	if expr == "" {
		return nil, nil
	}
	if err := x.use("ProjectionExpression", expr); err != nil {
		return nil, err
	}
	return &projection{x: x, expr: expr}, nil
}

// apply returns the projected item (the whole item when p is nil).
func (p *projection) apply(it item) (item, error) {
	if p == nil {
		return it, nil
	}
	out, err := (&interpreter.Language{}).Project(interpreter.ProjectInput{Expression: p.expr, Item: it, Aliases: p.x.names})
	if err != nil {
		return nil, validation(err.Error())
	}
	for k, v := range out {
		if old, ok := it[k]; ok && sameAsRoundTrip(old, v) {
			out[k] = old
		}
	}
	return out, nil
}
