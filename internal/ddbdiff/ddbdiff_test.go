package ddbdiff_test

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/calgraph/calgraph/internal/ddbdiff"
	"github.com/calgraph/calgraph/internal/dynamo"
	"github.com/calgraph/calgraph/internal/embedded"
)

var (
	seedFlag  = flag.Int64("seed", 0, "run only this seed (to replay a failure)")
	seedsFlag = flag.Int("seeds", 20, "run seeds 1 to this")
	stepsFlag = flag.Int("steps", 200, "requests per seed (20 × 200, both tests, take about two minutes with -race on a busy 2-core machine)")
)

const (
	envEndpoint = "CALGRAPH_TEST_DYNAMODB"
)

// startEngine starts the engine under test and returns a client for it: the
// embedded engine, on a file of its own.
var startEngine = func(t testing.TB) *dynamodb.Client {
	t.Helper()
	e, err := embedded.Open(t.TempDir(), slog.New(slog.DiscardHandler), embedded.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := e.Close(context.Background()); err != nil {
			t.Errorf("close the embedded engine: %v", err)
		}
	})
	// The engine answers only its own credentials.
	return dynamodb.New(client(t, e.URL(), "local").Options(), func(o *dynamodb.Options) { o.Credentials = e.Credentials() })
}

// client returns a client for a local engine that never retries (a retried
// write would be sent twice to one engine and once to the other). DynamoDB
// Local keeps a separate database per access key (letters and digits only).
func client(t testing.TB, endpoint, accessKey string) *dynamodb.Client {
	t.Helper()
	t.Setenv("AWS_CA_BUNDLE", "")
	// Big requests (a BatchGetItem of 16 MB) take seconds on a busy machine;
	// the test is about answers, not latency.
	db, err := dynamo.NewClient(context.Background(), dynamo.ClientConfig{Endpoint: endpoint, Local: true, AttemptTimeout: 2 * time.Minute,
		Options: []func(*dynamodb.Options){func(o *dynamodb.Options) {
			o.RetryMaxAttempts = 1
			o.Credentials = credentials.NewStaticCredentialsProvider(accessKey, "local", "")
		}}})
	if err != nil {
		t.Fatal(err)
	}
	return db
}

// reference returns DynamoDB Local's endpoint, skipping the test without one.
func reference(t *testing.T) string {
	t.Helper()
	endpoint := os.Getenv(envEndpoint)
	if endpoint == "" {
		t.Skipf("differential tests need DynamoDB Local: set %s to its endpoint", envEndpoint)
	}
	return endpoint
}

func seeds() []int64 {
	if *seedFlag != 0 {
		return []int64{*seedFlag}
	}
	var out []int64
	for seed := range int64(*seedsFlag) {
		out = append(out, seed+1)
	}
	return out
}

// runSeeds runs every seed as a subtest and returns the summed stats.
func runSeeds(t *testing.T, ref, sut *dynamodb.Client) ddbdiff.Stats {
	t.Helper()
	total := ddbdiff.Stats{}
	start := time.Now()
	for _, seed := range seeds() {
		t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) {
			for code, n := range ddbdiff.Run(t, ref, sut, seed, *stepsFlag) {
				total[code] += n
			}
		})
	}
	t.Logf("%d seeds × %d steps in %v; reference outcomes: %v", len(seeds()), *stepsFlag, time.Since(start).Round(time.Millisecond), total)
	return total
}

// TestDynamoDBLocalMatchesItself holds the harness to no false positives:
// DynamoDB Local against itself (two databases of one endpoint, told apart by
// access key) must agree on every seed. It also checks that the sequences do
// what they are for: most requests succeed, and conditions, transactions and
// validation all fail some of the time.
func TestDynamoDBLocalMatchesItself(t *testing.T) {
	endpoint := reference(t)
	stats := runSeeds(t, client(t, endpoint, "ddbdiffref"), client(t, endpoint, "ddbdiffsut"))
	if t.Failed() {
		return
	}
	steps := len(seeds()) * *stepsFlag
	if ok := stats[""]; ok < steps*2/5 {
		t.Errorf("got %d of %d requests succeeding, want at least 40%%: %v", ok, steps, stats)
	}
	if steps < 300 {
		return
	}
	for _, code := range []string{"ConditionalCheckFailedException", "TransactionCanceledException", "ValidationException"} {
		if stats[code] == 0 {
			t.Errorf("got no %s in %d requests, want some: %v", code, steps, stats)
		}
	}
}

// TestEmbeddedEngineMatchesDynamoDBLocal holds the embedded engine to
// DynamoDB Local's behaviour: every answer and the final tables must agree.
func TestEmbeddedEngineMatchesDynamoDBLocal(t *testing.T) {
	endpoint := reference(t)
	runSeeds(t, client(t, endpoint, "ddbdiff"), startEngine(t))
}
