package graph

import (
	"io"

	"github.com/99designs/gqlgen/graphql"
)

// objectSet is an object's fields being resolved (the FieldSet gqlgen's
// code fills) and, once they are, its answer, written as gqlgen's
// FieldSet.MarshalGQL writes it: its fields' aliases and values in order, an
// alias met again left out. gqlgen made, for every object of an answer, the
// FieldSet, its values, a map of the aliases written and, for every field, a
// copy of the field for its iterator; internal/graphgen has each object's
// marshaler make an objectSet instead (newObjectSet), one allocation for an
// object of up to 16 fields, and return it, values final (Dispatch has run;
// deferred fields are another FieldSet's). TestFieldSetWritesAsGqlgen holds
// the two writers' bytes equal.
type objectSet struct {
	graphql.FieldSet // its fields are not set: only Values is read (below)
	fields           []graphql.CollectedField
}

// objectSet4, 8 and 16 hold an object's values with its objectSet.
type (
	objectSet4 struct {
		objectSet
		values [4]graphql.Marshaler
	}
	objectSet8 struct {
		objectSet
		values [8]graphql.Marshaler
	}
	objectSet16 struct {
		objectSet
		values [16]graphql.Marshaler
	}
)

// newObjectSet returns the set of an object's collected fields, with room
// for their values.
func newObjectSet(fields []graphql.CollectedField) *objectSet {
	var s *objectSet
	switch n := len(fields); {
	case n <= 4:
		s4 := &objectSet4{}
		s = &s4.objectSet
		s.Values = s4.values[:n]
	case n <= 8:
		s8 := &objectSet8{}
		s = &s8.objectSet
		s.Values = s8.values[:n]
	case n <= 16:
		s16 := &objectSet16{}
		s = &s16.objectSet
		s.Values = s16.values[:n]
	default:
		s = &objectSet{}
		s.Values = make([]graphql.Marshaler, n)
	}
	s.fields = fields
	return s
}

var (
	openBrace  = []byte{'{'}
	closeBrace = []byte{'}'}
	comma      = []byte{','}
	colon      = []byte{':'}
)

func (f *objectSet) MarshalGQL(w io.Writer) {
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
		writeQuoted(w, alias)
		_, _ = w.Write(colon)
		f.Values[i].MarshalGQL(w)
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
