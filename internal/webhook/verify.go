package webhook

import (
	"crypto/hmac"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// DefaultTolerance is how far a delivery's timestamp may lie from the
// receiver's clock: enough for clock skew and a slow network, short enough
// that a captured request cannot be replayed much later.
const DefaultTolerance = 5 * time.Minute

// Errors of Verify.
var (
	ErrNoSignature  = errors.New("webhook: no v1 signature")
	ErrBadSignature = errors.New("webhook: signature does not match")
	ErrTimestamp    = errors.New("webhook: timestamp missing or outside the tolerance")
)

// Verify checks a received delivery, as a receiver written in Go would:
// the timestamp header lies within tolerance of now, and one of the
// signature header's comma-separated "v1=" values is the HMAC of
// "<timestamp>.<body>" (compared in constant time). The body must be the
// bytes as received, before any JSON decoding.
func Verify(secret string, h http.Header, body []byte, now time.Time, tolerance time.Duration) error {
	sec, err := strconv.ParseInt(h.Get(HeaderTimestamp), 10, 64)
	if err != nil {
		return ErrTimestamp
	}
	ts := time.Unix(sec, 0)
	if d := now.Sub(ts); d > tolerance || d < -tolerance {
		return ErrTimestamp
	}
	want := Sign(secret, ts, body)
	found := false
	for v := range strings.SplitSeq(h.Get(HeaderSignature), ",") {
		v = strings.TrimSpace(v)
		if !strings.HasPrefix(v, signatureVersion) {
			continue
		}
		found = true
		if hmac.Equal([]byte(v), []byte(want)) {
			return nil
		}
	}
	if !found {
		return ErrNoSignature
	}
	return ErrBadSignature
}
