package auth

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/calgraph/calgraph/internal/calendar"
)

// Authenticator establishes the signed-in user of each HTTP request from its
// bearer token. It is safe for concurrent use.
type Authenticator struct {
	verifier *Verifier
	users    IdentityResolver
	logger   *slog.Logger
	cache    *identityCache
}

// IdentityResolver finds, or creates, the user who signs in with an
// identity (calendar.UserService's ResolveIdentity).
type IdentityResolver interface {
	ResolveIdentity(ctx context.Context, s calendar.SignUp) (userID string, created bool, err error)
}

// NewAuthenticator returns an Authenticator that verifies tokens with v and finds
// or creates their users with users. logger receives failures that clients are
// not told about; nil means slog.Default().
func NewAuthenticator(v *Verifier, users IdentityResolver, logger *slog.Logger) *Authenticator {
	if logger == nil {
		logger = slog.Default()
	}
	return &Authenticator{
		verifier: v,
		users:    users,
		logger:   logger,
		cache:    newIdentityCache(identityTTL, identityCacheLimit, time.Now),
	}
}

// Middleware records the request's calendar.Viewer in its context.
// It never rejects a request: anonymous clients may still use what needs no user
// (introspection, for one), and a bad token makes only the operations that need a
// user fail, with CodeUnauthenticated and the reason.
func (a *Authenticator) Middleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		values := r.Header.Values("Authorization")
		if len(values) == 0 {
			next.ServeHTTP(w, r)
			return
		}
		next.ServeHTTP(w, r.WithContext(a.viewerContext(r.Context(), values)))
	})
}

// Authenticate returns ctx with the viewer of an Authorization value
// ("Bearer <token>"), or with the reason there is none, as Middleware
// records it (a WebSocket's connection_init carries it in its payload). The
// viewer replaces whatever viewer ctx had whole (the upgrade request's).
func (a *Authenticator) Authenticate(ctx context.Context, authorization string) context.Context {
	return a.viewerContext(ctx, []string{authorization})
}

// Forget drops id from the identity cache, so that its next request asks the
// user service again. Call it when the identity's user is deleted.
func (a *Authenticator) Forget(id calendar.Identity) {
	a.cache.forget(id)
}

// viewerContext returns ctx with the viewer, or the reason there is none, for the
// given Authorization header values.
func (a *Authenticator) viewerContext(ctx context.Context, header []string) context.Context {
	return calendar.WithViewer(ctx, a.viewer(ctx, header))
}

// viewer returns the whole Viewer of the given Authorization header values,
// built once: a sign-in replaces every field of an earlier one (a WebSocket's
// connection_init signs in over its upgrade request's sign-in).
func (a *Authenticator) viewer(ctx context.Context, header []string) calendar.Viewer {
	raw, ok := bearerToken(header)
	if !ok {
		return calendar.Viewer{Err: calendar.Errorf(calendar.CodeUnauthenticated,
			"malformed Authorization header: want Bearer <token>")}
	}
	claims, err := a.verifier.Verify(ctx, raw)
	if err != nil {
		// A bad token is the client's problem, so no more than Debug; Verify's
		// message is safe to pass on.
		a.logger.DebugContext(ctx, "token rejected", "error", err)
		return calendar.Viewer{Err: calendar.Errorf(calendar.CodeUnauthenticated, "%s", err.Error())}
	}
	userID, created, err := a.userID(ctx, claims)
	if err != nil {
		return calendar.Viewer{Err: err}
	}
	v := calendar.Viewer{
		ID:       userID,
		Identity: calendar.Identity{Provider: claims.Issuer, Subject: claims.Subject},
		Expiry:   claims.ValidUntil,
		SignedUp: created,
	}
	if !claims.EmailUnverified {
		v.Email = claims.Email
	}
	return v
}

// bearerToken returns the token of a single "Bearer <token>" header; the scheme
// is case-insensitive (RFC 9110 section 11.1).
func bearerToken(header []string) (string, bool) {
	if len(header) != 1 {
		return "", false
	}
	scheme, token, ok := strings.Cut(header[0], " ")
	token = strings.TrimSpace(token)
	if !ok || !strings.EqualFold(scheme, "Bearer") || token == "" || strings.ContainsAny(token, " \t") {
		return "", false
	}
	return token, true
}

// userID returns the ID of the user who signs in as claims say, from the cache
// or else from the user service, and whether this sign-in made the user. Errors are returned as they are: a domain
// error's code reaches the client, and anything else is an internal error,
// which the GraphQL layer logs in full and shows as "internal error" when an
// operation needs the user.
func (a *Authenticator) userID(ctx context.Context, claims Claims) (userID string, created bool, err error) {
	id := calendar.Identity{Provider: claims.Issuer, Subject: claims.Subject}
	if userID, ok := a.cache.get(id); ok {
		return userID, false, nil
	}
	userID, created, err = a.users.ResolveIdentity(ctx, calendar.SignUp{
		Identity: id, Email: claims.Email, Name: claims.Name, EmailUnverified: claims.EmailUnverified,
	})
	if err == nil && userID == "" {
		err = errors.New("user service returned an empty user ID")
	}
	if err != nil {
		return "", false, fmt.Errorf("establish the user signing in with %s: %w", id.Provider, err)
	}
	a.cache.put(id, userID)
	return userID, created, nil
}
