package dynamo_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/calgraph/calgraph/internal/calendar"
	"github.com/calgraph/calgraph/internal/dynamo"
	"github.com/calgraph/calgraph/internal/dynamotest"
)

// faultyHTTP answers the first failures calls of one DynamoDB operation with
// a canned error, as DynamoDB does when it throttles or breaks, and passes
// everything else on; it counts the operation's calls.
type faultyHTTP struct {
	next      dynamodb.HTTPClient
	operation string // e.g. "TransactWriteItems"
	status    int
	body      string
	mu        sync.Mutex
	failures  int // how many calls fail; -1 for all
	calls     int
}

func (h *faultyHTTP) Do(r *http.Request) (*http.Response, error) {
	if r.Header.Get("X-Amz-Target") != "DynamoDB_20120810."+h.operation {
		return h.next.Do(r)
	}
	h.mu.Lock()
	h.calls++
	fail := h.failures != 0
	if h.failures > 0 {
		h.failures--
	}
	h.mu.Unlock()
	if !fail {
		return h.next.Do(r)
	}
	if r.Body != nil {
		_, _ = io.Copy(io.Discard, r.Body)
		_ = r.Body.Close()
	}
	return &http.Response{StatusCode: h.status, Status: http.StatusText(h.status), Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header:  http.Header{"Content-Type": {"application/x-amz-json-1.0"}},
		Body:    io.NopCloser(strings.NewReader(h.body)),
		Request: r, ContentLength: int64(len(h.body))}, nil
}

func (h *faultyHTTP) count() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.calls
}

func awsError(kind, extra string) string {
	return `{"__type":"com.amazonaws.dynamodb.v20120810#` + kind + `","message":"injected"` + extra + `}`
}

// TestStoreRetries: throttling, 5xx answers and transaction conflicts are
// retried until they pass; failed conditions and validation errors are not.
// A call that never passes is retried until the request's deadline (at least
// three attempts within it), then is UNAVAILABLE when nothing can have
// changed, and OUTCOME_UNKNOWN when a write was sent and DynamoDB failed
// while applying it.
func TestStoreRetries(t *testing.T) {
	cancelled := func(code string) string {
		return awsError("TransactionCanceledException", `,"CancellationReasons":[{"Code":"`+code+`"},{"Code":"None"}]`)
	}
	cases := []struct {
		name      string
		operation string
		status    int
		body      string
		failures  int
		wantCalls int           // exactly, or at least when the call fails throughout (-1 failures)
		wantCode  calendar.Code // when the write fails
		wantOK    bool
	}{
		{"throughput exceeded", "TransactWriteItems", 400, awsError("ProvisionedThroughputExceededException", ""), 2, 3, 0, true},
		{"throttled", "BatchGetItem", 400, awsError("ThrottlingException", ""), 2, 3, 0, true},
		{"request limit", "TransactWriteItems", 400, awsError("RequestLimitExceeded", ""), 2, 3, 0, true},
		{"server error", "BatchGetItem", 500, awsError("InternalServerError", ""), 2, 3, 0, true},
		{"transaction conflict", "TransactWriteItems", 400, cancelled("TransactionConflict"), 3, 4, 0, true},
		{"throttled throughout", "TransactWriteItems", 400, awsError("ThrottlingException", ""), -1, 3, calendar.CodeUnavailable, false},
		{"read fails throughout", "BatchGetItem", 500, awsError("InternalServerError", ""), -1, 3, calendar.CodeUnavailable, false},
		{"write fails throughout", "TransactWriteItems", 500, awsError("InternalServerError", ""), -1, 3, calendar.CodeOutcomeUnknown, false},
		{"failed condition", "TransactWriteItems", 400, cancelled("ConditionalCheckFailed"), -1, 1, calendar.CodeForbidden, false},
		{"validation error", "TransactWriteItems", 400, awsError("ValidationException", ""), -1, 1, calendar.CodeInternal, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel() // each waits out backoffs of up to a second
			f := newFixture(t)
			ada := f.user("ada@example.com")
			cal := f.calendarOf(ada, "Ada's")
			fault := &faultyHTTP{operation: c.operation, status: c.status, body: c.body, failures: c.failures}
			db := dynamotest.Client(t, func(o *dynamodb.Options) { fault.next, o.HTTPClient = o.HTTPClient, fault })
			s := dynamo.New(db, f.store.Table(), engine)
			ctx, cancel := context.WithTimeout(ada, 4*time.Second) // the request's deadline
			defer cancel()
			begin := time.Now()
			_, err := s.UpdateCalendar(ctx, calendar.CalendarUpdate{ID: cal.ID, ExpectedVersion: cal.Version, Name: calendar.Set("Renamed")})
			if c.wantOK && err != nil {
				t.Fatalf("after %d calls: %v", fault.count(), err)
			}
			if !c.wantOK {
				wantCode(t, err, c.wantCode)
			}
			if n := fault.count(); n != c.wantCalls && (c.failures >= 0 || c.wantCode == calendar.CodeForbidden ||
				c.wantCode == calendar.CodeInternal || n < c.wantCalls) {
				t.Fatalf("%d %s calls, want %d", n, c.operation, c.wantCalls)
			}
			if took := time.Since(begin); took > 10*time.Second {
				t.Fatalf("took %v", took)
			}
		})
	}
}

