package engine

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
)

// The engine's port is on loopback, where every user of the machine can
// reach it: without a check, any of them could scan the whole table past
// calgraph's authorization. So every call must be signed (AWS Signature
// Version 4, as the SDK signs for DynamoDB) with credentials that each
// Server makes at random when it starts and that only its own process
// knows. A call is refused, with the error DynamoDB itself gives, when it is
// unsigned, signed with another key or secret, when its body or any signed
// header changed after signing, or when it was signed more than 15 minutes
// away from now (a replay of a captured call; DynamoDB's own window).
const maxClockSkew = 15 * time.Minute

// mustSign are the headers a call must have signed: the host and date, as
// DynamoDB requires, and the operation, so that a signed body cannot be
// replayed as another operation.
var mustSign = []string{"host", "x-amz-date", "x-amz-target"}

// authenticator verifies SigV4 signatures against one set of credentials.
type authenticator struct {
	creds aws.Credentials
	key   atomic.Pointer[scopeKey] // the signing key of the last scope seen
	now   func() time.Time
}

// newAuthenticator makes fresh random credentials: an access key of 20
// characters as AWS's look, and a secret of 256 random bits.
func newAuthenticator() *authenticator {
	key := "CALG" + rand.Text()[:16]
	secret := rand.Text() + rand.Text()
	return &authenticator{
		creds: aws.Credentials{AccessKeyID: key, SecretAccessKey: secret, Source: "calgraph embedded engine"},
		now:   time.Now,
	}
}

// signature is what a call's Authorization header says.
type signature struct {
	accessKey, date, region, service string
	signedHeaders                    []string
	signedList                       string // SignedHeaders as sent
	sig                              []byte // hex, as sent
}

func authError(typ, msg string) *apiError {
	return &apiError{Type: typ, Status: http.StatusBadRequest, Message: msg}
}

var errMismatch = authError("InvalidSignatureException", "The request signature we calculated does not match the signature you provided. "+
	"Check your AWS Secret Access Key and signing method. Consult the service documentation for details.")

// verify checks a call's signature over its headers and body; nil means the
// call is the engine's own process's.
func (a *authenticator) verify(r *http.Request, body []byte) *apiError {
	header := r.Header.Get("Authorization")
	if header == "" {
		return authError("MissingAuthenticationTokenException", "Request is missing Authentication Token")
	}
	s, err := parseAuthorization(header)
	if err != nil {
		return authError("IncompleteSignatureException", err.Error())
	}
	if subtle.ConstantTimeCompare([]byte(s.accessKey), []byte(a.creds.AccessKeyID)) != 1 {
		return authError("UnrecognizedClientException", "The security token included in the request is invalid.")
	}
	at, err := time.Parse("20060102T150405Z", r.Header.Get("X-Amz-Date"))
	if err != nil || s.date != at.Format("20060102") || s.service != "dynamodb" {
		return authError("IncompleteSignatureException", "Authorization header requires a credential scope of the request's X-Amz-Date and service dynamodb.")
	}
	now := a.now().UTC()
	if now.Sub(at) > maxClockSkew {
		return authError("InvalidSignatureException", "Signature expired: "+s.date+" "+at.Format("150405")+
			" is now earlier than "+now.Add(-maxClockSkew).Format("20060102T150405Z")+" ("+now.Format("20060102T150405Z")+" - 15 min.)")
	}
	if at.Sub(now) > maxClockSkew {
		return authError("InvalidSignatureException", "Signature not yet current: "+at.Format("20060102T150405Z")+
			" is still later than "+now.Add(maxClockSkew).Format("20060102T150405Z")+" ("+now.Format("20060102T150405Z")+" + 15 min.)")
	}
	for _, h := range mustSign {
		if !slices.Contains(s.signedHeaders, h) {
			return authError("InvalidSignatureException", "'"+h+"' must be a 'SignedHeader' in the AWS Authorization.")
		}
	}
	want, err := a.expected(r, s, body, r.Header.Get("X-Amz-Date"))
	if err != nil || subtle.ConstantTimeCompare(want, s.sig) != 1 {
		return errMismatch
	}
	return nil
}

