package graphiql_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/calgraph/calgraph/internal/graphiql"
)

func newServer(t *testing.T) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	mux.Handle("GET /{$}", graphiql.Page(graphiql.Config{Endpoint: "/query", Schema: "/schema.graphql",
		Headers: map[string]string{"Authorization": "Bearer dev-token-123"}}))
	mux.Handle("GET "+graphiql.AssetsPath, graphiql.Assets())
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

func get(t *testing.T, url string, header ...string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res, string(b)
}

var (
	assetRefs = regexp.MustCompile(`(?:src|href)="([^"]*)"`)
	cspNonce  = regexp.MustCompile(`'nonce-([A-Za-z0-9]+)'`)
)

// TestPage: the page pre-fills the headers editor with the dev token, holds
// the help shown when GraphiQL cannot start (endpoint, curl line with the
// token, the SDL), loads nothing but this server's assets, has no inline
// script, and goes with a Content-Security-Policy that allows only them and
// a fresh style nonce each time; browsers never store it (it holds a token).
func TestPage(t *testing.T) {
	srv := newServer(t)
	res, page := get(t, srv.URL+"/")
	for _, want := range []string{
		`id="graphiql" data-endpoint="/query"`,
		"data-headers=\"{\n  &#34;Authorization&#34;: &#34;Bearer dev-token-123&#34;\n}\"", // as the editor shows it
		`id="calgraph-offline" class="calgraph-help" hidden`,
		"GraphiQL could not start",
		"Authorization: Bearer dev-token-123",
		`href="/schema.graphql"`,
		"<noscript>",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if strings.Contains(page, "<script>") || strings.Contains(page, "<style") || strings.Contains(page, " style=") {
		t.Errorf("the page has an inline script or style, which its Content-Security-Policy refuses")
	}
	for header, want := range map[string]string{
		"Content-Type":           "text/html; charset=utf-8",
		"Cache-Control":          "no-store",
		"X-Content-Type-Options": "nosniff",
	} {
		if got := res.Header.Get(header); got != want {
			t.Errorf("%s %q, want %q", header, got, want)
		}
	}
	csp := res.Header.Get("Content-Security-Policy")
	m := cspNonce.FindStringSubmatch(csp)
	if m == nil || !strings.Contains(page, `data-style-nonce="`+m[1]+`"`) {
		t.Fatalf("Content-Security-Policy %q: want a style nonce, the one the page holds", csp)
	}
	for _, want := range []string{"default-src 'none'", "script-src 'self';", "connect-src 'self';", "frame-ancestors 'none'"} {
		if !strings.Contains(csp, want) {
			t.Errorf("Content-Security-Policy %q lacks %q", csp, want)
		}
	}
	if again, _ := get(t, srv.URL+"/"); again.Header.Get("Content-Security-Policy") == csp {
		t.Errorf("two pages with the same nonce %q", m[1])
	}
	refs := assetRefs.FindAllStringSubmatch(page, -1)
	var scripts int
	for _, ref := range refs {
		url := ref[1]
		if url == "/schema.graphql" || url == "data:," {
			continue
		}
		if !strings.HasPrefix(url, graphiql.AssetsPath) {
			t.Errorf("the page loads %s, not one of this server's assets", url)
			continue
		}
		if strings.HasSuffix(url, ".js") {
			scripts++
		}
		if res, body := get(t, srv.URL+url); res.StatusCode != http.StatusOK || len(body) == 0 {
			t.Errorf("GET %s: %d, %d bytes", url, res.StatusCode, len(body))
		}
	}
	if scripts != 5 { // React, ReactDOM, GraphiQL, its explorer, calgraph-graphiql.js
		t.Errorf("the page loads %d scripts, want 5: %v", scripts, refs)
	}
}

// TestAssets: an asset's path holds the start of its SHA-256, so it is
// cached for a year as immutable, and revalidates by ETag; paths of other
// contents (another version's) are 404.
func TestAssets(t *testing.T) {
	srv := newServer(t)
	_, page := get(t, srv.URL+"/")
	var js, css string
	for _, ref := range assetRefs.FindAllStringSubmatch(page, -1) {
		switch {
		case strings.HasSuffix(ref[1], "/graphiql.min.js"):
			js = ref[1]
		case strings.HasSuffix(ref[1], "/graphiql.min.css"):
			css = ref[1]
		}
	}
	if !regexp.MustCompile(`^/graphiql/[0-9a-f]{16}/graphiql\.min\.js$`).MatchString(js) {
		t.Fatalf("GraphiQL's script is at %q, want /graphiql/<hash>/graphiql.min.js", js)
	}
	for url, ctype := range map[string]string{js: "text/javascript; charset=utf-8", css: "text/css; charset=utf-8"} {
		res, body := get(t, srv.URL+url)
		if res.StatusCode != http.StatusOK || res.Header.Get("Content-Type") != ctype || len(body) < 100000 {
			t.Errorf("GET %s: %d %q, %d bytes; want 200 %q and the bundle", url, res.StatusCode, res.Header.Get("Content-Type"), len(body), ctype)
		}
		if got := res.Header.Get("Cache-Control"); got != "public, max-age=31536000, immutable" {
			t.Errorf("GET %s: Cache-Control %q", url, got)
		}
		if again, _ := get(t, srv.URL+url, "If-None-Match", res.Header.Get("ETag")); again.StatusCode != http.StatusNotModified {
			t.Errorf("GET %s with its ETag: %d, want 304", url, again.StatusCode)
		}
	}
	for _, url := range []string{
		strings.Replace(js, "/graphiql/", "/graphiql/0000", 1)[:len(js)], // another hash
		"/graphiql/graphiql.min.js",
		"/graphiql/",
		js + "x",
	} {
		if res, _ := get(t, srv.URL+url); res.StatusCode != http.StatusNotFound {
			t.Errorf("GET %s: %d, want 404", url, res.StatusCode)
		}
	}
}
