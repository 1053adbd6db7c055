package ddbread

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/google/go-cmp/cmp"
)

// signCase is one request to sign both ways.
type signCase struct {
	endpoint    string
	contentType []string // nil: no Content-Type header
	targets     []string // nil: no X-Amz-Target header
	body        []byte
	creds       aws.Credentials
	region      string
	at          time.Time
}

// String describes c in a failure message.
func (c signCase) String() string {
	return fmt.Sprintf("{%s %q %q, %d-byte body, key %s secret %.6s… token %.6s…(%d), %s, %s}", c.endpoint, c.contentType, c.targets,
		len(c.body), c.creds.AccessKeyID, c.creds.SecretAccessKey, c.creds.SessionToken, len(c.creds.SessionToken), c.region, c.at.Format(time.RFC3339Nano))
}

// request makes c's request as attempt does.
func (c signCase) request(t *testing.T) *http.Request {
	t.Helper()
	req, err := c.newRequest()
	if err != nil {
		t.Fatal(err)
	}
	return req
}

func (c signCase) newRequest() (*http.Request, error) {
	req, err := http.NewRequestWithContext(context.Background(), http.MethodPost, c.endpoint, bytes.NewReader(c.body))
	if err != nil {
		return nil, err
	}
	if c.contentType != nil {
		req.Header["Content-Type"] = c.contentType
	}
	if c.targets != nil {
		req.Header["X-Amz-Target"] = c.targets
	}
	return req, nil
}

// sdkSigned is c's request as the SDK's signer signs it. Each call has a
// signer of its own: the SDK's key cache is keyed by access key ID and day,
// so a shared one would sign with a stale key after a secret rotated under
// the same access key ID.
func (c signCase) sdkSigned(t *testing.T) *http.Request {
	t.Helper()
	req := c.request(t)
	sum := sha256.Sum256(c.body)
	if err := v4.NewSigner().SignHTTP(context.Background(), c.creds, req, hex.EncodeToString(sum[:]), "dynamodb", c.region, c.at); err != nil {
		t.Fatal(err)
	}
	return req
}

// checkSigned fails t unless s signs c's request as the SDK does: the same
// headers, Host and URL.
func checkSigned(t *testing.T, s *sigv4, c signCase) {
	t.Helper()
	want := c.sdkSigned(t)
	got := c.request(t)
	if err := s.sign(got, c.body, c.creds, c.region, c.at); err != nil {
		t.Fatalf("sign %+v: %v", c, err)
	}
	if diff := cmp.Diff(want.Header, got.Header); diff != "" {
		t.Fatalf("sign %+v: headers differ from the SDK's (-SDK +lean):\n%s", c, diff)
	}
	if got.Host != want.Host || got.URL.String() != want.URL.String() {
		t.Fatalf("sign %+v: host %q, URL %s; SDK %q, %s", c, got.Host, got.URL, want.Host, want.URL)
	}
}

var (
	jsonType      = []string{"application/x-amz-json-1.0"}
	queryOp       = []string{"DynamoDB_20120810.Query"}
	longTermCreds = aws.Credentials{AccessKeyID: "AKIDEXAMPLE", SecretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"}
	sessionCreds  = aws.Credentials{AccessKeyID: "ASIAEXAMPLE", SecretAccessKey: "secret/1", SessionToken: "FwoGZXIvYXdzEJr//////////wEaDA+token="}
	midnight      = time.Date(2026, 11, 29, 0, 0, 0, 0, time.UTC)
	queryBody     = []byte(`{"TableName":"calgraph","KeyConditionExpression":"PK = :p","ExpressionAttributeValues":{":p":{"S":"CAL#1"}}}`)
)

var signSeed = flag.Uint64("sign.seed", 0, "seed of TestSignLikeTheSDK's random cases (0: the time)")

// TestSignLikeTheSDK signs requests with one sigv4, in order, and the SDK's
// signer, and requires the same headers: named cases first, then random ones
// whose seed a failure prints.
func TestSignLikeTheSDK(t *testing.T) {
	base := signCase{endpoint: "https://dynamodb.us-east-1.amazonaws.com", contentType: jsonType, targets: queryOp,
		body: queryBody, creds: longTermCreds, region: "us-east-1", at: midnight.Add(-time.Second)}
	with := func(f func(*signCase)) signCase { c := base; f(&c); return c }
	rotated := longTermCreds
	rotated.SecretAccessKey = "rotated/secret"
	retoken := sessionCreds
	retoken.SessionToken = "another token"
	cases := []struct {
		name string
		c    signCase
	}{
		{"long-term keys", base},
		{"next day", with(func(c *signCase) { c.at = midnight })},
		{"secret rotated under the same access key", with(func(c *signCase) { c.at, c.creds = midnight, rotated })},
		{"session token", with(func(c *signCase) { c.creds = sessionCreds })},
		{"session token rotated", with(func(c *signCase) { c.creds = retoken })},
		{"other region", with(func(c *signCase) { c.region, c.endpoint = "eu-west-3", "https://dynamodb.eu-west-3.amazonaws.com/" })},
		{"local port", with(func(c *signCase) { c.endpoint = "http://127.0.0.1:8105" })},
		{"http default port", with(func(c *signCase) { c.endpoint = "http://localhost:80" })},
		{"https default port", with(func(c *signCase) { c.endpoint = "https://localhost:443" })},
		{"other scheme's default port", with(func(c *signCase) { c.endpoint = "http://localhost:443" })},
		{"IPv6 with a port", with(func(c *signCase) { c.endpoint = "http://[::1]:8000" })},
		{"IPv6 with the default port", with(func(c *signCase) { c.endpoint = "http://[::1]:80" })},
		{"endpoint path", with(func(c *signCase) { c.endpoint = "http://proxy:8080/dynamo db/a+b" })},
		{"empty body", with(func(c *signCase) { c.body = nil })},
		{"spaces in values", with(func(c *signCase) { c.targets = []string{"  DynamoDB_20120810.Query \t  x  "} })},
		{"two values", with(func(c *signCase) { c.targets = []string{"a", " b"} })},
		{"no Content-Type or X-Amz-Target", with(func(c *signCase) { c.contentType, c.targets = nil, nil })},
		{"anonymous", with(func(c *signCase) { c.creds = aws.Credentials{} })},
		{"long token and region", with(func(c *signCase) {
			c.creds = aws.Credentials{AccessKeyID: "A", SecretAccessKey: "S", SessionToken: strings.Repeat("t", 3000)}
			c.region = strings.Repeat("r", 200)
		})},
	}
	var s sigv4
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) { checkSigned(t, &s, tc.c) })
	}

	seed := *signSeed
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	t.Run(fmt.Sprintf("random seed %d", seed), func(t *testing.T) {
		r := rand.New(rand.NewPCG(seed, 0))
		creds := randomCredentials(r)
		for range 2000 {
			checkSigned(t, &s, randomCase(r, creds))
		}
	})
}

