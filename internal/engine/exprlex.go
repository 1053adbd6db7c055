package engine

import "strings"

// The expression grammar's tokens, as DynamoDB reads them: a bare name
// starts with a letter and goes on with letters, digits and '_'; a list
// index is 0 or digits without a leading 0 (so "01" is two tokens); the
// grammar's words are keywords in any case; whitespace separates tokens.

type tokKind uint8

const (
	tokEOF     tokKind = iota
	tokName            // a bare attribute or function name
	tokNameRef         // #name
	tokValue           // :value
	tokIndex           // a list index
	tokKeyword         // AND, OR, NOT, BETWEEN, IN, SET, REMOVE, ADD, DELETE
	tokPunct           // ( ) [ ] . , = <> < <= > >= + -
	tokUnknown         // anything else: a syntax error wherever it is
)

type token struct {
	kind tokKind
	text string // as written; a keyword upper-cased
	pos  int    // byte offset in the expression
}

// keywords are the grammar's own words; DynamoDB reserves them as names too.
var keywords = map[string]bool{"AND": true, "OR": true, "NOT": true, "BETWEEN": true, "IN": true,
	"SET": true, "REMOVE": true, "ADD": true, "DELETE": true}

// lex splits an expression into tokens, ending with tokEOF.
func lex(expr string) []token {
	toks := make([]token, 0, len(expr)/3+2)
	for i := 0; i < len(expr); {
		c := expr[i]
		start := i
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
			continue
		case isLetter(c):
			for i++; i < len(expr) && isNameByte(expr[i]); i++ {
			}
			word := expr[start:i]
			if upper := strings.ToUpper(word); keywords[upper] {
				toks = append(toks, token{tokKeyword, upper, start})
				continue
			}
			toks = append(toks, token{tokName, word, start})
		case c == '#' || c == ':':
			for i++; i < len(expr) && isNameByte(expr[i]); i++ {
			}
			kind := tokNameRef
			if c == ':' {
				kind = tokValue
			}
			if i == start+1 {
				kind = tokUnknown
			}
			toks = append(toks, token{kind, expr[start:i], start})
		case c >= '0' && c <= '9':
			i++
			if c != '0' {
				for i < len(expr) && expr[i] >= '0' && expr[i] <= '9' {
					i++
				}
			}
			toks = append(toks, token{tokIndex, expr[start:i], start})
		case c == '<' && i+1 < len(expr) && (expr[i+1] == '>' || expr[i+1] == '='), c == '>' && i+1 < len(expr) && expr[i+1] == '=':
			i += 2
			toks = append(toks, token{tokPunct, expr[start:i], start})
		case strings.IndexByte("()[].,=<>+-", c) >= 0:
			i++
			toks = append(toks, token{tokPunct, expr[start:i], start})
		default:
			i++
			toks = append(toks, token{tokUnknown, expr[start:i], start})
		}
	}
	return append(toks, token{tokEOF, "<EOF>", len(expr)})
}

func isLetter(c byte) bool { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') }
