package webhook

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"net/http"
	"strconv"
	"time"
)

// The headers of a delivery. The ID is the same on every attempt of one
// delivery (and on a repeat after a crash between the answer and its
// record), so a receiver deduplicates by it.
const (
	HeaderID        = "Calgraph-Webhook-Id"
	HeaderTimestamp = "Calgraph-Webhook-Timestamp"
	HeaderSignature = "Calgraph-Webhook-Signature"
)

// signatureVersion prefixes a signature ("v1=<hex>"), so that another scheme
// can be added beside it without breaking receivers.
const signatureVersion = "v1="

// Delivery is one message to a webhook: its stable ID (for deduplication),
// its kind (the JSON body's "type"), and its JSON body.
type Delivery struct {
	ID    string
	Event string
	Body  []byte
}

// NewSecret returns a fresh signing secret: 32 random bytes, base64url,
// prefixed "whsec_" so that it is recognizable in a leaked log.
func NewSecret() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b) // crypto/rand.Read never fails (Go 1.24+)
	return "whsec_" + base64.RawURLEncoding.EncodeToString(b)
}

// Sign returns the signature header's value for body sent at ts:
// "v1=" and the hex HMAC-SHA256, keyed by the secret as written, of
// "<ts as Unix seconds>.<body>". The timestamp is signed so that a captured
// delivery cannot be replayed later (Verify's tolerance).
func Sign(secret string, ts time.Time, body []byte) string {
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(strconv.FormatInt(ts.Unix(), 10)))
	mac.Write([]byte{'.'})
	mac.Write(body)
	return signatureVersion + hex.EncodeToString(mac.Sum(nil))
}

// Headers returns the headers of d sent at ts, signed with secret.
func Headers(secret string, d Delivery, ts time.Time) http.Header {
	h := http.Header{}
	h.Set("Content-Type", "application/json")
	h.Set("User-Agent", "calgraph-webhook/1")
	h.Set(HeaderID, d.ID)
	h.Set(HeaderTimestamp, strconv.FormatInt(ts.Unix(), 10))
	h.Set(HeaderSignature, Sign(secret, ts, d.Body))
	return h
}