// randomCredentials returns credentials that share access key IDs, secrets
// and session tokens in every combination, so that picking among them
// rotates each.
func randomCredentials(r *rand.Rand) []aws.Credentials {
	var creds []aws.Credentials
	for range 3 {
		id := "ASIA" + randomString(r, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 16)
		for range 2 {
			secret := randomString(r, base64ish, 40)
			for _, n := range []int{0, 20, 700 + r.IntN(1000)} {
				creds = append(creds, aws.Credentials{AccessKeyID: id, SecretAccessKey: secret, SessionToken: randomString(r, base64ish, n)})
			}
		}
	}
	return creds
}

const base64ish = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/="

var (
	signEndpoints = []string{"https://dynamodb.us-east-1.amazonaws.com", "https://dynamodb.ap-south-2.amazonaws.com/",
		"https://dynamodb.us-west-2.api.aws", "http://127.0.0.1:8105", "http://localhost:8000/", "http://ddb:80",
		"https://ddb:443", "https://ddb:80", "http://[::1]:8105", "https://[::1]:443", "http://10.0.0.7:8000/x/y%2Fz"}
	signRegions    = []string{"us-east-1", "eu-west-3", "ap-southeast-4", "us-gov-west-1", "cn-north-1", "local"}
	signOperations = []string{"GetItem", "BatchGetItem", "Query"}
)

// randomCase returns a request like ddbread's, mostly, with a body, target,
// region, endpoint, credentials and time drawn at random. Times are mostly
// within seconds of one of two midnights UTC, so that consecutive cases often
// share a day and region and differ in their secret, or share all three.
func randomCase(r *rand.Rand, creds []aws.Credentials) signCase {
	c := signCase{
		endpoint:    signEndpoints[r.IntN(len(signEndpoints))],
		contentType: jsonType,
		targets:     []string{"DynamoDB_20120810." + signOperations[r.IntN(len(signOperations))]},
		body:        make([]byte, r.IntN(4000)),
		creds:       creds[r.IntN(len(creds))],
		region:      signRegions[r.IntN(len(signRegions))],
		at:          midnight.AddDate(0, 0, r.IntN(3)-1).Add(time.Duration(r.Int64N(int64(6*time.Second))) - 3*time.Second),
	}
	for i := range c.body {
		c.body[i] = byte(r.Uint32())
	}
	switch r.IntN(10) {
	case 0:
		c.at = time.Unix(r.Int64N(4e9), r.Int64N(1e9)).In(time.FixedZone("", r.IntN(50000)-25000))
	case 1:
		c.region = randomString(r, "abcdefghijklmnopqrstuvwxyz0123456789-", 1+r.IntN(40))
	case 2:
		c.targets = []string{randomString(r, "ab .\t", r.IntN(12)), randomString(r, "ab .", r.IntN(12))}[:1+r.IntN(2)]
	case 3:
		c.contentType, c.targets = nil, nil
	case 4:
		c.body = nil
	case 5:
		c.at = c.at.AddDate(0, 0, r.IntN(800)-400)
	}
	return c
}

