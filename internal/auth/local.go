package auth

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/calgraph/calgraph/internal/calendar"
	"github.com/golang-jwt/jwt/v5"
)

// Claims of the tokens Mint signs, for a Verifier to insist on in embedded mode.
const (
	// LocalIssuer is the iss of tokens minted by Mint.
	LocalIssuer = "calgraph-local"
	// LocalAudience is the aud of tokens minted by Mint.
	LocalAudience = "calgraph"
)

// LoadOrCreateSecret reads the HMAC secret at path (hex, one line), creating the
// file (mode 0600, parent directories 0700) with 32 random bytes when missing.
// A malformed or too-short file is an error and is left alone: replacing it would
// silently invalidate every token minted with it.
func LoadOrCreateSecret(path string) ([]byte, error) {
	secret, err := readSecret(path)
	if !errors.Is(err, fs.ErrNotExist) {
		return secret, err
	}
	if err := createSecret(path); err != nil && !errors.Is(err, fs.ErrExist) {
		return nil, err
	}
	// Read back what is there now, which another process may have created first.
	return readSecret(path)
}

func readSecret(path string) ([]byte, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read secret: %w", err)
	}
	secret, err := hex.DecodeString(strings.TrimSpace(string(data)))
	if err != nil {
		return nil, fmt.Errorf("read secret %s: not one line of hex; delete it to make a new one", path)
	}
	if len(secret) < MinSecretLength {
		return nil, fmt.Errorf("read secret %s: %d bytes, want at least %d; delete it to make a new one",
			path, len(secret), MinSecretLength)
	}
	return secret, nil
}

// createSecret writes a fresh secret to a temporary file and links it into place,
// so that path never holds a half-written secret and an existing one is never
// overwritten (the link fails with fs.ErrExist instead).
func createSecret(path string) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("create secret: %w", err)
	}
	tmp, err := os.CreateTemp(dir, ".secret-*") // created with mode 0600
	if err != nil {
		return fmt.Errorf("create secret: %w", err)
	}
	defer os.Remove(tmp.Name())
	secret := make([]byte, MinSecretLength)
	rand.Read(secret) // never fails: it crashes the program instead
	_, err = tmp.WriteString(hex.EncodeToString(secret) + "\n")
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("create secret: %w", err)
	}
	if err := os.Link(tmp.Name(), path); err != nil {
		return fmt.Errorf("create secret: %w", err)
	}
	return nil
}

// Mint signs an HS256 token for local development: iss LocalIssuer, aud
// LocalAudience, sub and email the normalized (lower-cased) email, name, iat now
// and exp now+ttl.
func Mint(secret []byte, email, name string, now time.Time, ttl time.Duration) (string, error) {
	if len(secret) < MinSecretLength {
		return "", fmt.Errorf("mint token: secret is %d bytes; at least %d are required", len(secret), MinSecretLength)
	}
	if ttl <= 0 {
		return "", fmt.Errorf("mint token: ttl %v is not positive", ttl)
	}
	email, err := calendar.NormalizeEmail(email)
	if err != nil {
		return "", fmt.Errorf("mint token: %w", err)
	}
	claims := tokenClaims{
		RegisteredClaims: jwt.RegisteredClaims{
			Issuer:    LocalIssuer,
			Subject:   email,
			Audience:  jwt.ClaimStrings{LocalAudience},
			IssuedAt:  jwt.NewNumericDate(now),
			ExpiresAt: jwt.NewNumericDate(now.Add(ttl)),
		},
		Email: email,
		Name:  name,
	}
	signed, err := jwt.NewWithClaims(jwt.SigningMethodHS256, claims).SignedString(secret)
	if err != nil {
		return "", fmt.Errorf("mint token: %w", err)
	}
	return signed, nil
}
