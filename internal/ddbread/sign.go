package ddbread

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/smithy-go/encoding/httpbinding"
)

// sigv4 signs ddbread's requests with AWS Signature Version 4, adding the
// same X-Amz-Date, X-Amz-Security-Token and Authorization headers, byte for
// byte, as the SDK's v4.Signer.SignHTTP would for service "dynamodb".
//
// It exists for speed: SignHTTP signs any request and pays for that on each
// call (10 to 20 µs, and some fifty allocations: header maps, a sort, joined
// strings, a locked key lookup, hex strings), while a cold calendar view
// makes some twenty reads. This signer knows the one shape of request
// attempt makes, so a call costs a SHA-256 of the body, one of the canonical
// request, one HMAC-SHA256 and two allocations: a quarter to two fifths of
// SignHTTP's time (BenchmarkSign).
//
// What it signs is what SignHTTP signs for such a request: the method, the
// endpoint's path ("/" when empty), an empty query string, and the headers
// content-length (when above zero), content-type, host, x-amz-date,
// x-amz-security-token (when the credentials carry a session token) and
// x-amz-target. Like SignHTTP it drops a default port from the Host header it
// signs and sends (req.Host). A request holding any header but Content-Type
// and X-Amz-Target, a query string or an opaque URL is refused with an error
// rather than signed unlike the SDK: sign_test.go compares the two signers on
// random requests, and only on this shape.
//
// The derived signing key is kept for the last secret, UTC day and region
// seen, so credentials that rotate (a new secret, or a new session token,
// which is signed per call) never reuse a stale key. The zero value is ready
// to use; safe for concurrent use.
type sigv4 struct {
	key atomic.Pointer[signingKey]
}

const (
	sigv4Service   = "dynamodb"
	sigv4Algorithm = "AWS4-HMAC-SHA256"
)

// signingKey is the key SigV4 derives from a secret, a UTC day, a region and
// the service, kept as the two HMAC pads of its one block.
type signingKey struct {
	secret     string
	day        [8]byte // YYYYMMDD
	region     string
	ipad, opad [sha256.BlockSize]byte
}

// sign signs req, whose body is body, with creds for region at now.
func (s *sigv4) sign(req *http.Request, body []byte, creds aws.Credentials, region string, now time.Time) error {
	if err := signable(req); err != nil {
		return err
	}
	var dateBuf [16]byte
	date := appendAmzDate(dateBuf[:0], now.UTC())
	var scopeBuf [64]byte
	scope := append(scopeBuf[:0], date[:8]...)
	scope = append(scope, '/')
	scope = append(scope, region...)
	scope = append(scope, "/"+sigv4Service+"/aws4_request"...)
	var signedBuf [96]byte
	signed := appendSignedHeaders(signedBuf[:0], req, creds.SessionToken)
	canon := canonicalRequestSum(req, body, date, creds.SessionToken, signed)
	mac := s.keyFor(creds.SecretAccessKey, date[:8], region).mac(date, scope, &canon)
	setSigned(req, creds, date, scope, signed, &mac)
	return nil
}

// appendSignedHeaders appends the names of the headers signed, in order and
// separated by semicolons.
func appendSignedHeaders(b []byte, req *http.Request, token string) []byte {
	if req.ContentLength > 0 {
		b = append(b, "content-length;"...)
	}
	if _, ok := req.Header["Content-Type"]; ok {
		b = append(b, "content-type;"...)
	}
	b = append(b, "host;x-amz-date;"...)
	if token != "" {
		b = append(b, "x-amz-security-token;"...)
	}
	if _, ok := req.Header["X-Amz-Target"]; ok {
		b = append(b, "x-amz-target;"...)
	}
	return b[:len(b)-1]
}

