package engine

import (
	"fmt"
	"strconv"

	"github.com/truora/minidyn/interpreter/language"
)

// DynamoDB's limits on expressions.
const (
	maxExpressionBytes = 4096
	maxOperators       = 300
	maxInOperands      = 100
	maxPathDepth       = 32
	maxListIndex       = 1<<31 - 1
)

type nodeKind uint8

const (
	nodeAnd nodeKind = iota
	nodeOr
	nodeNot
	nodeCompare // op is the comparator
	nodeBetween // args: the operand, then the bounds
	nodeIn      // args: the operand, then the candidates
	nodeFunc    // op is the function's name
	nodePath
	nodeValue
	nodeArith // op is + or -
)

// node is a parsed expression: a condition, an operand or a SET's value.
type node struct {
	kind   nodeKind
	op     string
	args   []*node
	path   path
	value  *av  // a nodeValue's value
	parens bool // written in parentheses
}

// parser reads one expression (label names it in errors) by DynamoDB's
// grammar: conditions of comparisons, BETWEEN, IN and functions joined by
// NOT, AND and OR; operands that are paths, :values, functions or any of
// those in parentheses.
type parser struct {
	x     *exprs
	label string
	expr  string
	toks  []token
	pos   int
	ops   int // operators and functions so far
}

func newParser(x *exprs, label, expr string) *parser {
	return &parser{x: x, label: label, expr: expr, toks: lex(expr)}
}

// parseError is an expression's error and how far the parse got: a syntax
// error at its token, any other past every token. When a parse backtracks,
// the error that got further is the one reported.
type parseError struct {
	at  int
	err *apiError
}

func (p *parser) peek() token { return p.toks[p.pos] }

func (p *parser) is(kind tokKind, text string) bool {
	t := p.peek()
	return t.kind == kind && (text == "" || t.text == text)
}

func (p *parser) syntaxError() *parseError {
	t := p.peek()
	from := 0
	if p.pos > 0 {
		from = p.toks[p.pos-1].pos
	}
	to := len(p.expr)
	if p.pos+1 < len(p.toks) {
		to = p.toks[p.pos+1].pos
	}
	return &parseError{at: p.pos, err: validationf("Invalid %s: Syntax error; token: %q, near: %q", p.label, t.text, p.expr[from:to])}
}

// semantic is an error of a well-formed expression; it ends the parse.
func (p *parser) semantic(format string, args ...any) *parseError {
	return &parseError{at: len(p.toks), err: validationf("Invalid "+p.label+": "+format, args...)}
}

func (p *parser) expect(kind tokKind, text string) *parseError {
	if !p.is(kind, text) {
		return p.syntaxError()
	}
	p.pos++
	return nil
}

// countOperator counts one operator or function against DynamoDB's limit.
func (p *parser) countOperator() *parseError {
	if p.ops++; p.ops > maxOperators {
		return p.semantic("The expression contains too many operators; operator count: %d", p.ops)
	}
	return nil
}

// operand is a path, a :value, a function call, or one of those in
// parentheses.
func (p *parser) operand() (*node, *parseError) {
	t := p.peek()
	switch {
	case t.kind == tokPunct && t.text == "(":
		p.pos++
		o, err := p.operand()
		if err == nil {
			err = p.expect(tokPunct, ")")
		}
		if err != nil {
			return nil, err
		}
		if o.parens {
			return nil, p.semantic("The expression has redundant parentheses;")
		}
		o.parens = true
		return o, nil
	case t.kind == tokValue:
		p.pos++
		return &node{kind: nodeValue, value: p.x.values[t.text]}, nil
	case t.kind == tokName && p.toks[p.pos+1].kind == tokPunct && p.toks[p.pos+1].text == "(":
		p.pos++
		args, err := p.operandList()
		if err != nil {
			return nil, err
		}
		return &node{kind: nodeFunc, op: t.text, args: args}, p.countOperator()
	}
	pth, err := p.path()
	if err != nil {
		return nil, err
	}
	return &node{kind: nodePath, path: pth}, nil
}

// path is a name, then .names and [indexes], at most 32 levels.
func (p *parser) path() (path, *parseError) {
	first, err := p.pathName()
	if err != nil {
		return nil, err
	}
	out := path{{Kind: language.PathKindMapKey, Key: first}}
	for {
		switch {
		case p.is(tokPunct, "."):
			p.pos++
			name, err := p.pathName()
			if err != nil {
				return nil, err
			}
			out = append(out, language.PathElement{Kind: language.PathKindMapKey, Key: name})
		case p.is(tokPunct, "["):
			p.pos++
			t := p.peek()
			if err := p.expect(tokIndex, ""); err != nil {
				return nil, err
			}
			i, convErr := strconv.ParseInt(t.text, 10, 64)
			if convErr != nil || i > maxListIndex {
				return nil, p.semantic("List index is not within the allowable range; index: [%s]", t.text)
			}
			if err := p.expect(tokPunct, "]"); err != nil {
				return nil, err
			}
			out = append(out, language.PathElement{Kind: language.PathKindListIndex, Index: i})
		default:
			if len(out) > maxPathDepth {
				return nil, p.semantic("The document path has too many nesting levels; nesting levels: %d", len(out))
			}
			return out, nil
		}
	}
}

// pathName is a bare name (not a reserved word) or a #name.
func (p *parser) pathName() (string, *parseError) {
	t := p.peek()
	switch t.kind {
	case tokNameRef:
		p.pos++
		return p.x.names[t.text], nil
	case tokName:
		p.pos++
		if reservedWords[toUpperASCII(t.text)] {
			return "", p.semantic("Attribute name is a reserved keyword; reserved keyword: %s", t.text)
		}
		return t.text, nil
	}
	return "", p.syntaxError()
}

func toUpperASCII(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'a' && c <= 'z' {
			b[i] = c - 'a' + 'A'
		}
	}
	return string(b)
}

// end requires the whole expression to have been read.
func (p *parser) end() *parseError {
	if !p.is(tokEOF, "") {
		return p.syntaxError()
	}
	return nil
}

// checkLength refuses an expression over DynamoDB's 4 KB.
func checkLength(label, expr string) error {
	if len(expr) > maxExpressionBytes {
		return validationf("Invalid %s: Expression size has exceeded the maximum allowed size; expression size: %d", label, len(expr))
	}
	return nil
}

func (e *parseError) Error() string { return fmt.Sprint(e.err) }
