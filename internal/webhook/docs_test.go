package webhook_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/calgraph/calgraph/internal/webhook"
)

// snippets returns the code blocks of the given language in
// docs/design.md's "Webhooks" section, in order.
func snippets(t *testing.T, lang string) []string {
	t.Helper()
	b, err := os.ReadFile("../../docs/design.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(b), "\n## Webhooks\n")
	if !ok {
		t.Fatal(`docs/design.md has no "## Webhooks" section`)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	var out []string
	for _, m := range regexp.MustCompile("(?s)```"+lang+"\n(.*?)```").FindAllStringSubmatch(section, -1) {
		out = append(out, m[1])
	}
	return out
}

// signed returns a delivery's secret, headers (lower-cased names, as Node
// gives them) and body, signed now.
func signed() (secret string, headers map[string]string, body string) {
	secret = webhook.NewSecret()
	d := webhook.Delivery{ID: "d-42", Event: "reminder", Body: []byte(`{"type":"reminder","title":"Dentist ü"}`)}
	headers = map[string]string{}
	for k, v := range webhook.Headers(secret, d, time.Now()) {
		headers[strings.ToLower(k)] = v[0]
	}
	return secret, headers, string(d.Body)
}

// TestDocumentedNodeVerify runs the Node snippet of docs/design.md on a
// signed delivery and on one whose body was changed.
func TestDocumentedNodeVerify(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed")
	}
	code := snippets(t, "js")
	if len(code) != 1 {
		t.Fatalf("%d js snippets in the Webhooks section, want 1", len(code))
	}
	secret, headers, body := signed()
	h, _ := json.Marshal(headers)
	script := code[0] + `
const [secret, headers, body] = process.argv.slice(1); // node -e: no script path
const h = JSON.parse(headers);
process.stdout.write(verify(secret, h, Buffer.from(body)) + " " + verify(secret, h, Buffer.from(body + " ")));
`
	out, err := exec.Command(node, "-e", script, secret, string(h), body).CombinedOutput()
	if err != nil || string(out) != "true false" {
		t.Fatalf("the Node snippet answered %q (%v), want \"true false\" (signed, then tampered)", out, err)
	}
}

// TestDocumentedGoVerify runs the Go snippet of docs/design.md the same way.
func TestDocumentedGoVerify(t *testing.T) {
	code := snippets(t, "go")
	if len(code) < 1 {
		t.Fatal("no go snippet in the Webhooks section")
	}
	secret, headers, body := signed()
	program := `package main

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"
)

` + code[0] + `
func main() {
	h := http.Header{}
	h.Set("Calgraph-Webhook-Timestamp", os.Args[2])
	h.Set("Calgraph-Webhook-Signature", os.Args[3])
	fmt.Print(verify(os.Args[1], h, []byte(os.Args[4]), time.Now()), " ", verify(os.Args[1], h, []byte(os.Args[4]+" "), time.Now()))
}
`
	file := filepath.Join(t.TempDir(), "verify.go")
	if err := os.WriteFile(file, []byte(program), 0o600); err != nil {
		t.Fatal(err)
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("no go command on PATH to run the snippet with: %v", err)
	}
	out, err := exec.Command(goTool, "run", file, secret, headers["calgraph-webhook-timestamp"], headers["calgraph-webhook-signature"], body).CombinedOutput()
	if err != nil || string(out) != "true false" {
		t.Fatalf("the Go snippet answered %q (%v), want \"true false\" (signed, then tampered)", out, err)
	}
}
