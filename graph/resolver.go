// Package graph is calgraph's GraphQL layer: the gqlgen executable schema, thin
// resolvers that unpack arguments, call a service (mutations) or a loader
// (reads) and convert the result, and the one place where domain error codes
// become `extensions.code`.
package graph

import (
	"github.com/99designs/gqlgen/graphql"

	"github.com/calgraph/calgraph/internal/calendar"
	"github.com/calgraph/calgraph/internal/live"
)

// Resolver is the root resolver. Reads go through the per-request loaders in the
// context (package loader), writes through Service.
type Resolver struct {
	Service calendar.Service
	// PublicURL is the server's URL as clients reach it, for feed URLs.
	PublicURL string
	// ForgetIdentity, when set, drops a deleted account's sign-in identity
	// from the authenticator's cache.
	ForgetIdentity func(calendar.Identity)
	// Live delivers subscriptions' changes; nil without subscriptions.
	Live *live.Hub
	// present shapes an error as the client sees it (presentError), for
	// the errors that end a subscription.
	present graphql.ErrorPresenterFunc
	// plainFields is set by NewHandler when none of its extensions
	// intercepts fields (executionContext.plainFields).
	plainFields bool
}
