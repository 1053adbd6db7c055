package dynamo

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/smithy-go/middleware"

	"github.com/calgraph/calgraph/internal/ddbread"
)

// Call is one DynamoDB API call as seen by a Recorder.
type Call struct {
	Op    string // operation name, e.g. "Query"
	Index string // the index a Query or Scan used, if any
	// Items is how many items the call read: a Query's or Scan's
	// ScannedCount (before its filter), the items a BatchGetItem found.
	Items int
	Start time.Time
	End   time.Time
}

// Recorder records every DynamoDB call a client makes, so tests and benchmarks can
// count requests and the sequential waves they form. Safe for concurrent use.
type Recorder struct {
	mu    sync.Mutex
	calls []Call
}

// Calls returns the calls recorded so far, in start order.
func (r *Recorder) Calls() []Call {
	r.mu.Lock()
	defer r.mu.Unlock()
	calls := slices.Clone(r.calls)
	slices.SortStableFunc(calls, func(a, b Call) int { return a.Start.Compare(b.Start) })
	return calls
}

// Reset forgets the recorded calls.
func (r *Recorder) Reset() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls = nil
}

func (r *Recorder) add(c Call) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls = append(r.calls, c)
}

// Waves returns the length of the longest chain of calls in which each call
// started only after the previous one had ended: the number of sequential round
// trips on the critical path. Calls that overlap are in the same wave. Give each
// call some latency (WithLatency) so that calls issued together visibly overlap.
func Waves(calls []Call) int {
	longest := 0
	for _, w := range WaveOf(calls) {
		longest = max(longest, w)
	}
	return longest
}

// WaveOf numbers each call's wave (1-based), for calls in start order as Calls
// returns them: one more than the latest wave that ended before it started.
func WaveOf(calls []Call) []int {
	wave := make([]int, len(calls))
	for i, c := range calls {
		wave[i] = 1
		for j := range i {
			if !calls[j].End.After(c.Start) {
				wave[i] = max(wave[i], wave[j]+1)
			}
		}
	}
	return wave
}

// WithRecorder returns a client option that records every call in r.
func WithRecorder(r *Recorder) func(*dynamodb.Options) {
	return addInitialize("calgraph.recorder", func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
		c := Call{Op: middleware.GetOperationName(ctx), Index: indexOf(in.Parameters), Start: time.Now()}
		out, md, err := next.HandleInitialize(ctx, in)
		c.End = time.Now()
		c.Items = itemsRead(out.Result)
		r.add(c)
		return out, md, err
	})
}

// WithLatency returns a client option that delays every call by d before sending
// it, to model the network round trip to a remote DynamoDB endpoint.
func WithLatency(d time.Duration) func(*dynamodb.Options) {
	return addInitialize("calgraph.latency", func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-t.C:
		case <-ctx.Done():
			return middleware.InitializeOutput{}, middleware.Metadata{}, ctx.Err()
		}
		return next.HandleInitialize(ctx, in)
	})
}

type initializeFunc = func(context.Context, middleware.InitializeInput, middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error)

func addInitialize(id string, fn initializeFunc) func(*dynamodb.Options) {
	return func(o *dynamodb.Options) {
		o.APIOptions = append(o.APIOptions, func(stack *middleware.Stack) error {
			return stack.Initialize.Add(middleware.InitializeMiddlewareFunc(id, fn), middleware.After)
		})
	}
}

func indexOf(params any) string {
	switch in := params.(type) {
	case *dynamodb.QueryInput:
		return aws.ToString(in.IndexName)
	case *dynamodb.ScanInput:
		return aws.ToString(in.IndexName)
	}
	return ""
}

// itemsRead is how many items a call's output says it read.
func itemsRead(out any) int {
	switch o := out.(type) {
	case *dynamodb.QueryOutput:
		return int(o.ScannedCount)
	case *dynamodb.ScanOutput:
		return int(o.ScannedCount)
	case *dynamodb.BatchGetItemOutput:
		if seen, ok := ddbread.SeenOf(o.ResultMetadata); ok { // not decoded: as the answer it repeats
			return seen.Items
		}
		n := 0
		for _, items := range o.Responses {
			n += len(items)
		}
		return n
	case *dynamodb.GetItemOutput:
		if o.Item != nil {
			return 1
		}
	}
	return 0
}
