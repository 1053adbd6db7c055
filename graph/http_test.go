package graph_test

import (
	"context"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/calgraph/calgraph/internal/dynamo"
)

func TestTokens(t *testing.T) {
	e := newEnv(t)
	tests := []struct {
		name, token, wantCode, wantMessage string
	}{
		{"no token", "", "UNAUTHENTICATED", "sign in required"},
		{"garbage", "not.a.jwt", "UNAUTHENTICATED", "invalid token"},
		{"expired", e.tokenFor("late", "late@example.com", time.Now().Add(-time.Hour)), "UNAUTHENTICATED", "token expired"},
		{"unverified email", e.tokenFor("unverified", "victim@example.com", time.Now().Add(time.Hour), "email_verified", false), "UNAUTHENTICATED", "not verified"},
		{"unverified email, as a string", e.tokenFor("unverified2", "victim@example.com", time.Now().Add(time.Hour), "email_verified", "false"), "UNAUTHENTICATED", "not verified"},
		{"verified email", e.tokenFor("verified", "verified@example.com", time.Now().Add(time.Hour), "email_verified", true), "", ""},
		{"valid", e.token("fine@example.com"), "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := e.do(tt.token, `{ viewer { user { email } } }`, nil)
			if r.code() != tt.wantCode || (tt.wantMessage != "" && !strings.Contains(r.Errors[0].Message, tt.wantMessage)) {
				t.Fatalf("got %s, want code %q with %q", r.Raw, tt.wantCode, tt.wantMessage)
			}
			// Introspection stays open whatever the token.
			if r := e.do(tt.token, `{ __schema { queryType { name } } }`, nil); len(r.Errors) > 0 {
				t.Fatalf("introspection failed: %s", r.Raw)
			}
		})
	}
}

func TestInternalErrorsAreHidden(t *testing.T) {
	e := newEnv(t)
	tok := e.token("hidden@example.com")
	e.must(tok, provision, nil)
	// Pull the table away: every store call now fails with an AWS error naming it.
	if err := dynamo.DeleteTable(context.Background(), dynamoClient(e), e.store.Table()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = dynamo.EnsureTable(context.Background(), dynamoClient(e), e.store.Table()) })
	r := e.do(tok, `mutation { createCalendar(input: {name: "x"}) { calendar { id } } }`, nil)
	if r.code() != "INTERNAL_SERVER_ERROR" || r.Errors[0].Message != "internal error" {
		t.Fatalf("got %s, want a bare INTERNAL_SERVER_ERROR", r.Raw)
	}
	for _, leak := range []string{e.store.Table(), "ResourceNotFound", "dynamodb", "goroutine"} {
		if strings.Contains(r.Raw, leak) {
			t.Errorf("response leaks %q: %s", leak, r.Raw)
		}
	}
	if !strings.Contains(e.logs.String(), "ResourceNotFoundException") {
		t.Errorf("the log lacks the failure's detail:\n%s", e.logs.String())
	}
	res, err := http.Get(e.url + "/readyz")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("got /readyz %d with the table gone, want 503", res.StatusCode)
	}
}

func TestGraphQLOverHTTP(t *testing.T) {
	e := newEnv(t)
	tok := e.token("http@example.com")
	send := func(method, query, accept, contentType string, body io.Reader) (*http.Response, string) {
		req, _ := http.NewRequest(method, e.url+"/query"+query, body)
		req.Header.Set("Authorization", "Bearer "+tok)
		if accept != "" {
			req.Header.Set("Accept", accept)
		}
		if contentType != "" {
			req.Header.Set("Content-Type", contentType)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res, string(b)
	}
	get := func(query, accept string) func() (*http.Response, string) {
		return func() (*http.Response, string) {
			return send(http.MethodGet, "?query="+url.QueryEscape(query), accept, "", nil)
		}
	}
	post := func(body, contentType string) func() (*http.Response, string) {
		return func() (*http.Response, string) {
			return send(http.MethodPost, "", "", contentType, io.MultiReader(strings.NewReader(body)))
		}
	}
	big := `{"query": "{ viewer { user { id } } }", "variables": {"x": "` + strings.Repeat("a", 70<<10) + `"}}`
	tests := []struct {
		name        string
		do          func() (*http.Response, string)
		status      int
		contentType string
		code        string
	}{
		{"GET query", get(`{ viewer { user { email } } }`, ""), 200, "application/json", ""},
		{"GET asking for application/graphql-response+json", get(`{ viewer { user { email } } }`, "application/graphql-response+json"), 200, "application/graphql-response+json", ""},
		{"GET asking for application/json", get(`{ viewer { user { email } } }`, "application/json"), 200, "application/json", ""},
		{"GET mutation", get(`mutation { createCalendar(input: {name: "x"}) { calendar { id } } }`, ""), 405, "application/json", "BAD_REQUEST"},
		{"GET variables not an object", func() (*http.Response, string) {
			return send(http.MethodGet, "?query="+url.QueryEscape(`{ viewer { user { id } } }`)+"&variables=oops", "", "", nil)
		}, 400, "application/json", "BAD_REQUEST"},
		{"PUT", func() (*http.Response, string) {
			return send(http.MethodPut, "", "", "application/json", strings.NewReader("{}"))
		}, 405, "application/json", "BAD_REQUEST"},
		{"POST as text", post(`{ viewer { user { id } } }`, "text/plain"), 415, "application/json", "BAD_REQUEST"},
		{"POST body not JSON", post(`{"query": "{ viewer { user { id } } }", oops}`, "application/json"), 400, "application/json", "BAD_REQUEST"},
		// No Accept: application/json, where refusals of a well-formed request are 200.
		{"syntax error", post(`{"query": "{ viewer { "}`, "application/json"), 200, "application/json", "GRAPHQL_PARSE_FAILED"},
		{"unknown field", post(`{"query": "{ nope }"}`, "application/json"), 200, "application/json", "GRAPHQL_VALIDATION_FAILED"},
		{"body too large", post(big, "application/json"), 413, "application/json", "BAD_REQUEST"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, body := tt.do()
			if res.StatusCode != tt.status {
				t.Fatalf("got status %d, want %d: %s", res.StatusCode, tt.status, body)
			}
			if ct := res.Header.Get("Content-Type"); !strings.HasPrefix(ct, tt.contentType) {
				t.Fatalf("got Content-Type %q, want %q", ct, tt.contentType)
			}
			if tt.code != "" && !strings.Contains(body, `"code":"`+tt.code+`"`) {
				t.Fatalf("got %s, want code %s", body, tt.code)
			}
			if strings.Contains(body, "oops}") || strings.Contains(body, "INTERNAL") {
				t.Fatalf("the error echoes the body or claims an internal failure: %s", body)
			}
		})
	}
}

