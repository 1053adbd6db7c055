// Package graphiql serves GraphiQL, the in-browser GraphQL IDE, entirely from
// the calgraph binary: the page and its scripts and styles (GraphiQL, React,
// GraphiQL's explorer plugin), pinned from the npm registry and embedded, so
// that it works with no network and loads nothing from a CDN; its
// Content-Security-Policy allows nothing else.
package graphiql

import (
	"bytes"
	"crypto/rand"
	_ "embed"
	"encoding/json"
	"html/template"
	"io"
	"net/http"
	"strings"
)

// Config configures the page.
type Config struct {
	// Endpoint is the GraphQL endpoint's path, for HTTP and WebSocket alike.
	Endpoint string
	// Schema is the path of the SDL, linked from the help shown when GraphiQL
	// cannot start.
	Schema string
	// Headers pre-fill GraphiQL's headers editor (a dev token in local runs).
	Headers map[string]string
}

//go:embed page.html
var pageHTML string

var page = template.Must(template.New("page").Funcs(template.FuncMap{"asset": assetURL}).Parse(pageHTML))

// contentSecurityPolicy allows the page its own origin only: scripts and
// styles from AssetsPath (no inline script: the page has none), fetch and
// WebSocket to the endpoint ('self' covers ws: and wss: to the same host in
// CSP Level 3 browsers), and the data: fonts and images GraphiQL's
// stylesheet embeds. The one exception is the <style> element GraphiQL's
// dialogs add (react-remove-scroll, to stop the page scrolling behind
// them): it carries the page's nonce, which GraphiQL's bundle reads from
// __webpack_nonce__ (set by calgraph-graphiql.js). No frame may embed the
// page (clickjacking a page that holds a token).
func contentSecurityPolicy(nonce string) string {
	return "default-src 'none'; script-src 'self'; style-src 'self' 'nonce-" + nonce + "'; " +
		"img-src 'self' data:; font-src 'self' data:; connect-src 'self'; " +
		"base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
}

// Page serves GraphiQL's page. With a dev token among cfg.Headers, the page
// also shows it, in the help for when GraphiQL cannot start (scripts blocked,
// a browser too old): the endpoint, a curl line and the SDL's path. Since
// the page carries that token, it is never stored by browsers or proxies.
func Page(cfg Config) http.Handler {
	data := pageData{Endpoint: cfg.Endpoint, Schema: cfg.Schema,
		Token: strings.TrimPrefix(cfg.Headers["Authorization"], "Bearer ")}
	if len(cfg.Headers) > 0 {
		b, err := json.MarshalIndent(cfg.Headers, "", "  ")
		if err != nil {
			panic(err) // a map of strings
		}
		data.Headers = string(b)
	}
	if err := page.Execute(io.Discard, data); err != nil {
		panic(err) // a constant template and embedded assets: fail at start-up, not per request
	}
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		d := data
		d.Nonce = rand.Text()
		var buf bytes.Buffer
		if err := page.Execute(&buf, d); err != nil {
			panic(err) // checked above
		}
		h := w.Header()
		h.Set("Content-Type", "text/html; charset=utf-8")
		h.Set("Content-Security-Policy", contentSecurityPolicy(d.Nonce))
		h.Set("Cache-Control", "no-store")
		h.Set("X-Content-Type-Options", "nosniff")
		_, _ = w.Write(buf.Bytes())
	})
}

// pageData fills page.html.
type pageData struct {
	Endpoint, Schema string
	Headers          string // JSON for GraphiQL's headers editor, or ""
	Token            string // the dev token, or ""
	Nonce            string // this response's style nonce
}
