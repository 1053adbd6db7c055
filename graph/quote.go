package graph

import (
	"io"

	"github.com/99designs/gqlgen/graphql"
)

// quoted is a string value of an answer: internal/graphgen writes
// quoted(s) where gqlgen wrote graphql.MarshalString(s) (or MarshalID, the
// same), and it writes the same bytes (TestQuotedWritesAsGqlgen). gqlgen's
// marshaler is a closure, an allocation for every string of an answer;
// quoted's is the string itself, no allocation at all for a constant (an
// object's __typename) and a smaller one for any other.
func quoted(s string) graphql.Marshaler { return quotedString(s) }

type quotedString string

func (q quotedString) MarshalGQL(w io.Writer) { writeQuoted(w, string(q)) }

// stringList is a list of strings, [String!], written as gqlgen writes one
// (an array of its elements, each as quoted): gqlgen made the array and a
// marshaler per element. plainFields' path returns one for a [String!]
// field (an entry's tags).
type stringList []string

func (l stringList) MarshalGQL(w io.Writer) {
	_, _ = io.WriteString(w, "[")
	for i, s := range l {
		if i > 0 {
			_, _ = io.WriteString(w, ",")
		}
		writeQuoted(w, s)
	}
	_, _ = io.WriteString(w, "]")
}

const hexDigits = "0123456789ABCDEF"

// writeQuoted writes s as a JSON string as gqlgen does: control characters,
// backslashes and quotes escaped (\t, \r and \n by name, others as \u00XX),
// everything else, bytes that are not UTF-8 included, as it is.
func writeQuoted(w io.Writer, s string) {
	_, _ = io.WriteString(w, `"`)
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '\\' && c != '"' {
			continue
		}
		_, _ = io.WriteString(w, s[start:i])
		switch c {
		case '\t':
			_, _ = io.WriteString(w, `\t`)
		case '\r':
			_, _ = io.WriteString(w, `\r`)
		case '\n':
			_, _ = io.WriteString(w, `\n`)
		case '\\':
			_, _ = io.WriteString(w, `\\`)
		case '"':
			_, _ = io.WriteString(w, `\"`)
		default:
			_, _ = io.WriteString(w, `\u00`)
			_, _ = io.WriteString(w, hexDigits[c>>4:c>>4+1])
			_, _ = io.WriteString(w, hexDigits[c&0xf:c&0xf+1])
		}
		start = i + 1
	}
	_, _ = io.WriteString(w, s[start:])
	_, _ = io.WriteString(w, `"`)
}
