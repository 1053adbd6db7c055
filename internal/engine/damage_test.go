package engine_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/calgraph/calgraph/internal/dynamo"
	"github.com/calgraph/calgraph/internal/engine"
)

// syncBuffer is a log shared by the engine's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestFileCutUnderTheEngineFailsCallsNotTheProcess cuts the engine's file
// short while it serves (a disk filling up, an operator's mistake): the
// pages past the new end are still in bbolt's map, where reading them is a
// SIGBUS. Each call that meets one gets InternalServerError and the log
// says what to do; the process lives on and closes cleanly.
func TestFileCutUnderTheEngineFailsCallsNotTheProcess(t *testing.T) {
	path := filepath.Join(t.TempDir(), "e.db")
	logs := &syncBuffer{}
	db, err := engine.Open(path, engine.Options{NoSync: true, Logger: slog.New(slog.NewTextHandler(logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	srv, err := engine.Serve(db, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("AWS_CA_BUNDLE", "")
	c, err := dynamo.NewClient(context.Background(), dynamo.ClientConfig{Endpoint: srv.URL(), Local: true, Credentials: credentialsOf(srv),
		Options: []func(*dynamodb.Options){func(o *dynamodb.Options) { o.RetryMaxAttempts = 1 }}})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := dynamo.EnsureTable(ctx, c, table); err != nil {
		t.Fatal(err)
	}
	for i := range 200 {
		it := key("p", fmt.Sprintf("s%03d", i))
		it["pad"] = s(strings.Repeat("x", 1000))
		if _, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: it}); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Truncate(path, 8192); err != nil { // the meta pages only
		t.Fatal(err)
	}
	_, getErr := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(table), Key: key("p", "s150"), ConsistentRead: aws.Bool(true)})
	_, scanErr := c.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String(table)})
	for name, err := range map[string]error{"GetItem": getErr, "Scan": scanErr} {
		if _, ok := errors.AsType[*types.InternalServerError](err); !ok {
			t.Errorf("%s on a cut file: got %v, want InternalServerError", name, err)
		}
	}
	if !strings.Contains(logs.String(), "run `calgraph check`") {
		t.Errorf("the log does not say what to do:\n%s", logs.String())
	}
	if err := srv.Close(); err != nil {
		t.Error(err)
	}
	if err := db.Close(); err != nil {
		t.Error(err)
	}
}