// expected computes, with the engine's secret, the signature of the call
// over what the caller signed (AWS Signature Version 4): the canonical
// request of its method, path, the headers listed in SignedHeaders (values
// trimmed, inner runs of spaces folded, several values joined by commas, as
// the SDK's signer writes them) and the SHA-256 of its body; then the string
// to sign under the call's scope, and its HMAC with the scope's signing key.
// Written out rather than by re-signing a copy with the SDK's signer, which
// cost about 13 µs and 67 allocations a call (TestSignaturesAsTheSDKSigns
// holds the two together). DynamoDB is called at "/" without a query; any
// other target is refused.
func (a *authenticator) expected(r *http.Request, s signature, body []byte, amzDate string) ([]byte, error) {
	if r.URL.Path != "/" || r.URL.RawQuery != "" {
		return nil, errors.New("not a DynamoDB target")
	}
	canonical := make([]byte, 0, 512)
	canonical = append(canonical, r.Method...)
	canonical = append(canonical, "\n/\n\n"...)
	for _, name := range s.signedHeaders {
		canonical = append(canonical, name...)
		canonical = append(canonical, ':')
		switch name {
		case "host":
			canonical = append(canonical, foldSpaces(signedHost(r.Host))...)
		case "content-length":
			canonical = strconv.AppendInt(canonical, r.ContentLength, 10)
		default:
			for i, v := range r.Header.Values(name) {
				if i > 0 {
					canonical = append(canonical, ',')
				}
				canonical = append(canonical, foldSpaces(v)...)
			}
		}
		canonical = append(canonical, '\n')
	}
	canonical = append(canonical, '\n')
	canonical = append(canonical, s.signedList...)
	canonical = append(canonical, '\n')
	bodySum := sha256.Sum256(body)
	canonical = hex.AppendEncode(canonical, bodySum[:])

	scope := s.date + "/" + s.region + "/" + s.service + "/aws4_request"
	toSign := make([]byte, 0, 160)
	toSign = append(toSign, "AWS4-HMAC-SHA256\n"...)
	toSign = append(toSign, amzDate...)
	toSign = append(toSign, '\n')
	toSign = append(toSign, scope...)
	toSign = append(toSign, '\n')
	canonicalSum := sha256.Sum256(canonical)
	toSign = hex.AppendEncode(toSign, canonicalSum[:])
	mac := hmac.New(sha256.New, a.signingKey(s.date, s.region, s.service))
	mac.Write(toSign)
	return hex.AppendEncode(nil, mac.Sum(nil)), nil
}

// signingKey is the key of a scope (date, region, service), derived from the
// secret by HMAC-SHA256 four times; the last one is kept, as a day's calls
// all share it.
func (a *authenticator) signingKey(date, region, service string) []byte {
	scope := date + "/" + region + "/" + service
	if k := a.key.Load(); k != nil && k.scope == scope {
		return k.key
	}
	key := []byte("AWS4" + a.creds.SecretAccessKey)
	for _, part := range []string{date, region, service, "aws4_request"} {
		mac := hmac.New(sha256.New, key)
		mac.Write([]byte(part))
		key = mac.Sum(nil)
	}
	a.key.Store(&scopeKey{scope: scope, key: key})
	return key
}

// scopeKey is a scope's signing key.
type scopeKey struct {
	scope string
	key   []byte
}

// signedHost is the Host as the SDK signs it: without the default port.
func signedHost(host string) string {
	return strings.TrimSuffix(host, ":80")
}

// foldSpaces trims a header value and folds its inner runs of spaces to one,
// as a signer writes it in the canonical request.
func foldSpaces(v string) string {
	v = strings.Trim(v, " ")
	if !strings.Contains(v, "  ") {
		return v
	}
	var b strings.Builder
	b.Grow(len(v))
	space := false
	for i := 0; i < len(v); i++ {
		if v[i] == ' ' {
			if space {
				continue
			}
			space = true
		} else {
			space = false
		}
		b.WriteByte(v[i])
	}
	return b.String()
}

// parseAuthorization reads "AWS4-HMAC-SHA256 Credential=KEY/DATE/REGION/
// SERVICE/aws4_request, SignedHeaders=a;b, Signature=HEX".
func parseAuthorization(h string) (signature, error) {
	var s signature
	rest, ok := strings.CutPrefix(h, "AWS4-HMAC-SHA256 ")
	if !ok {
		return s, errors.New("Authorization header requires the AWS4-HMAC-SHA256 algorithm.")
	}
	var credential, signed, sig string
	for part := range strings.SplitSeq(rest, ",") {
		k, v, _ := strings.Cut(strings.TrimSpace(part), "=")
		switch k {
		case "Credential":
			credential = v
		case "SignedHeaders":
			signed = v
		case "Signature":
			sig = v
		}
	}
	scope := strings.Split(credential, "/")
	if len(scope) != 5 || scope[4] != "aws4_request" || signed == "" || sig == "" {
		return s, errors.New("Authorization header requires 'Credential', 'SignedHeaders' and 'Signature' parameters.")
	}
	s.accessKey, s.date, s.region, s.service = scope[0], scope[1], scope[2], scope[3]
	s.signedHeaders, s.signedList = strings.Split(signed, ";"), signed
	s.sig = []byte(sig)
	return s, nil
}
