package dynamo_test

import (
	"bytes"
	"compress/flate"
	"compress/gzip"
	"compress/zlib"
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"strings"
	"testing"

	"github.com/calgraph/calgraph/internal/calendar"
)

// TestKeptOutcomesAreSealed holds docs/design.md's promise (Idempotency) that kept outcomes are
// encrypted: the outcome kept with a marker is sealed (AES-GCM) under a key
// that only the client's idempotency key and the signed-in identity give. The
// table holds neither the result (an invitation's token) nor the idempotency
// key, in clear or in any plausible encoding; the outcome read raw from the
// table opens with that key and identity and with nothing else; and sealing
// the same outcome twice gives two different texts (a fresh nonce).
func TestKeptOutcomesAreSealed(t *testing.T) {
	f := newFixture(t)
	plain := f.user("ada@example.com")
	ada := signedInWith(plain, calendar.Identity{Provider: "test", Subject: "ada@example.com"})
	cal := f.calendarOf(ada, "Ada's")
	const key = "8f14e45f-ceea-467f-a0e6-1b6f8e3c2d4a"
	invite := func(ctx context.Context) (string, error) {
		_, token, _, err := f.store.CreateInvitation(ctx, calendar.NewInvitation{CalendarID: cal.ID, Role: calendar.RoleReader})
		return token, err
	}
	token, err := calendar.Once(ada, f.store, key, "fp", invite)
	if err != nil {
		t.Fatal(err)
	}
	if again, err := calendar.Once(ada, f.store, key, "fp", invite); err != nil || again != token {
		t.Fatalf("replay: got %q (%v), want the first token %q", again, err, token)
	}
	marker := f.marker()

	result, _ := json.Marshal(token)
	for _, it := range f.items() {
		for name, v := range it {
			text := fmt.Sprint(v)
			if b, ok := v.([]byte); ok {
				text = string(b)
			}
			for _, secret := range []string{token, key, string(result), `{"value":` + string(result) + `}`} {
				if how, found := leaked([]byte(text), secret); found {
					t.Errorf("item %v/%v holds %q in %s, %s", it["PK"], it["SK"], secret, name, how)
				}
			}
		}
	}

	stolen := stolenOutcome{Fingerprint: fmt.Sprint(marker["fingerprint"]), Outcome: outcomeOf(t, marker)}
	nothing := func(context.Context) (string, error) { return "", nil }
	bob := signedInWith(plain, calendar.Identity{Provider: "test", Subject: "bob@example.com"})
	for _, tc := range []struct {
		name  string
		ctx   context.Context
		key   string
		opens bool
	}{
		{"its key and identity", ada, key, true},
		{"another key", ada, "8f14e45f-ceea-467f-a0e6-1b6f8e3c2d4b", false},
		{"another identity", bob, key, false},
		{"its user without the identity", plain, key, false},
	} {
		got, err := calendar.Once(tc.ctx, stolen, tc.key, stolen.Fingerprint, nothing)
		switch {
		case tc.opens && (err != nil || got != token):
			t.Errorf("open with %s: got %q (%v), want %q", tc.name, got, err, token)
		case !tc.opens && (got != "" || err == nil || !strings.Contains(err.Error(), "message authentication failed")):
			t.Errorf("open with %s: got %q (%v), want nothing and a failed authentication", tc.name, got, err)
		}
	}

	f.deleteRaw(fmt.Sprint(marker["PK"]), fmt.Sprint(marker["SK"]))
	sameToken := func(ctx context.Context) (string, error) {
		_, err := invite(ctx)
		return token, err
	}
	if again, err := calendar.Once(ada, f.store, key, "fp", sameToken); err != nil || again != token {
		t.Fatalf("the same result again: got %q (%v), want %q", again, err, token)
	}
	if first, second := stolen.Outcome, outcomeOf(t, f.marker()); first == second {
		t.Errorf("the same outcome sealed twice: got %q both times, want a fresh nonce each time", first)
	}
}

// marker returns the table's only idempotency marker, read raw.
func (f *fixture) marker() map[string]any {
	f.t.Helper()
	var found []map[string]any
	for _, it := range f.items() {
		if it["entityType"] == "IDEMPOTENCY" {
			found = append(found, it)
		}
	}
	if len(found) != 1 {
		f.t.Fatalf("got %d idempotency markers, want 1", len(found))
	}
	return found[0]
}

// outcomeOf returns a marker's kept outcome, which must be a string.
func outcomeOf(t *testing.T, marker map[string]any) string {
	t.Helper()
	s, ok := marker["outcome"].(string)
	if !ok || s == "" {
		t.Fatalf("marker %v: got outcome %#v, want a non-empty string", marker["PK"], marker["outcome"])
	}
	return s
}

// stolenOutcome serves one kept outcome under every name, as someone who
// read the table would try it with keys and identities of their choosing.
type stolenOutcome calendar.IdempotencyRecord

func (s stolenOutcome) IdempotencyRecord(context.Context, string) (*calendar.IdempotencyRecord, error) {
	r := calendar.IdempotencyRecord(s)
	return &r, nil
}

func (stolenOutcome) SaveIdempotentResult(context.Context, string, string) error {
	return errors.New("a thief keeps nothing")
}

