package engine

import "net/http"

// ServeUnsigned answers a call as a Server does once its signature is
// verified: the engine's rule tests and benchmarks send raw JSON straight to
// the handler, without signing it.
func (db *DB) ServeUnsigned(w http.ResponseWriter, r *http.Request) {
	if body, ok := readBody(w, r); ok {
		db.serve(w, r, body)
	}
}

// ServeHTTP answers one call as the Server's listener does, so a test can
// send one after Close, as a connection that read it just before does.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.serveHTTP(w, r) }
