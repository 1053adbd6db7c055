package graph_test

import (
	"net/http"
	"strings"
	"testing"
)

// TestRequestParameters: a POST body of the wrong shape is refused with 400,
// BAD_REQUEST and a message in GraphQL-over-HTTP's terms, never one naming
// a Go type.
func TestRequestParameters(t *testing.T) {
	e := newEnv(t)
	tok := e.token("params@example.com")
	object := `the body must be a JSON object like {"query": "{ viewer { user { email } } }", "variables": {}}`
	for _, tt := range []struct{ body, msg string }{
		{`[]`, object},
		{`"str"`, object},
		{`{`, "the body is not valid JSON"},
		{`{"query": 1}`, "query must be a string"},
		{`{"query": "{ __typename }", "variables": []}`, "variables must be an object"},
		{`{"query": "{ __typename }", "operationName": 5}`, "operationName must be a string"},
		{`{"query": "{ __typename }", "extensions": "x"}`, "extensions must be an object"},
	} {
		req, _ := http.NewRequest(http.MethodPost, e.url+"/query", strings.NewReader(tt.body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+tok)
		r := e.send(req)
		if r.Status != http.StatusBadRequest || r.code() != "BAD_REQUEST" || r.Errors[0].Message != tt.msg {
			t.Errorf("body %s: got %d %s, want 400 BAD_REQUEST %q", tt.body, r.Status, r.Raw, tt.msg)
		}
	}
	// null parameters are as good as absent
	req, _ := http.NewRequest(http.MethodPost, e.url+"/query", strings.NewReader(`{"query": "{ __typename }", "variables": null, "operationName": null}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+tok)
	if r := e.send(req); len(r.Errors) > 0 {
		t.Errorf("null variables and operationName: %s", r.Raw)
	}
}
