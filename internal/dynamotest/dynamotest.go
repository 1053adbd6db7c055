// Package dynamotest gives tests a DynamoDB to talk to: Amazon's DynamoDB Local (or
// any real endpoint) when the CALGRAPH_TEST_DYNAMODB environment variable names
// it, and otherwise an embedded engine started once per test binary. Every test
// gets a table of its own, deleted when it ends, so tests never clean up by
// scanning. Main is the TestMain of packages whose parallel tests mostly
// wait on such a store.
package dynamotest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"regexp"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/calgraph/calgraph/internal/dynamo"
	"github.com/calgraph/calgraph/internal/embedded"
	"github.com/calgraph/calgraph/internal/recurrence"
)

// EnvEndpoint names the environment variable holding a real endpoint to test
// against, e.g. http://127.0.0.1:8000 for DynamoDB Local.
const EnvEndpoint = "CALGRAPH_TEST_DYNAMODB"

var (
	startOnce sync.Once
	engine    *embedded.Engine
	startErr  error
	tables    atomic.Int64
)

// Engine returns the embedded engine tests share, or nil when they run against
// an external endpoint (fault-injection tests skip then).
func Engine(t testing.TB) *embedded.Engine {
	t.Helper()
	if os.Getenv(EnvEndpoint) != "" {
		return nil
	}
	startOnce.Do(func() {
		dir, err := os.MkdirTemp("", "calgraph-test-")
		if err != nil {
			startErr = err
			return
		}
		// The open file outlives its name: nothing is left behind when the
		// test binary exits. Tests skip fsync; crash tests open their own.
		defer os.RemoveAll(dir)
		engine, startErr = embedded.Open(dir, slog.New(slog.DiscardHandler), embedded.Options{NoSync: true})
	})
	if startErr != nil {
		t.Fatalf("start embedded engine: %v", startErr)
	}
	return engine
}

// External reports whether tests run against an engine of their own
// choosing (EnvEndpoint: DynamoDB Local), not the embedded one. Tests that
// seed thousands of items through it run smaller there: CI runs every
// package against both, within go test's 10 minutes per package, and the
// full size runs on the embedded engine every time.
func External() bool { return os.Getenv(EnvEndpoint) != "" }

// Endpoint returns the endpoint tests use.
func Endpoint(t testing.TB) string {
	t.Helper()
	if ep := os.Getenv(EnvEndpoint); ep != "" {
		return ep
	}
	return Engine(t).URL()
}

// Credentials returns what a client of the test endpoint signs with: the
// embedded engine's own, or nil (a client's fixed local ones) for an
// external endpoint.
func Credentials(t testing.TB) aws.CredentialsProvider {
	t.Helper()
	if e := Engine(t); e != nil {
		return e.Credentials()
	}
	return nil
}

// Forward returns a reverse proxy to the test endpoint, for a server under
// test that reaches its store through one and signs with the fixed
// credentials it uses for any local endpoint: in front of the embedded
// engine, which answers only its own, it signs each call again with those.
func Forward(t testing.TB) *httputil.ReverseProxy {
	t.Helper()
	target, err := url.Parse(Endpoint(t))
	if err != nil {
		t.Fatal(err)
	}
	creds := Credentials(t)
	return &httputil.ReverseProxy{Rewrite: func(pr *httputil.ProxyRequest) {
		pr.SetURL(target)
		if creds != nil {
			resign(pr.Out, creds) // left unsigned if it cannot: the engine refuses it
		}
	}}
}

// resign replaces a call's signature with one made with creds.
func resign(r *http.Request, creds aws.CredentialsProvider) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	r.ContentLength = int64(len(body))
	c, err := creds.Retrieve(r.Context())
	if err != nil {
		return
	}
	r.Header.Del("Authorization")
	sum := sha256.Sum256(body)
	_ = v4.NewSigner().SignHTTP(r.Context(), c, r, hex.EncodeToString(sum[:]), "dynamodb", "us-east-1", time.Now())
}

// EngineName says which engine the tests run against, for messages.
func EngineName() string {
	if os.Getenv(EnvEndpoint) != "" {
		return "external endpoint " + os.Getenv(EnvEndpoint)
	}
	return "embedded engine"
}

// Client returns a client for the test endpoint with the SDK's default retryer.
func Client(t testing.TB, opts ...func(*dynamodb.Options)) *dynamodb.Client {
	t.Helper()
	// A long attempt timeout: -race on a loaded machine slows the engine
	// tenfold, and tests of timeouts set their own.
	db, err := dynamo.NewClient(context.Background(), dynamo.ClientConfig{Endpoint: Endpoint(t), Local: true,
		Options: append([]func(*dynamodb.Options){closeIdle}, opts...), Credentials: Credentials(t), AttemptTimeout: 30 * time.Second})
	if err != nil {
		t.Fatalf("DynamoDB client: %v", err)
	}
	return db
}

// closeIdle closes the client's connections after a few idle seconds: a test
// binary makes hundreds of clients, each keeping up to 256 connections (three
// goroutines each) for the whole run, which slows every goroutine dump (the
// wave gate's) and the race detector.
func closeIdle(o *dynamodb.Options) {
	if bc, ok := o.HTTPClient.(*awshttp.BuildableClient); ok {
		o.HTTPClient = bc.WithTransportOptions(func(t *http.Transport) { t.IdleConnTimeout = 5 * time.Second })
	}
}

var unsafeChars = regexp.MustCompile(`[^a-zA-Z0-9_.-]+`)

// Table creates a table with calgraph's schema for this test and deletes it when
// the test ends.
func Table(t testing.TB, db *dynamodb.Client) string {
	t.Helper()
	name := unsafeChars.ReplaceAllString(t.Name(), "_")
	if len(name) > 180 {
		name = name[:180]
	}
	name = fmt.Sprintf("t%d_%s_%d", time.Now().UnixNano()%1e6, name, tables.Add(1))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := dynamo.EnsureTable(ctx, db, name); err != nil {
		t.Fatalf("create table: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		err := dynamo.DeleteTable(ctx, db, name)
		// A DeleteTable the SDK retried after an attempt that did delete
		// the table (its answer late on a loaded machine) finds it gone.
		if _, gone := errors.AsType[*types.ResourceNotFoundException](err); err != nil && !gone {
			t.Errorf("delete table: %v", err)
		}
	})
	return name
}

// Store returns a store on a fresh table, and the client it uses.
func Store(t testing.TB, opts ...dynamo.Option) (*dynamo.Store, *dynamodb.Client) {
	t.Helper()
	db := Client(t)
	return dynamo.New(db, Table(t, db), recurrence.Engine{}, opts...), db
}

// Main runs a test binary's tests (m.Run) for TestMain, with up to
// MainParallel parallel tests at once unless -parallel says otherwise (its
// default is GOMAXPROCS, two on a 2-core machine): parallel tests of the
// store and of the servers on it spend most of their time waiting
// (deadlines, retries, polls, quiet spells), so more of them overlap than
// there are cores. Tests that read process-wide state (goroutines,
// descriptors, memory, the wave gate's quiescence) are not parallel, and
// top-level parallel tests start only after all the others have ended.
func Main(m *testing.M) int {
	flag.Parse()
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == "test.parallel" })
	if !given {
		_ = flag.Set("test.parallel", strconv.Itoa(max(MainParallel, runtime.GOMAXPROCS(0))))
	}
	return m.Run()
}

// MainParallel is how many parallel tests Main runs at once at least.
const MainParallel = 4
