package engine_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/google/go-cmp/cmp"

	"github.com/calgraph/calgraph/internal/dynamo"
	"github.com/calgraph/calgraph/internal/engine"
)

// serveSigned starts an engine and returns its server, a client that signs
// with the engine's credentials, on a table "cal", and the engine's log.
func serveSigned(t *testing.T) (*engine.Server, *dynamodb.Client, *syncBuffer) {
	t.Helper()
	logs := &syncBuffer{}
	db, err := engine.Open(filepath.Join(t.TempDir(), "e.db"), engine.Options{Logger: slog.New(slog.NewTextHandler(logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	srv, err := engine.Serve(db, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close(); db.Close() })
	t.Setenv("AWS_CA_BUNDLE", "")
	c, err := dynamo.NewClient(context.Background(), dynamo.ClientConfig{Endpoint: srv.URL(), Local: true, Credentials: credentialsOf(srv)})
	if err != nil {
		t.Fatal(err)
	}
	if err := dynamo.EnsureTable(context.Background(), c, table); err != nil {
		t.Fatal(err)
	}
	return srv, c, logs
}

// credentialsOf gives a client the server's credentials.
func credentialsOf(srv *engine.Server) aws.CredentialsProvider {
	return credentials.StaticCredentialsProvider{Value: srv.Credentials()}
}

// rawCall is one DynamoDB call made by hand, signed (or not) as a test needs.
type rawCall struct {
	op, body string
	creds    *aws.Credentials // nil: unsigned
	at       time.Time        // the signing time (now if zero)
	sent     string           // the body sent, if not the one signed
	sentOp   string           // the operation sent, if not the one signed
}

func (c rawCall) do(t *testing.T, url string) (status int, errType string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(c.body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-amz-json-1.0")
	req.Header.Set("X-Amz-Target", "DynamoDB_20120810."+c.op)
	if c.creds != nil {
		at := c.at
		if at.IsZero() {
			at = time.Now()
		}
		sum := sha256.Sum256([]byte(c.body))
		if err := v4.NewSigner().SignHTTP(context.Background(), *c.creds, req, hex.EncodeToString(sum[:]), "dynamodb", "us-east-1", at); err != nil {
			t.Fatal(err)
		}
	}
	if c.sentOp != "" {
		req.Header.Set("X-Amz-Target", "DynamoDB_20120810."+c.sentOp)
	}
	if c.sent != "" {
		req.Body, req.ContentLength = io.NopCloser(strings.NewReader(c.sent)), int64(len(c.sent))
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var answer struct {
		Type string `json:"__type"`
	}
	raw, _ := io.ReadAll(res.Body)
	_ = json.Unmarshal(raw, &answer)
	return res.StatusCode, answer.Type[strings.LastIndex(answer.Type, "#")+1:]
}

// TestEngineAnswersOnlyItsOwnCredentials: the engine's port is reachable by
// every local user, so it answers only requests signed (SigV4) with the
// credentials it made for its own process. An unsigned call, one signed
// with other credentials, a signed call whose body or operation was changed
// on the way, and a replay of a call signed 20 minutes ago are refused as
// DynamoDB refuses them, and none of them reads or changes the table. The
// log says so, once a minute at most.
func TestEngineAnswersOnlyItsOwnCredentials(t *testing.T) {
	srv, c, logs := serveSigned(t)
	ctx := context.Background()
	seed := `{"TableName":"cal","Item":{"PK":{"S":"p"},"SK":{"S":"s"},"v":{"S":"kept"}}}`
	own := srv.Credentials()
	if status, typ := (rawCall{op: "PutItem", body: seed, creds: &own}).do(t, srv.URL()); status != http.StatusOK {
		t.Fatalf("a call signed with the engine's credentials: got %d %s, want 200", status, typ)
	}
	scan := func(t *testing.T) string {
		t.Helper()
		out, err := c.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String(table)})
		if err != nil {
			t.Fatal(err)
		}
		var items []map[string]any
		if err := attributevalue.UnmarshalListOfMaps(out.Items, &items); err != nil {
			t.Fatal(err)
		}
		return fmt.Sprint(items)
	}
	before := scan(t)
	other := aws.Credentials{AccessKeyID: "AKIDOTHERPROCESS", SecretAccessKey: "guessed"}
	wrongSecret := aws.Credentials{AccessKeyID: own.AccessKeyID, SecretAccessKey: "guessed"}
	overwrite := `{"TableName":"cal","Item":{"PK":{"S":"p"},"SK":{"S":"s"},"v":{"S":"lost"}}}`
	tampered := `{"TableName":"cal","Item":{"PK":{"S":"p"},"SK":{"S":"s"},"v":{"S":"gone"}}}`
	for _, tt := range []struct {
		name     string
		call     rawCall
		wantType string
	}{
		{"unsigned scan", rawCall{op: "Scan", body: `{"TableName":"cal"}`}, "MissingAuthenticationTokenException"},
		{"unsigned put", rawCall{op: "PutItem", body: overwrite}, "MissingAuthenticationTokenException"},
		{"unsigned list", rawCall{op: "ListTables", body: `{}`}, "MissingAuthenticationTokenException"},
		{"other credentials", rawCall{op: "PutItem", body: overwrite, creds: &other}, "UnrecognizedClientException"},
		{"the key with a wrong secret", rawCall{op: "DeleteTable", body: `{"TableName":"cal"}`, creds: &wrongSecret}, "InvalidSignatureException"},
		{"a tampered body", rawCall{op: "PutItem", body: overwrite, creds: &own, sent: tampered}, "InvalidSignatureException"},
		{"another operation", rawCall{op: "GetItem", body: `{"TableName":"cal","Key":{"PK":{"S":"p"},"SK":{"S":"s"}}}`, creds: &own, sentOp: "DeleteItem"}, "InvalidSignatureException"},
		{"a replay 20 minutes later", rawCall{op: "PutItem", body: overwrite, creds: &own, at: time.Now().Add(-20 * time.Minute)}, "InvalidSignatureException"},
		{"signed 20 minutes ahead", rawCall{op: "PutItem", body: overwrite, creds: &own, at: time.Now().Add(20 * time.Minute)}, "InvalidSignatureException"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			status, typ := tt.call.do(t, srv.URL())
			if status != http.StatusBadRequest || typ != tt.wantType {
				t.Errorf("got %d %s, want 400 %s", status, typ, tt.wantType)
			}
			if after := scan(t); after != before {
				t.Errorf("the table changed:\n%s", cmp.Diff(before, after))
			}
		})
	}
	if n := strings.Count(logs.String(), "refused calls not signed by this process"); n != 1 {
		t.Errorf("the log has %d warnings of refused calls, want 1:\n%s", n, logs.String())
	}
}