func randomString(r *rand.Rand, alphabet string, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[r.IntN(len(alphabet))]
	}
	return string(b)
}

// TestSignRefuses checks that requests sigv4 would not sign as the SDK does
// are refused, not signed otherwise.
func TestSignRefuses(t *testing.T) {
	for name, change := range map[string]func(*http.Request){
		"another header":         func(r *http.Request) { r.Header.Set("X-Amz-Content-Sha256", "x") },
		"a header spelled lower": func(r *http.Request) { r.Header["x-amz-target"] = queryOp },
		"signed before":          func(r *http.Request) { r.Header.Set("X-Amz-Date", "20261129T000000Z") },
		"a query string":         func(r *http.Request) { r.URL.RawQuery = "a=b" },
		"an opaque URL":          func(r *http.Request) { r.URL.Opaque = "//ddb/x" },
	} {
		t.Run(name, func(t *testing.T) {
			req := signCase{endpoint: "http://ddb:8000", contentType: jsonType, targets: queryOp, body: queryBody}.request(t)
			change(req)
			if err := new(sigv4).sign(req, queryBody, longTermCreds, "us-east-1", midnight); err == nil || req.Header["Authorization"] != nil {
				t.Fatalf("got error %v, Authorization %q; want an error and no signature", err, req.Header["Authorization"])
			}
		})
	}
}

// TestSignConcurrently signs with one sigv4 from several goroutines while
// the credentials, day and region change under it; run it with -race.
func TestSignConcurrently(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	creds := randomCredentials(r)
	cases := make([]signCase, 8)
	want := make([]http.Header, len(cases))
	for i := range cases {
		cases[i] = randomCase(r, creds)
		want[i] = cases[i].sdkSigned(t).Header
	}
	var s sigv4
	var wg sync.WaitGroup
	errs := make(chan string, 8)
	for g := range 8 {
		wg.Go(func() {
			for i := range 300 {
				k := (g + i*(g+1)) % len(cases)
				c := cases[k]
				req, err := c.newRequest()
				if err == nil {
					err = s.sign(req, c.body, c.creds, c.region, c.at)
				}
				if err != nil {
					errs <- err.Error()
					return
				}
				if got, want := req.Header["Authorization"], want[k]["Authorization"]; !cmp.Equal(got, want) {
					errs <- fmt.Sprintf("Authorization %q, want %q", got, want)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

// TestSignAllocations pins sigv4's allocations per call: the string holding
// X-Amz-Date and Authorization, and the slice holding the header values.
func TestSignAllocations(t *testing.T) {
	c := signCase{endpoint: "https://dynamodb.us-east-1.amazonaws.com", contentType: jsonType, targets: queryOp,
		body: queryBody, creds: sessionCreds, region: "us-east-1", at: midnight}
	req := c.request(t)
	var s sigv4
	got := testing.AllocsPerRun(100, func() {
		delete(req.Header, "Authorization")
		delete(req.Header, "X-Amz-Date")
		delete(req.Header, "X-Amz-Security-Token")
		if err := s.sign(req, c.body, c.creds, c.region, c.at); err != nil {
			t.Fatal(err)
		}
	})
	if limit := 2 * allocationFactor; got > limit {
		t.Errorf("got %v allocations per signature, want at most %v", got, limit)
	}
}

// BenchmarkSign signs a Query request as attempt does, with the SDK's
// signer and with sigv4, each with warm key caches.
func BenchmarkSign(b *testing.B) {
	body := bytes.Repeat([]byte("x"), 400)
	token := strings.Repeat("t", 900) // an STS session token's size
	for _, creds := range []aws.Credentials{longTermCreds, {AccessKeyID: "ASIAEXAMPLE", SecretAccessKey: "s", SessionToken: token}} {
		kind := "keys"
		if creds.SessionToken != "" {
			kind = "session"
		}
		req, err := http.NewRequest(http.MethodPost, "https://dynamodb.us-east-1.amazonaws.com", bytes.NewReader(body))
		if err != nil {
			b.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/x-amz-json-1.0")
		req.Header.Set("X-Amz-Target", "DynamoDB_20120810.Query")
		unsign := func() {
			delete(req.Header, "Authorization")
			delete(req.Header, "X-Amz-Date")
			delete(req.Header, "X-Amz-Security-Token")
		}
		b.Run("sdk/"+kind, func(b *testing.B) {
			signer := v4.NewSigner()
			b.ReportAllocs()
			for b.Loop() {
				unsign()
				sum := sha256.Sum256(body)
				if err := signer.SignHTTP(context.Background(), creds, req, hex.EncodeToString(sum[:]), "dynamodb", "us-east-1", time.Now()); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run("lean/"+kind, func(b *testing.B) {
			var s sigv4
			b.ReportAllocs()
			for b.Loop() {
				unsign()
				if err := s.sign(req, body, creds, "us-east-1", time.Now()); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
