package dynamo_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/calgraph/calgraph/internal/dynamo"
)

// answersAtOnce answers every call with an empty item.
type answersAtOnce struct{}

func (answersAtOnce) Do(r *http.Request) (*http.Response, error) {
	return &http.Response{StatusCode: 200, Status: "200 OK", Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: http.Header{"Content-Type": {"application/x-amz-json-1.0"}}, Body: io.NopCloser(strings.NewReader("{}")),
		Request: r, ContentLength: 2}, nil
}

// TestWaveGateWaitsForBusyGoroutines: a goroutine that is still working (on
// a starved machine: still waiting for a CPU) when the others of its wave have
// made their calls joins their wave, however long it takes; a call made after
// an answer is in the next. A gate that released after a quiet time counted
// the late call as a wave of its own.
func TestWaveGateWaitsForBusyGoroutines(t *testing.T) {
	rec := &dynamo.Recorder{}
	db, err := dynamo.NewClient(context.Background(), dynamo.ClientConfig{Endpoint: "http://127.0.0.1:1", Local: true,
		Options: []func(*dynamodb.Options){dynamo.WithRecorder(rec), dynamo.WithWaveGate(),
			func(o *dynamodb.Options) { o.HTTPClient = answersAtOnce{} }}})
	if err != nil {
		t.Fatal(err)
	}
	get := func() {
		_, err := db.GetItem(context.Background(), &dynamodb.GetItemInput{TableName: aws.String("t"),
			Key: map[string]types.AttributeValue{"PK": &types.AttributeValueMemberS{Value: "k"}}})
		if err != nil {
			t.Error(err)
		}
	}
	var wg sync.WaitGroup
	wg.Go(get)
	wg.Go(func() {
		for begin := time.Now(); time.Since(begin) < 300*time.Millisecond; { // working, never blocked
		}
		get()
	})
	wg.Wait()
	if w := dynamo.Waves(rec.Calls()); w != 1 {
		t.Errorf("two calls made together, one after 300 ms of work: %d waves, want 1", w)
	}
	rec.Reset()
	get()
	get()
	if w := dynamo.Waves(rec.Calls()); w != 2 {
		t.Errorf("a call after another's answer: %d waves, want 2", w)
	}
}
