package graph_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/url"
	"testing"
)

// TestAutomaticPersistedQueries follows Apollo's protocol: a hash alone is
// PERSISTED_QUERY_NOT_FOUND until the query has been sent with it, then the
// hash alone runs the query, over POST and GET; a hash that does not match its
// query is refused.
func TestAutomaticPersistedQueries(t *testing.T) {
	e := newEnv(t)
	tok := e.token("apq@example.com")
	const query = `query Me { viewer { user { email } } }`
	sum := sha256.Sum256([]byte(query))
	hash := hex.EncodeToString(sum[:])
	ext := map[string]any{"persistedQuery": map[string]any{"version": 1, "sha256Hash": hash}}
	post := func(body map[string]any) response {
		b, _ := json.Marshal(body)
		req, _ := http.NewRequest(http.MethodPost, e.url+"/query", bytes.NewReader(b))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+tok)
		return e.send(req)
	}

	if r := post(map[string]any{"extensions": ext}); r.code() != "PERSISTED_QUERY_NOT_FOUND" || r.Errors[0].Message != "PersistedQueryNotFound" {
		t.Fatalf("hash before the query: %s, want PersistedQueryNotFound", r.Raw)
	}
	if r := post(map[string]any{"query": query, "extensions": ext}); get(r.Data, "viewer.user.email") != "apq@example.com" {
		t.Fatalf("hash with the query: %s", r.Raw)
	}
	if r := post(map[string]any{"extensions": ext}); get(r.Data, "viewer.user.email") != "apq@example.com" {
		t.Fatalf("hash alone after: %s", r.Raw)
	}
	extJSON, _ := json.Marshal(ext)
	req, _ := http.NewRequest(http.MethodGet, e.url+"/query?extensions="+url.QueryEscape(string(extJSON)), nil)
	req.Header.Set("Authorization", "Bearer "+tok)
	if r := e.send(req); get(r.Data, "viewer.user.email") != "apq@example.com" {
		t.Fatalf("hash alone over GET: %s", r.Raw)
	}
	wrong := map[string]any{"persistedQuery": map[string]any{"version": 1, "sha256Hash": hash}}
	if r := post(map[string]any{"query": `{ viewer { user { id } } }`, "extensions": wrong}); r.code() != "BAD_REQUEST" || r.Data != nil {
		t.Fatalf("a hash that is not the query's: %s, want BAD_REQUEST", r.Raw)
	}
}
