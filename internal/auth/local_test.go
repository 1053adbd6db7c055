package auth

import (
	"bytes"
	"encoding/hex"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestLoadOrCreateSecretCreates(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state")
	path := filepath.Join(dir, "keys", "secret.hex")
	secret, err := LoadOrCreateSecret(path)
	if err != nil {
		t.Fatalf("LoadOrCreateSecret: %v", err)
	}
	if len(secret) != MinSecretLength {
		t.Errorf("got a %d-byte secret, want %d", len(secret), MinSecretLength)
	}
	checkMode(t, path, 0o600)
	checkMode(t, dir, 0o700|os.ModeDir)
	checkMode(t, filepath.Dir(path), 0o700|os.ModeDir)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(data), hex.EncodeToString(secret)+"\n"; got != want {
		t.Errorf("got file %q, want %q", got, want)
	}
	again, err := LoadOrCreateSecret(path)
	if err != nil {
		t.Fatalf("LoadOrCreateSecret again: %v", err)
	}
	if !bytes.Equal(again, secret) {
		t.Errorf("got secret %x on reload, want %x", again, secret)
	}
	if entries, _ := os.ReadDir(filepath.Dir(path)); len(entries) != 1 {
		t.Errorf("got %d files in the key directory, want 1 (no temporary files left)", len(entries))
	}
}

func TestLoadOrCreateSecretRejects(t *testing.T) {
	tests := []struct {
		name    string
		content string
	}{
		{"not hex", "this is not hex\n"},
		{"too short", hex.EncodeToString(make([]byte, MinSecretLength-1)) + "\n"},
		{"empty", ""},
		{"two lines", hex.EncodeToString(testSecret) + "\n" + hex.EncodeToString(testSecret) + "\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "secret.hex")
			if err := os.WriteFile(path, []byte(tt.content), 0o600); err != nil {
				t.Fatal(err)
			}
			if secret, err := LoadOrCreateSecret(path); err == nil {
				t.Errorf("LoadOrCreateSecret: got secret %x, want an error", secret)
			}
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if string(data) != tt.content {
				t.Errorf("got file %q after the error, want it untouched: %q", data, tt.content)
			}
		})
	}
}

func TestLoadOrCreateSecretAcceptsWhitespace(t *testing.T) {
	path := filepath.Join(t.TempDir(), "secret.hex")
	if err := os.WriteFile(path, []byte("  "+hex.EncodeToString(testSecret)+"\r\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := LoadOrCreateSecret(path)
	if err != nil {
		t.Fatalf("LoadOrCreateSecret: %v", err)
	}
	if !bytes.Equal(got, testSecret) {
		t.Errorf("got secret %x, want %x", got, testSecret)
	}
}

// Processes starting together must agree on one secret.
func TestLoadOrCreateSecretConcurrent(t *testing.T) {
	path := filepath.Join(t.TempDir(), "secret.hex")
	secrets := make([][]byte, 10)
	var wg sync.WaitGroup
	for i := range secrets {
		wg.Go(func() {
			var err error
			if secrets[i], err = LoadOrCreateSecret(path); err != nil {
				t.Errorf("LoadOrCreateSecret: %v", err)
			}
		})
	}
	wg.Wait()
	for i, s := range secrets {
		if !bytes.Equal(s, secrets[0]) {
			t.Errorf("caller %d got secret %x, want %x like caller 0", i, s, secrets[0])
		}
	}
}

func checkMode(t *testing.T, path string, want os.FileMode) {
	t.Helper()
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := info.Mode(); got != want {
		t.Errorf("%s: got mode %v, want %v", path, got, want)
	}
}

func TestMintVerifyRoundTrip(t *testing.T) {
	v := newTestVerifier(t, Config{HMACSecret: testSecret, Issuer: LocalIssuer, Audience: LocalAudience})
	token, err := Mint(testSecret, "  Ada@Example.COM ", "Ada", testNow, time.Hour)
	if err != nil {
		t.Fatalf("Mint: %v", err)
	}
	got, err := v.Verify(t.Context(), token)
	if err != nil {
		t.Fatalf("Verify: %v", err)
	}
	want := Claims{
		Issuer:     LocalIssuer,
		Subject:    "ada@example.com",
		Email:      "ada@example.com",
		Name:       "Ada",
		ExpiresAt:  testNow.Add(time.Hour),
		ValidUntil: testNow.Add(time.Hour + DefaultLeeway),
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Verify(Mint(...)) mismatch (-want +got):\n%s", diff)
	}

	// A verifier for another audience must not accept local tokens.
	other := newTestVerifier(t, Config{HMACSecret: testSecret, Issuer: LocalIssuer, Audience: "elsewhere"})
	_, err = other.Verify(t.Context(), token)
	checkVerifyError(t, err, ErrInvalid, token)

	later := newTestVerifier(t, Config{HMACSecret: testSecret, Now: func() time.Time { return testNow.Add(2 * time.Hour) }})
	_, err = later.Verify(t.Context(), token)
	checkVerifyError(t, err, ErrExpired, token)
}

func TestMintErrors(t *testing.T) {
	tests := []struct {
		name   string
		secret []byte
		email  string
		ttl    time.Duration
	}{
		{"short secret", testSecret[:31], "ada@example.com", time.Hour},
		{"no email", testSecret, "", time.Hour},
		{"bad email", testSecret, "ada at example", time.Hour},
		{"zero ttl", testSecret, "ada@example.com", 0},
		{"negative ttl", testSecret, "ada@example.com", -time.Hour},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if token, err := Mint(tt.secret, tt.email, "Ada", testNow, tt.ttl); err == nil {
				t.Errorf("Mint: got token %q, want an error", token)
			}
		})
	}
}
