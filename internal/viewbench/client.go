package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"
)

// httpClient is the benchmark's one HTTP client: kept-alive connections for
// the seeding clients and the measured requests, and a bound on any request
// so that a stuck server fails the run instead of hanging it.
var httpClient = &http.Client{
	Transport: &http.Transport{MaxIdleConnsPerHost: max(2*seedClients, maxClients)},
	Timeout:   2 * time.Minute,
}

// gqlClient posts GraphQL operations to one server as one user.
type gqlClient struct {
	url   string // the server's base URL
	token string
}

// gqlBody encodes a GraphQL request body; without vars it is just the query,
// as graph/bench_test.go sends it.
func gqlBody(query string, vars map[string]any) []byte {
	req := map[string]any{"query": query}
	if vars != nil {
		req["variables"] = vars
	}
	body, err := json.Marshal(req)
	if err != nil {
		panic(err) // vars are built here from strings and numbers
	}
	return body
}

// post sends a request body to /query and returns the answer's bytes, or an
// error unless the answer is HTTP 200.
func (c gqlClient) post(ctx context.Context, body []byte) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url+"/query", bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+c.token)
	res, err := httpClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("POST /query: %w", err)
	}
	defer res.Body.Close()
	answer, err := io.ReadAll(res.Body)
	if err != nil {
		return nil, fmt.Errorf("POST /query: %w", err)
	}
	if res.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("POST /query: HTTP %d: %s", res.StatusCode, excerpt(answer))
	}
	return answer, nil
}

// do runs an operation that must succeed and returns its data.
func (c gqlClient) do(ctx context.Context, query string, vars map[string]any) (any, error) {
	answer, err := c.post(ctx, gqlBody(query, vars))
	if err != nil {
		return nil, err
	}
	return decodeData(answer)
}

// decodeData returns the data of a GraphQL answer, or an error when it has
// errors: a benchmark of answers that failed would measure the wrong work.
func decodeData(answer []byte) (any, error) {
	var a struct {
		Data   any
		Errors json.RawMessage
	}
	if err := json.Unmarshal(answer, &a); err != nil {
		return nil, fmt.Errorf("answer is not JSON (%v): %s", err, excerpt(answer))
	}
	if len(a.Errors) > 0 && string(a.Errors) != "null" {
		return nil, fmt.Errorf("answer has errors: %s", excerpt(answer))
	}
	return a.Data, nil
}

// field walks decoded JSON objects along keys.
func field(v any, keys ...string) any {
	for _, k := range keys {
		m, _ := v.(map[string]any)
		v = m[k]
	}
	return v
}

// excerpt is the start of an answer, for an error message.
func excerpt(b []byte) string {
	const keep = 1000
	if len(b) > keep {
		return string(b[:keep]) + "…"
	}
	return string(b)
}
