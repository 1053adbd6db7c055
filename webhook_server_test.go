package main

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"sync/atomic"
	"testing"
	"time"

	"github.com/calgraph/calgraph/graph/model"
	"github.com/calgraph/calgraph/internal/dynamo"
	"github.com/calgraph/calgraph/internal/dynamotest"
	"github.com/calgraph/calgraph/internal/recurrence"
	"github.com/calgraph/calgraph/internal/webhook"
)

// gqlRaw posts an operation with variables and returns the whole answer,
// errors included.
func (in instance) gqlRaw(t *testing.T, q string, vars map[string]any) map[string]any {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"query": q, "variables": vars})
	req, _ := http.NewRequest(http.MethodPost, in.url+"/query", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+in.token)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var out map[string]any
	if err := json.NewDecoder(res.Body).Decode(&out); err != nil {
		t.Fatal(err)
	}
	return out
}

const registerHook = `mutation($u: String!) { registerReminderWebhook(input: {url: $u}) { secret } }`

// TestServerWebhookPolicy: by default the server refuses a webhook on
// 127.0.0.1; CALGRAPH_WEBHOOK_ALLOW_PRIVATE=true lets it register one, but
// not the metadata service.
func TestServerWebhookPolicy(t *testing.T) {
	strict := serve(t, settings(t, t.TempDir(), false))
	out := strict.gqlRaw(t, registerHook, map[string]any{"u": "http://127.0.0.1:9/in"})
	if code := field(out, "errors"); code == nil || fmt.Sprint(field(out["errors"].([]any)[0], "extensions", "code")) != "BAD_USER_INPUT" {
		t.Errorf("127.0.0.1 by default: %v, want BAD_USER_INPUT", out)
	}
	_ = strict.stop()
	open := serve(t, settings(t, t.TempDir(), false, "CALGRAPH_WEBHOOK_ALLOW_PRIVATE", "true"))
	if out := open.gqlRaw(t, registerHook, map[string]any{"u": "http://127.0.0.1:9/in"}); out["errors"] != nil {
		t.Errorf("127.0.0.1 with private addresses allowed: %v", out["errors"])
	}
	if out := open.gqlRaw(t, registerHook, map[string]any{"u": "http://169.254.169.254/"}); out["errors"] == nil {
		t.Error("the metadata service was accepted with private addresses allowed")
	}
}

// TestServerDeliversReminderWebhooks: the worker the server runs posts a
// delivery queued in its table (as the reminder firing queues them) to the
// registered webhook, signed, within seconds, and the log shows it.
func TestServerDeliversReminderWebhooks(t *testing.T) {
	if os.Getenv(dynamotest.EnvEndpoint) == "" {
		t.Skip("the test queues a delivery in the server's table: DynamoDB Local only (set " + dynamotest.EnvEndpoint + ")")
	}
	table := fmt.Sprintf("hook%d", time.Now().UnixNano())
	t.Cleanup(func() { // after the server stopped
		if err := dynamo.DeleteTable(context.Background(), dynamotest.Client(t), table); err != nil {
			t.Error(err)
		}
	})
	got := make(chan string, 10)
	var secret atomic.Value // string, set before anything is queued
	secret.Store("")
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mac := hmac.New(sha256.New, []byte(secret.Load().(string)))
		mac.Write([]byte(r.Header.Get("Calgraph-Webhook-Timestamp") + "." + string(body)))
		if r.Header.Get("Calgraph-Webhook-Signature") != "v1="+hex.EncodeToString(mac.Sum(nil)) {
			http.Error(w, "bad signature", http.StatusUnauthorized)
			return
		}
		got <- r.Header.Get("Calgraph-Webhook-Id")
	}))
	defer recv.Close()
	in := serve(t, settings(t, t.TempDir(), true, "CALGRAPH_TABLE", table, "CALGRAPH_WEBHOOK_ALLOW_PRIVATE", "true"))
	out := in.gqlRaw(t, registerHook, map[string]any{"u": recv.URL + "/reminders"})
	s, _ := field(out, "data", "registerReminderWebhook", "secret").(string)
	secret.Store(s)
	userID, err := model.DecodeAs("id", model.KindUser, field(in.query(t, `{ viewer { user { id } } }`), "data", "viewer", "user", "id").(string))
	if s == "" || err != nil {
		t.Fatalf("register: %v; user: %v", out, err)
	}
	store := dynamo.New(dynamotest.Client(t), table, recurrence.Engine{})
	d := webhook.Delivery{ID: "srv-1", Event: "reminder", Body: []byte(`{"type":"reminder"}`)}
	if err := store.QueueReminderDelivery(context.Background(), userID, d, time.Now()); err != nil {
		t.Fatal(err)
	}
	select {
	case id := <-got:
		if id != "srv-1" {
			t.Fatalf("delivered %q, want srv-1", id)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("nothing delivered within 30 s")
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		log := field(in.query(t, `{ viewer { reminderWebhook { deliveryLog { deliveryId httpStatus } } } }`), "data", "viewer", "reminderWebhook", "deliveryLog")
		if fmt.Sprint(log) == "[map[deliveryId:srv-1 httpStatus:200]]" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("delivery log %v, want srv-1 answered 200", log)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
