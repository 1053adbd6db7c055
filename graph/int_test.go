package graph_test

import (
	"testing"
)

// TestIntArguments: GraphQL's Int is 32 bits and whole; literals and
// variables outside it are refused with a message that says so, never with
// a Go type or a wrong value.
func TestIntArguments(t *testing.T) {
	e := newEnv(t)
	tok := e.token("int@example.com")
	const variable = `query($f: Int) { viewer { calendars(first: $f) { edges { cursor } } } }`
	const input = `mutation($r: [Int!]) { updatePreferences(input: {expectedVersion: 1, defaultReminders: $r}) { preferences { defaultReminders } } }`
	for _, tt := range []struct {
		name, query string
		vars        map[string]any
		code, msg   string
	}{
		{"a fraction, literal", `{ viewer { calendars(first: 1.5) { edges { cursor } } } }`, nil, "GRAPHQL_VALIDATION_FAILED", "Int cannot represent non-integer value: 1.5"},
		{"a fraction, variable", variable, map[string]any{"f": 1.5}, "GRAPHQL_VALIDATION_FAILED", "variable $f is not an Int: a whole number from -2147483648 to 2147483647"},
		{"past 32 bits, literal", `{ viewer { calendars(first: 2147483648) { edges { cursor } } } }`, nil, "BAD_USER_INPUT", "2147483648 is not an Int: a whole number from -2147483648 to 2147483647"},
		{"past 32 bits, variable", variable, map[string]any{"f": 3000000000}, "BAD_USER_INPUT", "3000000000 is not an Int: a whole number from -2147483648 to 2147483647"},
		{"past 32 bits, in a list", input, map[string]any{"r": []any{10, 4294967296}}, "BAD_USER_INPUT", "4294967296 is not an Int: a whole number from -2147483648 to 2147483647"},
		{"a numeric string", variable, map[string]any{"f": "5"}, "BAD_USER_INPUT", `"5" is not an Int: a whole number from -2147483648 to 2147483647`},
		{"a string", variable, map[string]any{"f": "x"}, "GRAPHQL_VALIDATION_FAILED", "cannot use string as Int"},
	} {
		r := e.do(tok, tt.query, tt.vars)
		if r.code() != tt.code || len(r.Errors) == 0 || r.Errors[0].Message != tt.msg {
			t.Errorf("%s: got %s, want %s %q", tt.name, r.Raw, tt.code, tt.msg)
		}
	}
}
