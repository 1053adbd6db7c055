package engine

import (
	"fmt"
	"strings"
)

// grammarWords are the words of expressions themselves; the parser reads
// them, and DynamoDB refuses them as attribute names with a syntax error.
var grammarWords = map[string]bool{"AND": true, "OR": true, "NOT": true, "BETWEEN": true, "IN": true,
	"SET": true, "REMOVE": true, "ADD": true, "DELETE": true}

// functions are the expressions' functions: a name is one only when a
// parenthesis follows.
var functions = map[string]bool{"attribute_exists": true, "attribute_not_exists": true, "attribute_type": true,
	"begins_with": true, "contains": true, "size": true, "list_append": true, "if_not_exists": true}

// alias checks the attribute names an expression writes bare, refusing
// DynamoDB's reserved words, and rewrites every one into a #placeholder of
// its own: the interpreter has keywords of its own (SIZE) that DynamoDB
// accepts as names.
func (x *exprs) alias(label, expr string) (string, error) {
	var b strings.Builder
	for i := 0; i < len(expr); {
		c := expr[i]
		switch {
		case c == '#' || c == ':':
			j := i + 1
			for j < len(expr) && isNameByte(expr[j]) {
				j++
			}
			b.WriteString(expr[i:j])
			i = j
		case isNameStart(c):
			j := i
			for j < len(expr) && isNameByte(expr[j]) {
				j++
			}
			word := expr[i:j]
			k := j
			for k < len(expr) && expr[k] == ' ' {
				k++
			}
			upper := strings.ToUpper(word)
			switch {
			case functions[word] && k < len(expr) && expr[k] == '(', grammarWords[upper]:
				b.WriteString(word)
			case reservedWords[upper]:
				return "", validationf("Invalid %s: Attribute name is a reserved keyword; reserved keyword: %s", label, word)
			default:
				b.WriteString(x.placeholderFor(word))
			}
			i = j
		default:
			b.WriteByte(c)
			i++
		}
	}
	return b.String(), nil
}

// placeholderFor returns a #placeholder of the engine's own for a bare name.
func (x *exprs) placeholderFor(name string) string {
	if x.bare == nil {
		x.bare = map[string]string{}
	}
	if p, ok := x.bare[name]; ok {
		return p
	}
	if x.names == nil {
		x.names = map[string]string{}
	}
	for n := len(x.bare); ; n++ {
		p := fmt.Sprintf("#calgraph_bare_%d", n)
		if _, taken := x.names[p]; !taken {
			x.names[p], x.bare[name] = name, p
			x.used[p] = true
			return p
		}
	}
}

func isNameStart(c byte) bool {
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
}

func isNameByte(c byte) bool { return isNameStart(c) || (c >= '0' && c <= '9') }
