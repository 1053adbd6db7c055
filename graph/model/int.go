package model

import (
	"encoding/json"
	"io"
	"math"
	"strconv"

	"github.com/99designs/gqlgen/graphql"

	"github.com/calgraph/calgraph/internal/calendar"
)

// MarshalInt writes a GraphQL Int.
func MarshalInt(i int) graphql.Marshaler {
	return graphql.WriterFunc(func(w io.Writer) { _, _ = io.WriteString(w, strconv.Itoa(i)) })
}

// UnmarshalInt reads a GraphQL Int: a whole number of 32 bits, as the
// GraphQL spec defines it, given as a literal or a JSON number (never a
// string). gqlgen's own reading takes 64 bits and numeric strings.
func UnmarshalInt(v any) (int, error) {
	var n int64
	switch v := v.(type) {
	case int:
		n = int64(v)
	case int64:
		n = v
	case json.Number:
		i, err := v.Int64()
		if err != nil {
			return 0, notAnInt(string(v))
		}
		n = i
	default:
		return 0, notAnInt(v)
	}
	if n < math.MinInt32 || n > math.MaxInt32 {
		return 0, notAnInt(n)
	}
	return int(n), nil
}

func notAnInt(v any) error {
	if s, ok := v.(string); ok {
		v = strconv.Quote(s)
	}
	return calendar.Invalidf(FieldFromPath, "%v is not an Int: a whole number from -2147483648 to 2147483647", v)
}
