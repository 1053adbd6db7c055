package graph_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	coderws "github.com/coder/websocket"
)

// TestWebSocketSignInReplacesTheUpgrades: a connection_init signs in over
// the sign-in of the upgrade request's own Authorization header, and nothing
// of that first sign-in survives it. It once kept the first token's verified
// email: a user whose token carries none could take an address that only the
// other identity's issuer had verified.
func TestWebSocketSignInReplacesTheUpgrades(t *testing.T) {
	e := newEnv(t)
	exp := time.Now().Add(time.Hour)
	e.must(e.tokenFor("subject-ada", "ada@example.com", exp), provision, nil)
	e.must(e.tokenFor("subject-bob", "bob@example.com", exp), provision, nil)
	adaMoved := e.tokenFor("subject-ada", "ada@new.example.com", exp) // her issuer verified a new address
	bobBare := e.tokenFor("subject-bob", "", exp)                     // carries no email

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, _, err := coderws.Dial(ctx, "ws"+strings.TrimPrefix(e.url, "http")+"/query", &coderws.DialOptions{
		Subprotocols: []string{"graphql-transport-ws"},
		HTTPHeader:   http.Header{"Authorization": {"Bearer " + adaMoved}},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.CloseNow()
	change := `mutation($e: String!) { changeEmail(input: {email: $e, expectedVersion: 1}) { user { email } } }`
	for _, m := range []wsMessage{
		{Type: "connection_init", Payload: mustJSON(map[string]any{"Authorization": "Bearer " + bobBare})},
		{ID: "1", Type: "subscribe", Payload: mustJSON(map[string]any{"query": change, "variables": map[string]any{"e": "ada@new.example.com"}})},
	} {
		if err := conn.Write(ctx, coderws.MessageText, mustJSON(m)); err != nil {
			t.Fatal(err)
		}
	}
	var got response
	for got.Raw == "" {
		_, b, err := conn.Read(ctx)
		if err != nil {
			t.Fatalf("waiting for the mutation's answer: %v", err)
		}
		var m wsMessage
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		if m.Type == "next" && m.ID == "1" {
			got.Raw = string(m.Payload)
			if err := json.Unmarshal(m.Payload, &got); err != nil {
				t.Fatal(err)
			}
		}
	}
	if got.code() != "BAD_USER_INPUT" {
		t.Errorf("bob takes the address ada's token carried: got %s, want BAD_USER_INPUT", got.Raw)
	}
	d := e.must(e.tokenFor("subject-bob", "bob@example.com", exp), `{ viewer { user { email } } }`, nil)
	if got := str(d, "viewer.user.email"); got != "bob@example.com" {
		t.Errorf("bob's email: got %q, want bob@example.com", got)
	}
}
