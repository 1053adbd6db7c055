package graph_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"testing"
)

// TestRefusalStatuses: every operation refused before it runs answers with
// one status per media type, as the GraphQL-over-HTTP spec has it for
// validation errors: 400 for application/graphql-response+json, and gqlgen's
// 422 for application/json. The complexity limit used to answer 200.
func TestRefusalStatuses(t *testing.T) {
	e := newEnv(t)
	tok := e.token("status@example.com")
	for _, tt := range []struct{ name, query string }{
		{"a syntax error", "{ viewer {"},
		{"an unknown field", "{ nope }"},
		{"too complex", `{ viewer { calendars(first: 1000) { edges { node { calendar { members(first: 1000) { edges { node { id } } } } } } } } }`},
		{"@defer without multipart", `{ viewer { ... @defer { user { id } } } }`},
	} {
		for accept, want := range map[string]int{"application/graphql-response+json": 400, "application/json": 422} {
			body, _ := json.Marshal(map[string]any{"query": tt.query})
			req, _ := http.NewRequest(http.MethodPost, e.url+"/query", bytes.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", accept)
			req.Header.Set("Authorization", "Bearer "+tok)
			if r := e.send(req); r.Status != want || r.Data != nil || len(r.Errors) == 0 {
				t.Errorf("%s, %s: got %d %s, want %d and errors only", tt.name, accept, r.Status, r.Raw, want)
			}
		}
	}
}
