package graph_test

import (
	"strings"
	"testing"
)

const reminderWebhookFields = `url state createdAt failingSince waitingDeliveries droppedDeliveries deliveryLog { deliveryId attemptedAt httpStatus latencyMs error }`

// TestReminderWebhookAPI: refused URLs are BAD_USER_INPUT on url and write
// nothing; the secret comes once, in the registration's payload (and its
// replay), and no query returns it; registering again rotates it; resume
// and delete answer as documented.
func TestReminderWebhookAPI(t *testing.T) {
	e := newEnv(t)
	tok := e.token("hooks@example.com")
	const register = `mutation($u: String!, $k: String) { registerReminderWebhook(input: {url: $u, idempotencyKey: $k}) { secret reminderWebhook { ` + reminderWebhookFields + ` } } }`
	for _, url := range []string{"file:///etc/passwd", "ftp://example.com/in", "javascript:alert(1)", "http://169.254.169.254/latest/meta-data/",
		"http://localhost:8080/in", "http://127.0.0.1/in", "http://[fe80::1]/in", "https://hooks.example.com/" + strings.Repeat("x", 2048)} {
		r := e.do(tok, register, map[string]any{"u": url})
		if r.code() != "BAD_USER_INPUT" || r.Errors[0].Extensions.Field != "url" {
			t.Errorf("register %.50q: %s, want BAD_USER_INPUT on url", url, r.Raw)
		}
	}
	if d := e.must(tok, `{ viewer { reminderWebhook { url } } }`, nil); get(d, "viewer.reminderWebhook") != nil {
		t.Fatalf("refused registrations wrote a webhook: %v", d)
	}

	d := e.must(tok, register, map[string]any{"u": "https://hooks.example.com/calgraph", "k": "reg-1"})
	secret := str(d, "registerReminderWebhook.secret")
	if !strings.HasPrefix(secret, "whsec_") || str(d, "registerReminderWebhook.reminderWebhook.state") != "ACTIVE" {
		t.Fatalf("registration: %v", d)
	}
	if again := e.must(tok, register, map[string]any{"u": "https://hooks.example.com/calgraph", "k": "reg-1"}); str(again, "registerReminderWebhook.secret") != secret {
		t.Errorf("a replay answered secret %q, want the first answer's", str(again, "registerReminderWebhook.secret"))
	}
	for _, q := range []string{
		`{ viewer { reminderWebhook { ` + reminderWebhookFields + ` } } }`,
		`{ __type(name: "ReminderWebhook") { fields { name } } }`,
		`mutation { resumeReminderWebhook(input: {}) { reminderWebhook { ` + reminderWebhookFields + ` } } }`,
	} {
		r := e.do(tok, q, nil)
		if len(r.Errors) > 0 || strings.Contains(string(r.Raw), secret) || strings.Contains(strings.ToLower(string(r.Raw)), "secret") {
			t.Errorf("%s answered %s: want no error and no secret", q, r.Raw)
		}
	}
	if d := e.must(tok, `{ viewer { reminderWebhook { url state } } }`, nil); str(d, "viewer.reminderWebhook.url") != "https://hooks.example.com/calgraph" {
		t.Errorf("read back: %v", d)
	}
	if rotated := e.must(tok, register, map[string]any{"u": "https://hooks.example.com/v2"}); str(rotated, "registerReminderWebhook.secret") == secret {
		t.Error("registering again kept the secret")
	}
	const del = `mutation { deleteReminderWebhook(input: {}) { deleted } }`
	if d := e.must(tok, del, nil); get(d, "deleteReminderWebhook.deleted") != true {
		t.Errorf("delete: %v", d)
	}
	if d := e.must(tok, del, nil); get(d, "deleteReminderWebhook.deleted") != false {
		t.Errorf("delete again: %v, want deleted false", d)
	}
	if r := e.do(tok, `mutation { resumeReminderWebhook(input: {}) { reminderWebhook { url } } }`, nil); r.code() != "NOT_FOUND" {
		t.Errorf("resume without a webhook: %s, want NOT_FOUND", r.Raw)
	}
}
