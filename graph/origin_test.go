package graph_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	coderws "github.com/coder/websocket"
)

// TestOrigins: a browser page may open a WebSocket exactly when it may call
// the API over CORS: one list of patterns (-cors-origins, one * wildcard
// each), one matcher. A client that sends no Origin (not a browser), or the
// server's own origin, is not a cross-origin caller.
func TestOrigins(t *testing.T) {
	e := newEnv(t, func(o *envOptions) {
		o.origins = []string{"http://localhost:*", "https://app.example", "https://*.tenant.example"}
	})
	for _, tt := range []struct {
		origin string
		allow  bool
		cors   bool // a cross-origin caller, for which CORS answers too
	}{
		{"http://localhost:5173", true, true},
		{"http://localhost:3000", true, true},
		{"HTTP://LOCALHOST:5173", true, true},
		{"https://app.example", true, true},
		{"https://a.tenant.example", true, true},
		{"https://localhost:5173", false, true},
		{"http://127.0.0.1:5173", false, true},
		{"https://evil.example", false, true},
		{"http://localhost.evil.example", false, true},
		{"https://app.example.evil.example", false, true},
		{"https://tenant.example", false, true},
		{"null", false, true},
		{"", true, false},
		{e.url, true, false},
	} {
		t.Run(tt.origin, func(t *testing.T) {
			if tt.cors {
				req, _ := http.NewRequest(http.MethodOptions, e.url+"/query", nil)
				req.Header.Set("Origin", tt.origin)
				req.Header.Set("Access-Control-Request-Method", "POST")
				req.Header.Set("Access-Control-Request-Headers", "authorization,content-type")
				res, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				res.Body.Close()
				if got := res.Header.Get("Access-Control-Allow-Origin") == tt.origin; got != tt.allow {
					t.Errorf("CORS: got allowed %v (%q), want %v", got, res.Header.Get("Access-Control-Allow-Origin"), tt.allow)
				}
			}
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			h := http.Header{}
			if tt.origin != "" {
				h.Set("Origin", tt.origin)
			}
			conn, res, err := coderws.Dial(ctx, "ws"+strings.TrimPrefix(e.url, "http")+"/query",
				&coderws.DialOptions{Subprotocols: []string{"graphql-transport-ws"}, HTTPHeader: h})
			if got := err == nil; got != tt.allow {
				status := 0
				if res != nil {
					status = res.StatusCode
				}
				t.Errorf("WebSocket: got allowed %v (status %d, %v), want %v", got, status, err, tt.allow)
			}
			if err == nil {
				conn.CloseNow()
			} else if res != nil && res.StatusCode != http.StatusForbidden {
				t.Errorf("WebSocket refused with %d, want 403", res.StatusCode)
			}
		})
	}
}
