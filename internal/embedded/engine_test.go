package embedded_test

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/calgraph/calgraph/internal/dynamo"
	"github.com/calgraph/calgraph/internal/embedded"
)

func startEngine(t *testing.T) (*embedded.Engine, *dynamodb.Client) {
	t.Helper()
	e, err := embedded.Start(slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := e.Close(context.Background()); err != nil {
			t.Errorf("close: %v", err)
		}
	})
	t.Setenv("AWS_CA_BUNDLE", "")
	db, err := dynamo.NewClient(context.Background(), dynamo.ClientConfig{Endpoint: e.URL(), Local: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := dynamo.EnsureTable(context.Background(), db, "t"); err != nil {
		t.Fatal(err)
	}
	return e, db
}

func TestEnginePanicBecomesInternalServerError(t *testing.T) {
	_, db := startEngine(t)
	// minidyn panics on a Query of an index that does not exist.
	_, err := db.Query(context.Background(), &dynamodb.QueryInput{
		TableName: aws.String("t"), IndexName: aws.String("NoSuchIndex"),
		KeyConditionExpression:    aws.String("x = :x"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":x": &types.AttributeValueMemberS{Value: "1"}},
	})
	if _, ok := errors.AsType[*types.InternalServerError](err); !ok {
		t.Fatalf("got %v, want an InternalServerError", err)
	}
	// The engine keeps serving.
	if _, err := db.DescribeTable(context.Background(), &dynamodb.DescribeTableInput{TableName: aws.String("t")}); err != nil {
		t.Fatalf("engine broken after a panic: %v", err)
	}
}

func TestEngineSendsChecksums(t *testing.T) {
	e, _ := startEngine(t)
	req, _ := http.NewRequest(http.MethodPost, e.URL(), strings.NewReader(`{"TableName":"t"}`))
	req.Header.Set("X-Amz-Target", "DynamoDB_20120810.DescribeTable")
	req.Header.Set("Content-Type", "application/x-amz-json-1.0")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 200 || res.Header.Get("X-Amz-Crc32") == "" {
		t.Fatalf("got status %d, X-Amz-Crc32 %q; want 200 with a checksum", res.StatusCode, res.Header.Get("X-Amz-Crc32"))
	}
}

func TestLockDir(t *testing.T) {
	dir := t.TempDir()
	unlock, err := embedded.LockDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := embedded.LockDir(dir); err == nil || !strings.Contains(err.Error(), "in use") {
		t.Fatalf("got %v, want the directory reported in use", err)
	}
	unlock()
	again, err := embedded.LockDir(dir)
	if err != nil {
		t.Fatalf("lock after unlock: %v", err)
	}
	again()
}
