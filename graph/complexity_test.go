package graph_test

import (
	"strings"
	"testing"
)

// TestDocumentedMaximaAreAccepted: the largest pages docs/design.md documents
// pass the complexity limit whatever fields a client selects, and a request
// for twice as much is refused.
func TestDocumentedMaximaAreAccepted(t *testing.T) {
	e := newEnv(t)
	tok := e.token("max@example.com")
	const members = `calendars(first: 100) { edges { cursor node { id role calendar { id name description color timeZone isResource version createdAt updatedAt
		members(first: 100) { edges { cursor node { id role user { id email name version createdAt updatedAt } } } pageInfo { hasNextPage endCursor } } } } }
		pageInfo { hasNextPage endCursor } }`
	const weeks = `calendars(first: 100) { edges { node { calendar { name
		entries(range: {dates: {start: "2026-03-02", end: "2026-03-09"}}) { timeZone start end entries { id title description location color tags reminders
			kind status version ... on TimedEntry { start end timeZone } ... on Task { due dueDate timeZone completed } calendar { id name } } }
		members { edges { node { role user { email } } } } } } } }`
	for _, tt := range []struct {
		name, query string
		accepted    bool
	}{
		{"100 calendars × 100 members, every field", "{ viewer { " + members + " } }", true},
		{"100 calendars, each with a week and 20 members", "{ viewer { " + weeks + " } }", true},
		{"twice 100 calendars × 100 members", "{ a: viewer { " + members + " } b: viewer { " + members + " } }", false},
	} {
		r := e.do(tok, tt.query, nil)
		refused := r.code() == "COMPLEXITY_LIMIT_EXCEEDED"
		if refused == tt.accepted || (tt.accepted && len(r.Errors) > 0) {
			t.Errorf("%s: got %s, want accepted %v", tt.name, strings.TrimSpace(r.Raw)[:min(300, len(r.Raw))], tt.accepted)
		}
	}
}
