package httpapi

import (
	"context"
	"net/http"
	"strings"
	"time"
)

// Deadline gives every request through next a deadline of d: the store calls
// it makes stop then (their errors say whether a write may have been applied),
// so the client always gets an answer within about d, whatever the store does.
// The server's write timeout must leave room for it.
// A WebSocket upgrade (subscriptions) has none: it lasts as long as its
// connection, bounded by its own keep-alive and idle limits.
func Deadline(d time.Duration, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if IsWebSocket(r) {
			next.ServeHTTP(w, r)
			return
		}
		ctx, cancel := context.WithTimeout(r.Context(), d)
		defer cancel()
		next.ServeHTTP(w, r.WithContext(ctx))
	})
}

// IsWebSocket reports whether r asks for a WebSocket upgrade.
func IsWebSocket(r *http.Request) bool {
	return strings.EqualFold(r.Header.Get("Upgrade"), "websocket")
}