// TestRetriesStopWithTheContext: a store throttled throughout gives up when
// the request's context ends.
func TestRetriesStopWithTheContext(t *testing.T) {
	f := newFixture(t)
	ada := f.user("ada@example.com")
	cal := f.calendarOf(ada, "Ada's")
	fault := &faultyHTTP{operation: "TransactWriteItems", status: 400, failures: -1,
		body: awsError("TransactionCanceledException", `,"CancellationReasons":[{"Code":"TransactionConflict"},{"Code":"None"}]`)}
	db := dynamotest.Client(t, func(o *dynamodb.Options) { fault.next, o.HTTPClient = o.HTTPClient, fault })
	s := dynamo.New(db, f.store.Table(), engine)
	ctx, cancel := context.WithTimeout(ada, 150*time.Millisecond)
	defer cancel()
	begin := time.Now()
	_, err := s.UpdateCalendar(ctx, calendar.CalendarUpdate{ID: cal.ID, ExpectedVersion: cal.Version, Name: calendar.Set("Renamed")})
	if err == nil || time.Since(begin) > time.Second {
		t.Fatalf("%v after %v", err, time.Since(begin))
	}
}

// TestSingleWritesRetryTransactionConflicts: a single-item write refused
// because a transaction holds its item (as a concurrent attempt of the same
// idempotent request does its marker) is sent again, so the outcome is kept
// and the retry gets it.
func TestSingleWritesRetryTransactionConflicts(t *testing.T) {
	f := newFixture(t)
	ada := f.user("ada@example.com")
	cal := f.calendarOf(ada, "Ada's")
	fault := &faultyHTTP{operation: "UpdateItem", status: 400, failures: 2, body: awsError("TransactionConflictException", "")}
	db := dynamotest.Client(t, func(o *dynamodb.Options) { fault.next, o.HTTPClient = o.HTTPClient, fault })
	s := dynamo.New(db, f.store.Table(), engine)
	call := func(ctx context.Context) (string, error) {
		e, err := f.book(ctx, cal.ID, "Once", allDay("2026-03-02"))
		if err != nil {
			return "", err
		}
		return e.ID, nil
	}
	first, err := calendar.Once(ada, s, "k", "fp", call)
	if err != nil || fault.count() != 3 {
		t.Fatalf("%v after %d UpdateItem calls, want the third to keep the outcome", err, fault.count())
	}
	again, err := calendar.Once(ada, s, "k", "fp", call)
	if err != nil || again != first {
		t.Fatalf("retry: %q, %v, want %q", again, err, first)
	}
}
