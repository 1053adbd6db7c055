package engine

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"net/http"
	"net/textproto"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
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
	creds  aws.Credentials
	signer *v4.Signer
	now    func() time.Time
}

// newAuthenticator makes fresh random credentials: an access key of 20
// characters as AWS's look, and a secret of 256 random bits.
func newAuthenticator() *authenticator {
	key := "CALG" + rand.Text()[:16]
	secret := rand.Text() + rand.Text()
	return &authenticator{
		creds:  aws.Credentials{AccessKeyID: key, SecretAccessKey: secret, Source: "calgraph embedded engine"},
		signer: v4.NewSigner(),
		now:    time.Now,
	}
}

// signature is what a call's Authorization header says.
type signature struct {
	accessKey, date, region, service string
	signedHeaders                    []string
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
	want, err := a.expected(r, s, body, at)
	if err != nil || subtle.ConstantTimeCompare(want, s.sig) != 1 {
		return errMismatch
	}
	return nil
}

// expected signs, with the engine's secret, a copy of the call holding
// only what the caller signed, and returns that signature.
func (a *authenticator) expected(r *http.Request, s signature, body []byte, at time.Time) ([]byte, error) {
	u := *r.URL
	u.Scheme, u.Host = "http", r.Host
	c := &http.Request{Method: r.Method, URL: &u, Host: r.Host, Header: http.Header{}}
	for _, name := range s.signedHeaders {
		switch name {
		case "host": // from c.Host
		case "content-length":
			c.ContentLength = r.ContentLength
		default:
			if vs := r.Header.Values(name); len(vs) > 0 {
				c.Header[textproto.CanonicalMIMEHeaderKey(name)] = vs
			}
		}
	}
	sum := sha256.Sum256(body)
	if err := a.signer.SignHTTP(context.Background(), a.creds, c, hex.EncodeToString(sum[:]), s.service, s.region, at); err != nil {
		return nil, err
	}
	ours, err := parseAuthorization(c.Header.Get("Authorization"))
	if err != nil {
		return nil, err
	}
	return ours.sig, nil
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
	s.signedHeaders = strings.Split(signed, ";")
	s.sig = []byte(sig)
	return s, nil
}