// leakDecoders are the ways a stored text may hide another: base64 in
// either alphabet, padded or not, hex in either case, and compression.
var leakDecoders = map[string]func([]byte) ([]byte, error){
	"base64":           decodeWith(base64.StdEncoding),
	"unpadded base64":  decodeWith(base64.RawStdEncoding),
	"URL base64":       decodeWith(base64.URLEncoding),
	"unpadded URL b64": decodeWith(base64.RawURLEncoding),
	"hex":              func(b []byte) ([]byte, error) { return hex.DecodeString(strings.TrimSpace(string(b))) },
	"gzip":             func(b []byte) ([]byte, error) { return inflate(gzip.NewReader(bytes.NewReader(b))) },
	"zlib":             func(b []byte) ([]byte, error) { return inflate(zlib.NewReader(bytes.NewReader(b))) },
	"flate":            func(b []byte) ([]byte, error) { return inflate(flate.NewReader(bytes.NewReader(b)), nil) },
}

func decodeWith(enc *base64.Encoding) func([]byte) ([]byte, error) {
	return func(b []byte) ([]byte, error) { return enc.DecodeString(strings.TrimSpace(string(b))) }
}

func inflate(r io.Reader, err error) ([]byte, error) {
	if err != nil {
		return nil, err
	}
	return io.ReadAll(io.LimitReader(r, 1<<20))
}

// leaked reports whether blob holds secret in clear, JSON-escaped, as
// base64 (either alphabet, at any alignment) or as hex (either case), also
// once blob is decoded or decompressed, up to two layers deep; how says in
// which form.
func leaked(blob []byte, secret string) (how string, found bool) {
	views := map[string][]byte{"as stored": blob}
	layer := views
	for range 2 {
		next := map[string][]byte{}
		for name, b := range layer {
			for dname, decode := range leakDecoders {
				if d, err := decode(b); err == nil && len(d) > 0 {
					next[name+", then "+dname+"-decoded"] = d
				}
			}
		}
		maps.Copy(views, next)
		layer = next
	}
	escaped, _ := json.Marshal(secret)
	forms := map[string]string{"in clear": secret, "JSON-escaped": string(escaped[1 : len(escaped)-1])}
	for k := range 3 { // base64 of the whole 3-byte groups from offset k
		t := secret[k:]
		t = t[:len(t)/3*3]
		forms[fmt.Sprintf("as base64 at offset %d", k)] = base64.RawStdEncoding.EncodeToString([]byte(t))
		forms[fmt.Sprintf("as URL base64 at offset %d", k)] = base64.RawURLEncoding.EncodeToString([]byte(t))
	}
	for name, b := range views {
		for form, s := range forms {
			if bytes.Contains(b, []byte(s)) {
				return name + ", " + form, true
			}
		}
		if bytes.Contains(bytes.ToLower(b), []byte(hex.EncodeToString([]byte(secret)))) {
			return name + ", as hex", true
		}
	}
	return "", false
}

// TestLeakedFindsEncodedSecrets: the check TestKeptOutcomesAreSealed relies
// on finds a secret in every encoding it claims to, at every alignment, and
// not in its AES-GCM ciphertext.
func TestLeakedFindsEncodedSecrets(t *testing.T) {
	secret := calendar.NewFeedToken()
	compress := func(w func(io.Writer) io.WriteCloser) func([]byte) []byte {
		return func(b []byte) []byte {
			var buf bytes.Buffer
			z := w(&buf)
			_, _ = z.Write(b)
			_ = z.Close()
			return buf.Bytes()
		}
	}
	gz := compress(func(w io.Writer) io.WriteCloser { return gzip.NewWriter(w) })
	zl := compress(func(w io.Writer) io.WriteCloser { return zlib.NewWriter(w) })
	fl := compress(func(w io.Writer) io.WriteCloser { z, _ := flate.NewWriter(w, flate.BestCompression); return z })
	b64 := func(enc *base64.Encoding, then func([]byte) []byte) func([]byte) []byte {
		return func(b []byte) []byte { return []byte(enc.EncodeToString(then(b))) }
	}
	same := func(b []byte) []byte { return b }
	escape := func(b []byte) []byte { j, _ := json.Marshal(string(b)); return j }
	encodings := map[string]func([]byte) []byte{
		"clear": same, "JSON-escaped": escape,
		"base64": b64(base64.StdEncoding, same), "unpadded base64": b64(base64.RawStdEncoding, same),
		"URL base64": b64(base64.URLEncoding, same), "unpadded URL base64": b64(base64.RawURLEncoding, same),
		"hex":  func(b []byte) []byte { return []byte(hex.EncodeToString(b)) },
		"HEX":  func(b []byte) []byte { return []byte(strings.ToUpper(hex.EncodeToString(b))) },
		"gzip": gz, "zlib": zl, "flate": fl,
		"base64 of gzip": b64(base64.StdEncoding, gz), "URL base64 of zlib": b64(base64.RawURLEncoding, zl),
		"hex of flate": func(b []byte) []byte { return []byte(hex.EncodeToString(fl(b))) },
	}
	for pad := range 3 {
		plain := []byte(strings.Repeat("x", pad) + `{"value":"` + secret + `"}`)
		for name, encode := range encodings {
			if _, found := leaked(encode(plain), secret); !found {
				t.Errorf("%s after %d bytes: got not found, want found", name, pad)
			}
		}
		block, _ := aes.NewCipher(make([]byte, 32))
		aead, _ := cipher.NewGCM(block)
		nonce := make([]byte, aead.NonceSize())
		_, _ = rand.Read(nonce)
		if how, found := leaked([]byte(base64.StdEncoding.EncodeToString(aead.Seal(nonce, nonce, plain, nil))), secret); found {
			t.Errorf("AES-GCM after %d bytes: got found %s, want not found", pad, how)
		}
	}
}
