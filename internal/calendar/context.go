package calendar

import (
	"context"
	"time"
)

type viewerKey struct{}

// Viewer is who sends a request, as its sign-in established it: the auth
// middleware builds the whole value once per request (or per WebSocket
// connection_init) and passes it down in the request's context, where
// ViewerOf reads it. A sign-in replaces the Viewer whole, so nothing of an
// earlier one survives it. A caller acting as a user without a token (the
// demo seed, tests) sets what it knows, at least ID.
type Viewer struct {
	// ID is the signed-in user's ID; "" when no one is signed in.
	ID string
	// Identity is the identity the user signed in with; zero without a
	// sign-in. Idempotency keys are the identity's, not the user's.
	Identity Identity
	// Email is the email the token carries, verified by its issuer; "" when
	// it carries none or its issuer has not verified it. Only this email may
	// become the user's (ChangeEmail).
	Email string
	// Expiry is when the sign-in ends: when its token is no longer accepted
	// (its expiry plus the leeway for clock skew); zero when unknown. A
	// connection that outlives its request (a WebSocket) ends then.
	Expiry time.Time
	// SignedUp reports that the request's own sign-in made the account.
	SignedUp bool
	// Err is why no one is signed in (an expired token, say), so that
	// operations needing a user can say why; nil when ID is set.
	Err error
}

// WithViewer returns a context whose viewer is v, replacing any viewer ctx
// had.
func WithViewer(ctx context.Context, v Viewer) context.Context {
	return context.WithValue(ctx, viewerKey{}, v)
}

// ViewerOf returns the request's viewer: the zero Viewer when the request
// carries none (no Authorization header).
func ViewerOf(ctx context.Context) Viewer {
	v, _ := ctx.Value(viewerKey{}).(Viewer)
	return v
}

// ViewerID returns the signed-in user's ID. Without one it returns the
// viewer's Err or a CodeUnauthenticated error.
func ViewerID(ctx context.Context) (string, error) {
	v := ViewerOf(ctx)
	if v.ID != "" {
		return v.ID, nil
	}
	if v.Err != nil {
		return "", v.Err
	}
	return "", Errorf(CodeUnauthenticated, "sign in required: send Authorization: Bearer <token>")
}
