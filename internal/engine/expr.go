package engine

import (
	"encoding/json"
	"errors"
	"regexp"
	"slices"
	"strings"
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

// expression is an expression parameter as sent. DynamoDB refuses one sent
// empty, which a plain string could not tell from one not sent, so decoding
// refuses it (and decodeRequest names the parameter).
type expression string

// errEmptyExpression is the decoding error of an expression sent empty.
var errEmptyExpression = errors.New("empty expression")

// UnmarshalJSON refuses an empty expression; null is one not sent.
func (e *expression) UnmarshalJSON(b []byte) error {
	var s *string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	if s != nil && *s == "" {
		return errEmptyExpression
	}
	if s != nil {
		*e = expression(*s)
	}
	return nil
}

var emptyExpressionRE = regexp.MustCompile(`"(\w+Expression)"\s*:\s*""`)

// emptyExpression is DynamoDB's refusal of an expression sent empty in body.
func emptyExpression(body []byte) error {
	name := "Expression"
	if m := emptyExpressionRE.FindSubmatch(body); m != nil {
		name = string(m[1])
	}
	return validation("Invalid " + name + ": The expression can not be empty;")
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
	label string
	root  *node
}

// compile parses and checks a condition once, for evaluation against many
// items: what DynamoDB refuses before it reads an item is refused here.
// A nil condition (no expression) matches everything.
func (x *exprs) compile(label, expr string) (*condition, error) {
	if expr == "" {
		return nil, nil
	}
	if err := checkLength(label, expr); err != nil {
		return nil, err
	}
	if err := x.use(label, expr); err != nil {
		return nil, err
	}
	p := newParser(x, label, expr)
	root, err := p.condition()
	if err == nil {
		err = p.end()
	}
	if err == nil {
		err = p.checkCondition(root)
	}
	if err != nil {
		return nil, err.err
	}
	return &condition{label: label, root: root}, nil
}

// names returns the attributes the condition reads at the top level.
func (c *condition) names() []string { return c.root.topNames(nil) }

// match evaluates the condition against an item (nil: the item does not
// exist); no condition matches everything.
func (c *condition) match(it item) bool {
	return c == nil || c.root.holds(it)
}

// projection is a parsed ProjectionExpression: the paths it keeps.
type projection struct {
	paths []path
}

func (x *exprs) projection(expr string) (*projection, error) {
	const label = "ProjectionExpression"
	if expr == "" {
		return nil, nil
	}
	if err := checkLength(label, expr); err != nil {
		return nil, err
	}
	if err := x.use(label, expr); err != nil {
		return nil, err
	}
	p := newParser(x, label, expr)
	proj := &projection{}
	for {
		pth, err := p.path()
		if err != nil {
			return nil, err.err
		}
		proj.paths = append(proj.paths, pth)
		if !p.is(tokPunct, ",") {
			break
		}
		p.pos++
	}
	if err := p.end(); err != nil {
		return nil, err.err
	}
	if err := checkOverlaps(label, proj.paths); err != nil {
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

// topNames are the attributes a projection reads, at the top level.
func (p *projection) topNames() []string {
	var out []string
	for _, pth := range p.paths {
		if !slices.Contains(out, pth[0].Key) {
			out = append(out, pth[0].Key)
		}
	}
	return out
}
