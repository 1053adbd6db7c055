package graph

import (
	"io"

	"github.com/99designs/gqlgen/graphql"
)

// fieldSet is an object's answer as gqlgen's FieldSet.MarshalGQL writes it:
// its fields' aliases and values in order, an alias met again left out.
// FieldSet's own writing made, for every object of an answer, a map of the
// aliases written and, for every field, a copy of the field for its
// iterator: some 1,800 allocations of a week view's 18,000. internal/graphgen
// returns a fieldSet in place of the FieldSet at the end of every object's
// marshaler, where its values are final (Dispatch has run; deferred fields
// are another FieldSet's). TestFieldSetWritesAsGqlgen holds the two writers'
// bytes equal.
type fieldSet struct {
	fields []graphql.CollectedField
	set    *graphql.FieldSet
}

var (
	openBrace  = []byte{'{'}
	closeBrace = []byte{'}'}
	comma      = []byte{','}
	colon      = []byte{':'}
)

func (f fieldSet) MarshalGQL(w io.Writer) {
	// An alias said twice is a selection's own doing (gqlgen merges fields
	// of one alias when it collects them); few objects select many fields,
	// but a query may alias one field thousands of times, so past a few a
	// map keeps the check linear, as gqlgen's.
	var seen map[string]struct{}
	if len(f.fields) > maxScannedAliases {
		seen = make(map[string]struct{}, len(f.fields))
	}
	_, _ = w.Write(openBrace)
	for i := range f.fields {
		alias := f.fields[i].Alias
		if seen != nil {
			if _, ok := seen[alias]; ok {
				continue
			}
			seen[alias] = struct{}{}
		} else if aliasBefore(f.fields[:i], alias) {
			continue
		}
		if i > 0 { // the first field is never one said before
			_, _ = w.Write(comma)
		}
		writeAlias(w, alias)
		_, _ = w.Write(colon)
		f.set.Values[i].MarshalGQL(w)
	}
	_, _ = w.Write(closeBrace)
}

// maxScannedAliases is the most fields whose aliases are checked by a scan.
const maxScannedAliases = 32

// aliasBefore reports whether one of fields has alias.
func aliasBefore(fields []graphql.CollectedField, alias string) bool {
	for i := range fields {
		if fields[i].Alias == alias {
			return true
		}
	}
	return false
}

// writeAlias writes alias as a JSON string: a GraphQL name needs no escape;
// anything else is written by gqlgen's string marshaler.
func writeAlias(w io.Writer, alias string) {
	for i := 0; i < len(alias); i++ {
		if c := alias[i]; !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			graphql.MarshalString(alias).MarshalGQL(w)
			return
		}
	}
	_, _ = io.WriteString(w, `"`)
	_, _ = io.WriteString(w, alias)
	_, _ = io.WriteString(w, `"`)
}
