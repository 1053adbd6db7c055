package graph_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// TestRefusalStatuses: every operation refused before it runs answers as the
// GraphQL-over-HTTP spec has it: 400 and no data entry with
// application/graphql-response+json, 200 with application/json (gqlgen's
// own answer is 422 and "data": null; the complexity limit's was 200).
func TestRefusalStatuses(t *testing.T) {
	e := newEnv(t)
	tok := e.token("status@example.com")
	for _, tt := range []struct{ name, query string }{
		{"a syntax error", "{ viewer {"},
		{"an unknown field", "{ nope }"},
		{"too complex", `{ viewer { calendars(first: 1000) { edges { node { calendar { members(first: 1000) { edges { node { id } } } } } } } } }`},
		{"@defer without multipart", `{ viewer { ... @defer { user { id } } } }`},
	} {
		for accept, want := range map[string]int{"application/graphql-response+json": 400, "application/json": 200} {
			body, _ := json.Marshal(map[string]any{"query": tt.query})
			req, _ := http.NewRequest(http.MethodPost, e.url+"/query", bytes.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", accept)
			req.Header.Set("Authorization", "Bearer "+tok)
			r := e.send(req)
			hasData := strings.Contains(r.Raw, `"data"`)
			if r.Status != want || len(r.Errors) == 0 || hasData != (accept == "application/json") {
				t.Errorf("%s, %s: got %d %s, want %d and errors, with data null only for application/json", tt.name, accept, r.Status, r.Raw, want)
			}
		}
	}
}
