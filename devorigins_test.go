package main

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	coderws "github.com/coder/websocket"
)

// TestDevOriginsSubscribe: with the defaults of a local run (dev tokens, so
// -cors-origins auto: http://localhost:* and http://127.0.0.1:*), an SPA on
// a dev server's port may subscribe as it may POST, and a page of any other
// origin may do neither.
func TestDevOriginsSubscribe(t *testing.T) {
	in := serve(t, settings(t, t.TempDir(), false))
	for _, tt := range []struct {
		origin string
		allow  bool
	}{
		{"http://localhost:5173", true},
		{"http://127.0.0.1:3000", true},
		{"https://evil.example", false},
	} {
		req, _ := http.NewRequest(http.MethodOptions, in.url+"/query", nil)
		req.Header.Set("Origin", tt.origin)
		req.Header.Set("Access-Control-Request-Method", "POST")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if got := res.Header.Get("Access-Control-Allow-Origin") == tt.origin; got != tt.allow {
			t.Errorf("%s: CORS allowed %v, want %v", tt.origin, got, tt.allow)
		}

		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		conn, res, err := coderws.Dial(ctx, "ws"+strings.TrimPrefix(in.url, "http")+"/query", &coderws.DialOptions{
			Subprotocols: []string{"graphql-transport-ws"}, HTTPHeader: http.Header{"Origin": {tt.origin}}})
		if !tt.allow {
			if err == nil || res == nil || res.StatusCode != http.StatusForbidden {
				t.Errorf("%s: WebSocket %v, want 403", tt.origin, err)
			}
			cancel()
			continue
		}
		if err != nil {
			cancel()
			t.Fatalf("%s: WebSocket refused: %v", tt.origin, err)
		}
		init, _ := json.Marshal(map[string]any{"type": "connection_init", "payload": map[string]string{"Authorization": "Bearer " + in.token}})
		if err := conn.Write(ctx, coderws.MessageText, init); err != nil {
			t.Fatal(err)
		}
		_, b, err := conn.Read(ctx)
		if err != nil || !strings.Contains(string(b), `"connection_ack"`) {
			t.Errorf("%s: after connection_init: %s %v, want connection_ack", tt.origin, b, err)
		}
		conn.CloseNow()
		cancel()
	}
}
