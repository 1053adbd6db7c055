package ddbdiff

import (
	"fmt"
	"math/big"
	"regexp"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// expr collects the #names and :values of one request's expressions, so that
// each request declares exactly what its expressions use (DynamoDB refuses
// unused ones).
type expr struct {
	names  map[string]string
	values map[string]types.AttributeValue
	byName map[string]string
}

func newExpr() *expr {
	return &expr{names: map[string]string{}, values: map[string]types.AttributeValue{}, byName: map[string]string{}}
}

func (e *expr) name(attr string) string {
	if ph, ok := e.byName[attr]; ok {
		return ph
	}
	ph := fmt.Sprintf("#n%d", len(e.names))
	e.names[ph], e.byName[attr] = attr, ph
	return ph
}

var segment = regexp.MustCompile(`^([A-Za-z0-9]+)((?:\[\d+\])*)$`)

// path writes a document path such as m.x[0] with every name a placeholder.
func (e *expr) path(p string) string {
	parts := strings.Split(p, ".")
	for i, part := range parts {
		m := segment.FindStringSubmatch(part)
		parts[i] = e.name(m[1]) + m[2]
	}
	return strings.Join(parts, ".")
}

func (e *expr) value(v types.AttributeValue) string {
	ph := fmt.Sprintf(":v%d", len(e.values))
	e.values[ph] = v
	return ph
}

// attrNames and attrValues are nil when empty: DynamoDB refuses empty maps.
func (e *expr) attrNames() map[string]string {
	if len(e.names) == 0 {
		return nil
	}
	return e.names
}

func (e *expr) attrValues() map[string]types.AttributeValue {
	if len(e.values) == 0 {
		return nil
	}
	return e.values
}

func strp(x string) *string { return &x }

// path returns a path of the main table: mostly top-level, sometimes nested,
// now and then an index or key attribute.
func (g *gen) path() string {
	switch k := g.r.IntN(10); {
	case k < 6:
		return pick(g.r, plainAttrs)
	case k < 8:
		return pick(g.r, nestedPaths)
	case k < 9:
		return pick(g.r, indexAttrs)
	default:
		return pick(g.r, []string{"PK", "SK", attrTTL})
	}
}

var comparators = []string{"=", "<>", "<", "<=", ">", ">="}

// cond returns a condition (or filter) expression over paths from path.
func (g *gen) cond(e *expr, depth int, path func() string) string {
	top := 12
	if depth >= 2 {
		top = 10
	}
	p := func() string { return e.path(path()) }
	switch g.r.IntN(top) {
	case 0:
		return "attribute_exists(" + p() + ")"
	case 1:
		return "attribute_not_exists(" + p() + ")"
	case 2, 3:
		return g.leftOperand(e, p) + " " + pick(g.r, comparators) + " " + g.rightOperand(e, p)
	case 4:
		return "begins_with(" + p() + ", " + e.value(s(pick(g.r, strings1))) + ")"
	case 5:
		return g.between(e, p)
	case 6:
		return g.leftOperand(e, p) + " IN (" + e.value(g.scalar()) + ", " + g.rightOperand(e, p) + ")"
	case 7:
		return "size(" + p() + ") " + pick(g.r, comparators) + " " + e.value(n(fmt.Sprint(g.r.IntN(4))))
	case 8:
		return "contains(" + p() + ", " + e.value(g.scalar()) + ")"
	case 9:
		t := pick(g.r, []string{"S", "N", "B", "BOOL", "NULL", "L", "M", "SS", "NS", "BS"})
		return "attribute_type(" + p() + ", " + e.value(s(t)) + ")"
	case 10:
		return "NOT (" + g.cond(e, depth+1, path) + ")"
	default:
		op := pick(g.r, []string{" AND ", " OR "})
		return "(" + g.cond(e, depth+1, path) + ")" + op + "(" + g.cond(e, depth+1, path) + ")"
	}
}

// leftOperand is the left side of a comparison: mostly a path, sometimes the
// size of one, a value, or one of those in parentheses.
func (g *gen) leftOperand(e *expr, p func() string) string {
	var o string
	switch k := g.r.IntN(10); {
	case k < 7:
		o = p()
	case k < 9:
		o = "size(" + p() + ")"
	default:
		o = e.value(g.scalar())
	}
	if g.v.chance(0.05) {
		o = "(" + o + ")"
	}
	return o
}

// rightOperand is the right side of a comparison: mostly a value, sometimes
// a path (which may be the left one, which DynamoDB refuses) or its size.
func (g *gen) rightOperand(e *expr, p func() string) string {
	switch k := g.r.IntN(10); {
	case k < 8:
		return e.value(g.scalar())
	case k < 9:
		return p()
	}
	return "size(" + p() + ")"
}

// between is a BETWEEN of a path, a list element, a size or a value, mostly
// between values in order.
func (g *gen) between(e *expr, p func() string) string {
	if g.v.chance(0.25) {
		lo, hi := fmt.Sprint(g.r.IntN(3)), fmt.Sprint(g.r.IntN(5))
		return "size(" + p() + ") BETWEEN " + e.value(n(lo)) + " AND " + e.value(n(hi))
	}
	a, b := g.scalarPair()
	left, lo, hi := p(), e.value(a), e.value(b)
	switch g.r.IntN(10) {
	case 0:
		left, lo = lo, p() // a value between a path and a value
	case 1:
		hi = p()
	}
	return left + " BETWEEN " + lo + " AND " + hi
}

// scalar is a string or a number, the types comparisons are about.
func (g *gen) scalar() types.AttributeValue {
	if g.v.chance(0.5) {
		return s(pick(g.r, strings1))
	}
	return n(pick(g.r, numbers))
}

// operand returns the value of an ADD or DELETE: rarely of a type those refuse.
func (g *gen) operand(attr string) types.AttributeValue {
	if attr == "s" || g.v.chance(0.05) {
		return g.v.any(1)
	}
	return g.v.exact(attr)
}

// scalarPair returns two values of one type, usually in order (BETWEEN
// refuses bounds out of order).
func (g *gen) scalarPair() (types.AttributeValue, types.AttributeValue) {
	if g.v.chance(0.5) {
		a, b := pick(g.r, strings1), pick(g.r, strings1)
		if a > b && g.v.chance(0.85) {
			a, b = b, a
		}
		return s(a), s(b)
	}
	a, b := pick(g.r, numbers), pick(g.r, numbers)
	x, _, _ := big.ParseFloat(a, 10, 200, big.ToNearestEven)
	y, _, _ := big.ParseFloat(b, 10, 200, big.ToNearestEven)
	if x.Cmp(y) > 0 && g.v.chance(0.85) {
		a, b = b, a
	}
	return n(a), n(b)
}

// projection returns a ProjectionExpression, or nil.
func (g *gen) projection(e *expr, attrs []string) *string {
	if !g.v.chance(0.3) {
		return nil
	}
	var ps []string
	for range 1 + g.r.IntN(3) {
		p := pick(g.r, attrs)
		if g.v.chance(0.3) {
			p = pick(g.r, nestedPaths)
		}
		ps = append(ps, e.path(p))
	}
	return strp(strings.Join(ps, ", "))
}

// update returns an UpdateExpression of one to four actions, on distinct
// top-level attributes unless overlap is wanted (DynamoDB refuses overlapping
// paths, and so must the engine).
func (g *gen) update(e *expr) string {
	used := map[string]bool{}
	fresh := func(p string) string {
		for range 5 {
			top := strings.FieldsFunc(p, func(r rune) bool { return r == '.' || r == '[' })[0]
			if !used[top] || g.v.chance(0.03) {
				used[top] = true
				return p
			}
			p = g.path()
		}
		return p
	}
	clauses := map[string][]string{}
	for range 1 + g.r.IntN(4) {
		kind := pick(g.r, []string{"SET", "SET", "SET", "REMOVE", "REMOVE", "ADD", "DELETE"})
		var action string
		switch kind {
		case "SET":
			action = g.setAction(e, fresh)
		case "REMOVE":
			action = e.path(fresh(g.path()))
		case "ADD":
			a := fresh(pick(g.r, []string{"n", "ss", "ns", "bs", "n", "s"}))
			action = e.path(a) + " " + e.value(g.operand(a))
		case "DELETE":
			a := fresh(pick(g.r, []string{"ss", "ns", "bs"}))
			action = e.path(a) + " " + e.value(g.operand(a))
		}
		clauses[kind] = append(clauses[kind], action)
	}
	var out []string
	for _, kind := range []string{"SET", "REMOVE", "ADD", "DELETE"} {
		if len(clauses[kind]) > 0 {
			out = append(out, kind+" "+strings.Join(clauses[kind], ", "))
		}
	}
	return strings.Join(out, " ")
}

func (g *gen) setAction(e *expr, fresh func(string) string) string {
	switch g.r.IntN(8) {
	case 0:
		a := fresh(pick(g.r, indexAttrs))
		return e.path(a) + " = " + e.value(s(g.v.indexValue(a)))
	case 1:
		p := e.path(fresh(pick(g.r, []string{"n", "n", "m.x", "l[0]", "s"})))
		sum := p + " " + pick(g.r, []string{"+", "-"}) + " " + e.value(n(pick(g.r, numbers)))
		if g.v.chance(0.1) {
			sum = "(" + sum + ")" // parentheses DynamoDB allows around a sum
		}
		return p + " = " + sum
	case 2:
		p := e.path(fresh(g.path()))
		return p + " = if_not_exists(" + p + ", " + e.value(g.v.any(1)) + ")"
	case 3:
		p := e.path(fresh(pick(g.r, []string{"l", "l", "m.x", "s"})))
		l := e.value(g.v.list(1))
		if g.v.chance(0.5) {
			return p + " = list_append(" + p + ", " + l + ")"
		}
		return p + " = list_append(" + l + ", if_not_exists(" + p + ", " + e.value(&types.AttributeValueMemberL{Value: []types.AttributeValue{}}) + "))"
	default:
		p := fresh(g.path())
		return e.path(p) + " = " + e.value(g.v.typed(p))
	}
}