// canonicalRequestSum returns the SHA-256 of req's canonical request, built
// as the SigV4 specification and SignHTTP build it.
func canonicalRequestSum(req *http.Request, body, date []byte, token string, signed []byte) [sha256.Size]byte {
	var buf [2048]byte // room for a session token of 1.7 kB
	c := append(buf[:0], req.Method...)
	c = append(c, '\n')
	c = appendCanonicalPath(c, req)
	c = append(c, "\n\n"...) // no query string
	if req.ContentLength > 0 {
		c = append(c, "content-length:"...)
		c = strconv.AppendInt(c, req.ContentLength, 10)
		c = append(c, '\n')
	}
	c = appendHeader(c, "content-type:", req.Header, "Content-Type")
	c = append(c, "host:"...)
	c = append(c, signedHost(req)...)
	c = append(c, "\nx-amz-date:"...)
	c = append(c, date...)
	c = append(c, '\n')
	if token != "" {
		c = append(c, "x-amz-security-token:"...)
		c = appendValue(c, token)
		c = append(c, '\n')
	}
	c = appendHeader(c, "x-amz-target:", req.Header, "X-Amz-Target")
	c = append(c, '\n')
	c = append(c, signed...)
	c = append(c, '\n')
	bodySum := sha256.Sum256(body)
	c = hex.AppendEncode(c, bodySum[:])
	return sha256.Sum256(c)
}

// mac returns the HMAC-SHA256 under k of the string to sign.
func (k *signingKey) mac(date, scope []byte, canon *[sha256.Size]byte) [sha256.Size]byte {
	// The string to sign goes straight after the inner pad: that buffer's
	// hash is the inner hash.
	var innerBuf [sha256.BlockSize + 192]byte
	m := append(innerBuf[:0], k.ipad[:]...)
	m = append(m, sigv4Algorithm+"\n"...)
	m = append(m, date...)
	m = append(m, '\n')
	m = append(m, scope...)
	m = append(m, '\n')
	m = hex.AppendEncode(m, canon[:])
	inner := sha256.Sum256(m)
	var outer [sha256.BlockSize + sha256.Size]byte
	copy(outer[:], k.opad[:])
	copy(outer[sha256.BlockSize:], inner[:])
	return sha256.Sum256(outer[:])
}

// setSigned adds the X-Amz-Date, Authorization and (with a session token)
// X-Amz-Security-Token headers to req: one string holds the first two
// values, one slice all three.
func setSigned(req *http.Request, creds aws.Credentials, date, scope, signed []byte, mac *[sha256.Size]byte) {
	var b strings.Builder
	b.Grow(len(date) + len(sigv4Algorithm) + len(" Credential=") + len(creds.AccessKeyID) + 1 + len(scope) +
		len(", SignedHeaders=") + len(signed) + len(", Signature=") + 2*len(mac))
	b.Write(date)
	b.WriteString(sigv4Algorithm + " Credential=")
	b.WriteString(creds.AccessKeyID)
	b.WriteByte('/')
	b.Write(scope)
	b.WriteString(", SignedHeaders=")
	b.Write(signed)
	b.WriteString(", Signature=")
	var sig [2 * sha256.Size]byte
	hex.Encode(sig[:], mac[:])
	b.Write(sig[:])
	both := b.String()
	values := make([]string, 2, 3)
	values[0], values[1] = both[:len(date)], both[len(date):]
	req.Header["X-Amz-Date"] = values[0:1:1]
	req.Header["Authorization"] = values[1:2:2]
	if creds.SessionToken != "" {
		values = append(values, creds.SessionToken)
		req.Header["X-Amz-Security-Token"] = values[2:3:3]
	}
}

// signable refuses a request whose signature this signer would not make as
// SignHTTP does.
func signable(req *http.Request) error {
	if req.URL.RawQuery != "" || req.URL.Opaque != "" {
		return fmt.Errorf("sigv4: cannot sign %s: only a path, no query or opaque URL", req.URL.Redacted())
	}
	for k := range req.Header {
		if k != "Content-Type" && k != "X-Amz-Target" {
			return fmt.Errorf("sigv4: cannot sign header %q: only Content-Type and X-Amz-Target", k)
		}
	}
	return nil
}

