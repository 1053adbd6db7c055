package httpapi_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/calgraph/calgraph/internal/httpapi"
)

// TestGraphiQLOffline: the GraphiQL page carries, beside gqlgen's page, the
// help it shows when the CDN's scripts cannot load: the endpoint, a curl line
// with this server's dev token, the SDL link, and the script that shows it
// when GraphiQL is missing at the page's load.
func TestGraphiQLOffline(t *testing.T) {
	cfg := httpapi.Config{SDL: []byte("type Query"), GraphiQLHeaders: map[string]string{"Authorization": "Bearer dev-token-123"}}
	srv := httptest.NewServer(httpapi.New(cfg, http.NotFoundHandler(), func(context.Context) error { return nil }, slog.New(slog.NewTextHandler(io.Discard, nil))))
	defer srv.Close()
	res, err := http.Get(srv.URL + "/")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	page := string(b)
	for _, want := range []string{
		`id="graphiql"`,                       // gqlgen's page itself
		`id="calgraph-offline" hidden`,        // the help, hidden until needed
		"GraphiQL could not load",             // says what failed
		"Authorization: Bearer dev-token-123", // the curl line, with the dev token
		`href="/schema.graphql"`,              // the SDL
		`typeof GraphiQL !== "undefined"`,     // shown when GraphiQL is missing
		`addEventListener("load", check)`,     // once the scripts have failed
		"<noscript>",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the GraphiQL page lacks %q", want)
		}
	}
	if res.Header.Get("Content-Type") != "text/html; charset=utf-8" {
		t.Errorf("Content-Type %q", res.Header.Get("Content-Type"))
	}
}
