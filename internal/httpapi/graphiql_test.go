package httpapi_test

import (
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"
)

// TestGraphiQLRoutes: the edge serves GraphiQL's page with its
// Content-Security-Policy and its assets, compressed, from this server.
func TestGraphiQLRoutes(t *testing.T) {
	srv := newServer(t, io.Discard)
	res, err := http.Get(srv.URL + "/")
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusOK || !strings.Contains(res.Header.Get("Content-Security-Policy"), "script-src 'self'") {
		t.Fatalf("GET /: %d, Content-Security-Policy %q", res.StatusCode, res.Header.Get("Content-Security-Policy"))
	}
	script := regexp.MustCompile(`/graphiql/[0-9a-f]+/graphiql\.min\.js`).Find(page)
	if script == nil {
		t.Fatalf("the page does not load GraphiQL from /graphiql/: %s", page)
	}
	req, _ := http.NewRequest(http.MethodGet, srv.URL+string(script), nil)
	req.Header.Set("Accept-Encoding", "gzip, deflate, br, zstd")
	res, err = http.DefaultTransport.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK || res.Header.Get("Content-Encoding") != "gzip" ||
		!strings.Contains(res.Header.Get("Cache-Control"), "immutable") {
		t.Errorf("GraphiQL's script: %d, Content-Encoding %q, Cache-Control %q; want 200, gzip, immutable",
			res.StatusCode, res.Header.Get("Content-Encoding"), res.Header.Get("Cache-Control"))
	}
}
