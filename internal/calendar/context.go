package calendar

import (
	"context"
	"time"
)

type viewerKey struct{}

type viewerState struct {
	userID string
	err    error
}

// WithViewer returns a context whose signed-in user is userID.
func WithViewer(ctx context.Context, userID string) context.Context {
	return context.WithValue(ctx, viewerKey{}, viewerState{userID: userID})
}

// WithViewerError returns a context recording why no user is signed in (an expired
// token, say), so that operations needing one can say why.
func WithViewerError(ctx context.Context, err error) context.Context {
	return context.WithValue(ctx, viewerKey{}, viewerState{err: err})
}

// ViewerID returns the signed-in user's ID. Without one it returns the error recorded
// by WithViewerError or a CodeUnauthenticated error.
func ViewerID(ctx context.Context) (string, error) {
	st, _ := ctx.Value(viewerKey{}).(viewerState)
	if st.userID != "" {
		return st.userID, nil
	}
	if st.err != nil {
		return "", st.err
	}
	return "", Errorf(CodeUnauthenticated, "sign in required: send Authorization: Bearer <token>")
}

type verifiedEmailKey struct{}

// WithVerifiedEmail returns a context recording the email the viewer's token
// carries, verified by its issuer.
func WithVerifiedEmail(ctx context.Context, email string) context.Context {
	return context.WithValue(ctx, verifiedEmailKey{}, email)
}

// VerifiedEmail returns the email the viewer's token carries, verified by its
// issuer, or "" when it carries none.
func VerifiedEmail(ctx context.Context) string {
	e, _ := ctx.Value(verifiedEmailKey{}).(string)
	return e
}

type identityKey struct{}

// WithViewerIdentity returns a context recording the identity the viewer
// signed in with.
func WithViewerIdentity(ctx context.Context, id Identity) context.Context {
	return context.WithValue(ctx, identityKey{}, id)
}

type expiryKey struct{}

// WithSignInExpiry records when the viewer's sign-in ends: when their token
// is no longer accepted (its expiry, plus the leeway allowed for clock skew).
func WithSignInExpiry(ctx context.Context, t time.Time) context.Context {
	return context.WithValue(ctx, expiryKey{}, t)
}

// SignInExpiry returns when the viewer's sign-in expires, if known: a
// connection that outlives its request (a WebSocket) ends then.
func SignInExpiry(ctx context.Context) (time.Time, bool) {
	t, ok := ctx.Value(expiryKey{}).(time.Time)
	return t, ok && !t.IsZero()
}

// ViewerIdentity returns the identity the viewer signed in with, if known.
func ViewerIdentity(ctx context.Context) (Identity, bool) {
	id, ok := ctx.Value(identityKey{}).(Identity)
	return id, ok
}

type signedUpKey struct{}

// WithViewerSignedUp returns a context recording that the request's own
// sign-in made the viewer's account.
func WithViewerSignedUp(ctx context.Context) context.Context {
	return context.WithValue(ctx, signedUpKey{}, true)
}

// ViewerSignedUp reports whether the request's own sign-in made the viewer's
// account.
func ViewerSignedUp(ctx context.Context) bool {
	up, _ := ctx.Value(signedUpKey{}).(bool)
	return up
}