func TestComplexityLimit(t *testing.T) {
	e := newEnv(t)
	e.must(e.token("big@example.com"), provision, nil)
	e.rec.Reset()
	// Twice the largest documented page (which alone is accepted).
	const page = `calendars(first: 100) { edges { node { calendar { members(first: 100) { edges { node { id role user { name } } } } } } } }`
	r := e.do(e.token("big@example.com"), `{ a: viewer { `+page+` } b: viewer { `+page+` } }`, nil)
	if r.code() != "COMPLEXITY_LIMIT_EXCEEDED" || r.Data != nil {
		t.Fatalf("got %s, want COMPLEXITY_LIMIT_EXCEEDED and no data", r.Raw)
	}
	if len(e.rec.Calls()) != 0 {
		t.Errorf("got %d DynamoDB calls for a refused query, want 0", len(e.rec.Calls()))
	}
}

func TestEdgeRoutes(t *testing.T) {
	e := newEnv(t)
	for _, tt := range []struct {
		path   string
		status int
		body   string
	}{
		{"/healthz", 200, "ok"},
		{"/readyz", 200, "ready"},
		{"/schema.graphql", 200, "schema"},
		{"/", 200, "graphiql"},
		{"/nope", 404, ""},
	} {
		t.Run(tt.path, func(t *testing.T) {
			res, err := http.Get(e.url + tt.path)
			if err != nil {
				t.Fatal(err)
			}
			defer res.Body.Close()
			var b strings.Builder
			_, _ = io.Copy(&b, res.Body)
			if res.StatusCode != tt.status || !strings.Contains(strings.ToLower(b.String()), tt.body) {
				t.Fatalf("got %d %q, want %d containing %q", res.StatusCode, b.String(), tt.status, tt.body)
			}
			if res.Header.Get("X-Request-Id") == "" {
				t.Errorf("no X-Request-Id header")
			}
		})
	}
}

// introspectionQuery is the query GraphiQL and code generators send.
const introspectionQuery = `query IntrospectionQuery {
  __schema {
    queryType { name } mutationType { name } subscriptionType { name }
    types { ...FullType }
    directives { name description locations args { ...InputValue } }
  }
}
fragment FullType on __Type {
  kind name description
  fields(includeDeprecated: true) { name description args { ...InputValue } type { ...TypeRef } isDeprecated deprecationReason }
  inputFields { ...InputValue }
  interfaces { ...TypeRef }
  enumValues(includeDeprecated: true) { name description isDeprecated deprecationReason }
  possibleTypes { ...TypeRef }
}
fragment InputValue on __InputValue { name description type { ...TypeRef } defaultValue }
fragment TypeRef on __Type {
  kind name ofType { kind name ofType { kind name ofType { kind name ofType { kind name ofType { kind name ofType { kind name ofType { kind name } } } } } } }
}`

// TestOperationSize: an operation of more than MaxTokens tokens is refused
// at once (validation compares fields pairwise: thousands of repeated fields
// cost seconds of CPU each), while the largest real queries pass.
func TestOperationSize(t *testing.T) {
	e := newEnv(t)
	if r := e.do("", introspectionQuery, nil); len(r.Errors) > 0 {
		t.Fatalf("the introspection query: %s", r.Raw)
	}
	start := time.Now()
	r := e.do("", "{ "+strings.Repeat("__typename ", 4000)+"}", nil)
	if r.code() != "GRAPHQL_PARSE_FAILED" || time.Since(start) > time.Second {
		t.Fatalf("4,000 repeated fields after %v: %.300s", time.Since(start), r.Raw)
	}
}
