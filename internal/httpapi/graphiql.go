package httpapi

import (
	"bytes"
	"html/template"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/99designs/gqlgen/graphql/playground"
)

// graphiql serves GraphiQL: gqlgen's page, whose scripts and styles come
// from a CDN, plus a fallback for when they cannot load (no internet, a
// blocked CDN, scripts off). Then, instead of "Loading…" forever, the page
// says what failed and how to call the API without it: the endpoint, the
// Authorization header, a curl line and the SDL for code generators. The
// third-party bundles are not shipped inside calgraph.
func graphiql(cfg Config) http.Handler {
	rec := httptest.NewRecorder()
	playground.Handler("calgraph", PathQuery,
		playground.WithGraphiqlUiHeaders(cfg.GraphiQLHeaders),
		playground.WithGraphiqlEnablePluginExplorer(true)).ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/", nil))
	var help bytes.Buffer
	token := strings.TrimPrefix(cfg.GraphiQLHeaders["Authorization"], "Bearer ")
	if err := offlineHelp.Execute(&help, map[string]string{"Path": PathQuery, "SDL": PathSchema, "Token": token}); err != nil {
		panic(err) // a constant template
	}
	page := strings.Replace(rec.Body.String(), "<body>", "<body>\n"+help.String(), 1)
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write([]byte(page))
	})
}

// offlineHelp is shown when GraphiQL's scripts did not load: at the page's
// load event (a script that failed has failed by then), or after 15 s if the
// CDN neither answers nor fails.
var offlineHelp = template.Must(template.New("offline").Parse(`<div id="calgraph-offline" hidden style="font: 16px/1.5 system-ui, sans-serif; max-width: 48rem; margin: 3rem auto; padding: 0 1rem">
  <h1>GraphiQL could not load</h1>
  <p>Its scripts come from a CDN (unpkg.com), which this browser could not reach: it may be offline, or the CDN is blocked. The API itself works without it.</p>
  <p>Send GraphQL as JSON with <code>POST</code> to <code class="calgraph-endpoint">{{.Path}}</code>, with the header <code>Authorization: Bearer &lt;token&gt;</code>{{if .Token}} (this server's dev token is below){{end}}:</p>
  <pre style="white-space: pre-wrap; background: #f4f4f4; padding: 1rem">curl <span class="calgraph-endpoint">{{.Path}}</span> \
  -H 'Content-Type: application/json' \
  -H 'Authorization: Bearer {{if .Token}}{{.Token}}{{else}}$TOKEN{{end}}' \
  -d '{"query": "{ viewer { user { email } calendars { edges { node { calendar { name } } } } } }"}'</pre>
  <p>The schema, for code generators and editors: <a href="{{.SDL}}">{{.SDL}}</a>.</p>
</div>
<noscript><p>GraphiQL needs JavaScript. The API answers GraphQL at <code>{{.Path}}</code>; its schema is at <a href="{{.SDL}}">{{.SDL}}</a>.</p></noscript>
<script>
(function () {
  function check() {
    if (typeof GraphiQL !== "undefined" && typeof React !== "undefined") return;
    var url = location.origin + {{.Path}};
    document.querySelectorAll(".calgraph-endpoint").forEach(function (e) { e.textContent = url; });
    var app = document.getElementById("graphiql");
    if (app) app.hidden = true;
    document.getElementById("calgraph-offline").hidden = false;
  }
  window.addEventListener("load", check);
  setTimeout(check, 15000);
})();
</script>`))
