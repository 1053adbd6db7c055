package graph

import (
	"cmp"
	"log/slog"
	"net/http"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/handler"
	"github.com/99designs/gqlgen/graphql/handler/extension"
	"github.com/99designs/gqlgen/graphql/handler/lru"
	"github.com/99designs/gqlgen/graphql/handler/transport"
	"github.com/vektah/gqlparser/v2/ast"

	"github.com/calgraph/calgraph/internal/calendar"
	"github.com/calgraph/calgraph/internal/loader"
)

// MaxComplexity bounds how many objects one operation may ask for (see
// setComplexity): the largest documented page of calendars, each with its
// largest page of members, is about 40,000; twice that is refused.
const MaxComplexity = 60000

// apqCacheSize bounds the automatic persisted queries kept (at most MaxTokens
// tokens each).
const apqCacheSize = 1000

// MaxTokens bounds the size of an operation's text, in GraphQL tokens: a
// large client query (GraphiQL's introspection, a typed client's fragments)
// takes a few hundred.
const MaxTokens = 2000

// viewComplexity is what a range view (Calendar.entries, Viewer.agenda) adds
// to an operation's complexity: it queries DynamoDB and expands series, so
// one operation holds at most six hundred of them. (The occurrences all
// views of a request expand are capped together too; see package loader.)
const viewComplexity = 100

// Options configure the GraphQL endpoint.
type Options struct {
	// MaxBodyBytes bounds a request body; larger ones get 413.
	MaxBodyBytes int64
	// PublicURL is the server's URL as clients reach it (no trailing slash),
	// for the feed URLs mutations hand out.
	PublicURL string
	// ForgetIdentity drops a deleted account's identity from the
	// authenticator's cache.
	ForgetIdentity func(calendar.Identity)
	// Extensions are added to the GraphQL server after calgraph's own (for
	// example, metrics and tracing).
	Extensions []graphql.HandlerExtension
	// MaxEntries and MaxResponseBytes are the request budget (requestScope);
	// zero means DefaultMaxEntries and DefaultMaxResponseBytes.
	MaxEntries       int
	MaxResponseBytes int64
	// Live turns subscriptions on (over WebSocket at the same path).
	Live *LiveOptions
	// NewLoaders makes the loaders of each operation and of each delivery of
	// a subscription, in the read scope requestScope gives it (for example
	// loader.New over the store). Without it nothing can read: the resolvers
	// find no loaders.
	NewLoaders func(calendar.ReadScope) *loader.Loaders
}

// NewHandler returns the GraphQL endpoint: GET (queries only) and POST per the
// GraphQL-over-HTTP spec, answering application/graphql-response+json to
// clients that accept it and application/json otherwise (no Accept, */*).
// Reads need Options.NewLoaders.
func NewHandler(svc calendar.Service, logger *slog.Logger, opts Options) http.Handler {
	res := &Resolver{Service: svc, PublicURL: opts.PublicURL, ForgetIdentity: opts.ForgetIdentity, present: presentError(logger)}
	cfg := Config{Resolvers: res}
	setComplexity(&cfg)
	srv := handler.New(NewExecutableSchema(cfg))
	var sockets *wsServer
	if opts.Live != nil {
		res.Live = opts.Live.Hub
		sockets = newWSServer(*opts.Live, res.present)
		srv.AddTransport(sockets.transport())
	}
	srv.AddTransport(transport.Options{})
	srv.AddTransport(transport.GET{})
	srv.AddTransport(transport.MultipartMixed{}) // before POST: @defer, for clients that accept multipart/mixed
	srv.AddTransport(postTransport{})            // transport.go: gqlgen's POST, data-only answers written without re-compacting them
	srv.SetValidationRulesFn(validationRules)
	srv.SetQueryCache(lru.New[*ast.QueryDocument](1000))
	// Validation compares fields pairwise: without a bound on the tokens, one
	// request of repeated fields costs seconds to minutes of CPU.
	srv.SetParserTokenLimit(MaxTokens)
	exts := []graphql.HandlerExtension{
		extension.Introspection{},
		requestRecord{},
		deferNeedsMultipart{},
		answerConsent{}, // answers.go
		// Apollo's automatic persisted queries: a client sends a query's SHA-256
		// alone, and the query with it once if the server answers
		// PERSISTED_QUERY_NOT_FOUND. The cache keeps the last apqCacheSize
		// queries, parsed and validated ones aside (SetQueryCache).
		extension.AutomaticPersistedQuery{Cache: lru.New[string](apqCacheSize)},
		complexityLimit(),
	}
	if opts.NewLoaders != nil {
		exts = append(exts, requestScope{maxEntries: cmp.Or(opts.MaxEntries, DefaultMaxEntries), maxBytes: cmp.Or(opts.MaxResponseBytes, DefaultMaxResponseBytes),
			newLoaders: opts.NewLoaders})
	}
	exts = append(exts, opts.Extensions...)
	for _, ext := range exts {
		srv.Use(ext)
	}
	// Scalar struct fields skip gqlgen's field resolution unless one of the
	// extensions intercepts fields (executionContext.plainFields).
	res.plainFields = !interceptsFields(exts)
	srv.SetErrorPresenter(presentError(logger))
	srv.SetRecoverFunc(recoverPanic(logger))
	h := checkRequest(opts.MaxBodyBytes, specStatuses(srv))
	if sockets == nil {
		return h
	}
	return sockets.handler(h)
}
