package engine

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"strings"
	"testing"
	"time"

	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
)

// TestSignaturesAsTheSDKSigns holds the engine's own canonical request to
// the SDK's signer: calls signed by it, with headers in every shape a
// canonical request folds (runs of spaces, several values, a default port,
// an empty body), verify; and a signed header changed beyond its spacing
// does not.
func TestSignaturesAsTheSDKSigns(t *testing.T) {
	a := newAuthenticator()
	now := time.Now()
	a.now = func() time.Time { return now }
	cases := []struct {
		name, url, body string
		header          map[string][]string
	}{
		{name: "a GetItem", url: "http://127.0.0.1:4567/", body: `{"TableName":"t"}`},
		{name: "an empty body", url: "http://127.0.0.1:4567/"},
		{name: "the default port", url: "http://localhost:80/", body: `{}`},
		{name: "runs of spaces", url: "http://127.0.0.1:4567/", body: `{}`,
			header: map[string][]string{"X-Amz-Meta": {"  a   b  c "}}},
		{name: "several values", url: "http://127.0.0.1:4567/", body: `{}`,
			header: map[string][]string{"X-Amz-Meta": {"one", " two  three"}}},
		{name: "other regions", url: "http://127.0.0.1:4567/", body: `{"Limit":1}`,
			header: map[string][]string{"Amz-Sdk-Request": {"attempt=2; max=3"}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, region := range []string{"us-east-1", "eu-west-3"} {
				r, body := signedCall(t, a, c.url, c.body, c.header, region, now)
				if err := a.verify(r, body); err != nil {
					t.Fatalf("%s: signed by the SDK, refused: %s %s", region, err.Type, err.Message)
				}
				for name := range c.header {
					r.Header.Set(name, "changed")
					if err := a.verify(r, body); err == nil || err.Type != "InvalidSignatureException" {
						t.Fatalf("%s: %s changed after signing: got %v, want InvalidSignatureException", region, name, err)
					}
				}
			}
		})
	}
}

// signedCall is a DynamoDB call signed as the SDK signs it.
func signedCall(t *testing.T, a *authenticator, url, body string, header map[string][]string, region string, at time.Time) (*http.Request, []byte) {
	t.Helper()
	r, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	r.Header.Set("Content-Type", "application/x-amz-json-1.0")
	r.Header.Set("X-Amz-Target", "DynamoDB_20120810.GetItem")
	for name, values := range header {
		for _, v := range values {
			r.Header.Add(name, v)
		}
	}
	sum := sha256.Sum256([]byte(body))
	if err := v4.NewSigner().SignHTTP(context.Background(), a.creds, r, hex.EncodeToString(sum[:]), "dynamodb", region, at); err != nil {
		t.Fatal(err)
	}
	if r.Host == "" {
		r.Host = r.URL.Host // as a server sees it
	}
	return r, []byte(body)
}
