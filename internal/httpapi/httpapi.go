// Package httpapi is calgraph's HTTP edge: routes (GraphiQL and its assets, the GraphQL
// endpoint, the SDL, calendars' iCalendar feeds, health and readiness probes) and the middleware every
// request passes through (request IDs, structured logs, panic recovery, CORS, a
// body size limit).
package httpapi

import (
	"context"
	"log/slog"
	"net/http"
	"slices"
	"time"

	"github.com/rs/cors"

	"github.com/calgraph/calgraph/internal/graphiql"
)

// Config configures the edge.
type Config struct {
	// AllowedOrigins lists the browser origins allowed to call the API; an entry
	// may hold one "*" wildcard, as in "http://localhost:*" (see Origins).
	AllowedOrigins []string
	// SDL is the schema text served at /schema.graphql for code generators.
	SDL []byte
	// GraphiQLHeaders pre-fill GraphiQL's headers editor (a dev token in local runs).
	GraphiQLHeaders map[string]string
	// Feeds serves GET PathFeeds + "{token}.ics" (see FeedHandler).
	Feeds http.Handler
	// CORSHeaders are request headers browsers may send beyond corsHeaders.
	CORSHeaders []string
}

// corsHeaders are the request headers a browser may send: authentication
// and content negotiation, the request ID, W3C trace context and baggage,
// Sentry's and Apollo Client's headers (Apollo's CSRF guard included).
var corsHeaders = []string{
	"Authorization", "Content-Type", "Accept", HeaderRequestID,
	"traceparent", "tracestate", "baggage", "sentry-trace",
	"apollographql-client-name", "apollographql-client-version", "apollo-require-preflight",
	"x-requested-with",
}

// Routes served.
const (
	PathGraphiQL = "/"
	PathQuery    = "/query"
	PathSchema   = "/schema.graphql"
	PathHealth   = "/healthz"
	PathReady    = "/readyz"
)

// New returns the server's handler. graphql serves PathQuery; ready reports
// whether the store is reachable.
func New(cfg Config, graphql http.Handler, ready func(context.Context) error, logger *slog.Logger) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("GET "+PathGraphiQL+"{$}", graphiql.Page(graphiql.Config{Endpoint: PathQuery, Schema: PathSchema, Headers: cfg.GraphiQLHeaders}))
	mux.Handle("GET "+graphiql.AssetsPath, graphiql.Assets())
	mux.Handle(PathQuery, graphql)
	if cfg.Feeds != nil {
		mux.Handle("GET "+PathFeeds+"{file}", cfg.Feeds)
	}
	mux.HandleFunc("GET "+PathSchema, func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = w.Write(cfg.SDL)
	})
	mux.HandleFunc("GET "+PathHealth, func(w http.ResponseWriter, _ *http.Request) {
		writeText(w, http.StatusOK, "ok")
	})
	mux.HandleFunc("GET "+PathReady, func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
		defer cancel()
		if err := ready(ctx); err != nil {
			logger.WarnContext(ctx, "not ready", "err", err)
			writeText(w, http.StatusServiceUnavailable, "store unreachable")
			return
		}
		writeText(w, http.StatusOK, "ready")
	})
	c := cors.New(cors.Options{
		AllowOriginFunc: NewOrigins(cfg.AllowedOrigins).Allow,
		AllowedMethods:  []string{http.MethodGet, http.MethodPost, http.MethodOptions},
		AllowedHeaders:  append(slices.Clone(corsHeaders), cfg.CORSHeaders...),
		ExposedHeaders:  []string{HeaderRequestID},
		MaxAge:          600,
	})
	return requestID(logRequests(logger, recoverPanics(logger, c.Handler(compress(mux)))))
}

func writeText(w http.ResponseWriter, status int, text string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write([]byte(text + "\n"))
}