// keyFor returns the signing key for secret, day and region, derived again
// only when one of them changed since the last call.
func (s *sigv4) keyFor(secret string, day []byte, region string) *signingKey {
	if k := s.key.Load(); k != nil && k.secret == secret && string(k.day[:]) == string(day) && k.region == region {
		return k
	}
	k := &signingKey{secret: secret, region: region}
	copy(k.day[:], day)
	derived := hmacSHA256([]byte("AWS4"+secret), k.day[:]) // not day: it would escape
	derived = hmacSHA256(derived, []byte(region))
	derived = hmacSHA256(derived, []byte(sigv4Service))
	derived = hmacSHA256(derived, []byte("aws4_request"))
	for i := range k.ipad {
		k.ipad[i], k.opad[i] = 0x36, 0x5c
	}
	for i, x := range derived { // 32 bytes: shorter than a block, so not hashed first
		k.ipad[i] ^= x
		k.opad[i] ^= x
	}
	s.key.Store(k)
	return k
}

// hmacSHA256 is HMAC-SHA256, for deriving keys; signatures use the pads.
func hmacSHA256(key, data []byte) []byte {
	h := hmac.New(sha256.New, key)
	h.Write(data)
	return h.Sum(nil)
}

// appendAmzDate appends t (in UTC) as X-Amz-Date writes it, 20060102T150405Z.
func appendAmzDate(b []byte, t time.Time) []byte {
	year, month, day := t.Date()
	if year < 0 || year > 9999 {
		return t.AppendFormat(b, "20060102T150405Z")
	}
	hour, minute, second := t.Clock()
	b = appendDigits(b, year, 4)
	b = appendDigits(b, int(month), 2)
	b = appendDigits(b, day, 2)
	b = append(b, 'T')
	b = appendDigits(b, hour, 2)
	b = appendDigits(b, minute, 2)
	b = appendDigits(b, second, 2)
	return append(b, 'Z')
}

// appendDigits appends n's last width digits, 0-padded.
func appendDigits(b []byte, n, width int) []byte {
	var d [4]byte
	for i := width - 1; i >= 0; i-- {
		d[i] = byte('0' + n%10)
		n /= 10
	}
	return append(b, d[:width]...)
}

// signedHost returns the host SignHTTP signs, setting req.Host as it does:
// a port that is the scheme's default is dropped, and with it an IPv6
// address's brackets.
func signedHost(req *http.Request) string {
	host := req.Host
	if host == "" {
		host = req.URL.Host
	}
	var port string
	if i := strings.Index(host, "]:"); i >= 0 {
		port = host[i+2:]
	} else if i := strings.IndexByte(host, ':'); i >= 0 && strings.IndexByte(host, ']') < 0 {
		port = host[i+1:]
	}
	if !(port == "80" && strings.EqualFold(req.URL.Scheme, "http") || port == "443" && strings.EqualFold(req.URL.Scheme, "https")) {
		return host
	}
	if i := strings.IndexByte(host, ']'); i >= 0 {
		host = strings.TrimPrefix(host[:i], "[")
	} else {
		host = host[:strings.IndexByte(host, ':')]
	}
	req.Host = host
	return host
}

// appendCanonicalPath appends req's path as SignHTTP escapes it, each byte
// but unreserved ones and '/' percent-encoded (again, if already escaped).
func appendCanonicalPath(b []byte, req *http.Request) []byte {
	p := req.URL.EscapedPath()
	if p == "" || p == "/" {
		return append(b, '/')
	}
	return append(b, httpbinding.EscapePath(p, false)...)
}

// appendHeader appends the line of the signed header name when the request
// has it (as key, in header), its values joined by commas.
func appendHeader(b []byte, name string, header http.Header, key string) []byte {
	values, ok := header[key]
	if !ok {
		return b
	}
	b = append(b, name...)
	for i, v := range values {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendValue(b, v)
	}
	return append(b, '\n')
}

// appendValue appends a header value as SignHTTP signs it: trimmed of
// surrounding white space, each run of inner spaces made one.
func appendValue(b []byte, v string) []byte {
	v = strings.TrimSpace(v)
	for i := 0; i < len(v); i++ {
		if v[i] != ' ' || v[i-1] != ' ' { // v[0] is not a space
			b = append(b, v[i])
		}
	}
	return b
}
