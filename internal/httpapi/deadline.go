package httpapi

import (
	"context"
	"net/http"
	"time"
)

// Deadline gives every request through next a deadline of d: the store calls
// it makes stop then (their errors say whether a write may have been applied),
// so the client always gets an answer within about d, whatever the store does.
// The server's write timeout must leave room for it.
func Deadline(d time.Duration, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), d)
		defer cancel()
		next.ServeHTTP(w, r.WithContext(ctx))
	})
}
