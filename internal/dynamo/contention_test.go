package dynamo_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/calgraph/calgraph/internal/calendar"
	"github.com/calgraph/calgraph/internal/dynamo"
	"github.com/calgraph/calgraph/internal/dynamotest"
)

// stallingHTTP models a DynamoDB slowed down by contention: the first stalls
// attempts of every call of the given operations get no answer (they end when
// their attempt timeout cuts them off), the later ones pass. A call is known
// by its body, which every attempt of it repeats (a transaction's
// ClientRequestToken included).
type stallingHTTP struct {
	next       dynamodb.HTTPClient
	operations []string
	stalls     int
	mu         sync.Mutex
	attempts   map[string]int // by body
}

func (h *stallingHTTP) Do(r *http.Request) (*http.Response, error) {
	op := r.Header.Get("X-Amz-Target")
	if !slices.ContainsFunc(h.operations, func(o string) bool { return op == "DynamoDB_20120810."+o }) {
		return h.next.Do(r)
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return nil, err
	}
	_ = r.Body.Close()
	r.Body = io.NopCloser(bytes.NewReader(body))
	h.mu.Lock()
	h.attempts[string(body)]++
	n := h.attempts[string(body)]
	h.mu.Unlock()
	if n <= h.stalls {
		<-r.Context().Done()
		return nil, r.Context().Err()
	}
	return h.next.Do(r)
}

// fewestAttempts returns how many calls were seen and the fewest attempts one made.
func (h *stallingHTTP) fewestAttempts() (calls, fewest int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, n := range h.attempts {
		if calls == 0 || n < fewest {
			fewest = n
		}
		calls++
	}
	return calls, fewest
}

// stallingStore returns a store on f's table whose client reaches it through
// h, with attempts cut off after attempt.
func stallingStore(t *testing.T, f *fixture, h *stallingHTTP, attempt time.Duration) *dynamo.Store {
	t.Helper()
	h.attempts = map[string]int{}
	db, err := dynamo.NewClient(context.Background(), dynamo.ClientConfig{Endpoint: dynamotest.Endpoint(t), Local: true,
		Credentials: dynamotest.Credentials(t), AttemptTimeout: attempt, Options: []func(*dynamodb.Options){func(o *dynamodb.Options) { h.next, o.HTTPClient = o.HTTPClient, h }}})
	if err != nil {
		t.Fatal(err)
	}
	return dynamo.New(db, f.store.Table(), engine)
}

// TestContentionIsRetriedUntilTheDeadline: bookings made at once on a store
// whose first attempts time out, as on a slow DynamoDB under load, are each
// retried until they pass within their request's deadline. A client-wide
// retry quota (the SDK's default token bucket) would run dry after a few
// dozen such retries and fail the rest after one attempt; a cap of three
// attempts would fail calls the deadline still had time for.
//
// With -short the lone booking's first three transaction attempts time out,
// not four of its read's and of its transaction's: the fewest a cap of three
// attempts fails, with a third of the backoffs (up to a second each). The
// full run keeps four of each; the fifty bookings time out both either way.
func TestContentionIsRetriedUntilTheDeadline(t *testing.T) {
	t.Parallel() // seconds of backoffs on a store of its own, waiting beside other tests
	lone, loneOps := 4, []string{"BatchGetItem", "TransactWriteItems"}
	if testing.Short() {
		lone, loneOps = 3, []string{"TransactWriteItems"}
	}
	for _, tc := range []struct {
		name          string
		bookings      int
		operations    []string
		stalls        int
		attemptTimout time.Duration
	}{
		{"50 bookings at once, two attempts of each call timing out", 50, []string{"BatchGetItem", "TransactWriteItems"}, 2, 300 * time.Millisecond},
		{fmt.Sprintf("a booking whose first %d attempts time out", lone), 2, loneOps, lone, 200 * time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel() // each case waits on backoffs, on a table of its own
			f := newFixture(t)
			// One user and calendar per booking: bookings of one user or
			// calendar would also contend on their items, which tx.go retries.
			users := make([]context.Context, tc.bookings)
			cals := make([]*calendar.Calendar, tc.bookings)
			for i := range tc.bookings {
				users[i] = f.user(fmt.Sprintf("booker%d@example.com", i))
				cals[i] = f.calendarOf(users[i], fmt.Sprint("Room ", i))
			}
			h := &stallingHTTP{operations: tc.operations, stalls: tc.stalls}
			s := stallingStore(t, f, h, tc.attemptTimout)
			errs := make([]error, tc.bookings)
			var wg sync.WaitGroup
			for i := range tc.bookings {
				wg.Go(func() {
					// Twice the README's request deadline: a starved machine
					// stretches the backoffs (up to 1 s each) and the attempts.
					ctx, cancel := context.WithTimeout(users[i], 30*time.Second)
					defer cancel()
					_, _, errs[i] = s.CreateEntry(ctx, calendar.NewEntry{CalendarID: cals[i].ID, Title: "booking", Timing: allDay("2026-03-02")})
				})
			}
			wg.Wait()
			for i, err := range errs {
				if err != nil {
					t.Errorf("booking %d: %v", i, err)
				}
			}
			if calls, fewest := h.fewestAttempts(); calls < len(tc.operations)*tc.bookings || fewest <= tc.stalls {
				t.Errorf("%d calls, the fewest attempts of one %d: want at least %d calls, each attempted more than %d times",
					calls, fewest, len(tc.operations)*tc.bookings, tc.stalls)
			}
		})
	}
}

// TestUnansweredCallsUseTheirDeadline: a write DynamoDB never answers is
// attempted until the request's deadline, not given up after a few
// attempts, and then says OUTCOME_UNKNOWN.
func TestUnansweredCallsUseTheirDeadline(t *testing.T) {
	t.Parallel() // five seconds of waiting, on a store of its own
	f := newFixture(t)
	ada := f.user("ada@example.com")
	cal := f.calendarOf(ada, "Ada's")
	h := &stallingHTTP{operations: []string{"TransactWriteItems"}, stalls: 1 << 30}
	s := stallingStore(t, f, h, 100*time.Millisecond)
	const deadline = 5 * time.Second
	ctx, cancel := context.WithTimeout(ada, deadline)
	defer cancel()
	begin := time.Now()
	_, _, err := s.CreateEntry(ctx, calendar.NewEntry{CalendarID: cal.ID, Title: "lost", Timing: allDay("2026-03-02")})
	took := time.Since(begin)
	wantCode(t, err, calendar.CodeOutcomeUnknown)
	if took < deadline-100*time.Millisecond {
		_, attempts := h.fewestAttempts()
		t.Fatalf("gave up after %v and %d attempts, want the call retried until its deadline (%v)", took, attempts, deadline)
	}
}
