package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/calgraph/calgraph/internal/dynamotest"
)

// Modes of a stallingStore.
const (
	storeAnswers      = iota
	storeFrozen       // accepts every call and answers none
	storeLosesAnswers // applies TransactWriteItems but never answers them; answers the rest
)

// stallingStore stands between the server and its DynamoDB: it passes calls
// through, or behaves like a store that accepts connections and goes silent
// (a DynamoDB Local stopped with SIGSTOP), or like a network that loses the
// answers of writes the store applied.
type stallingStore struct {
	mode  atomic.Int32
	proxy *httputil.ReverseProxy
	done  chan struct{} // closed at the end of the test: nothing stalls any more
}

func newStallingStore(t *testing.T) *httptest.Server {
	s := &stallingStore{proxy: dynamotest.Forward(t), done: make(chan struct{})}
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(s.done) }) // before Close, which waits for handlers
	stores.Store(srv.URL, s)
	return srv
}

var stores sync.Map // URL → *stallingStore

func setMode(url string, mode int32) {
	s, _ := stores.Load(url)
	s.(*stallingStore).mode.Store(mode)
}

func (s *stallingStore) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch mode := s.mode.Load(); {
	case mode == storeFrozen:
		s.stall(r) // the caller gives up; the store never answers
		return
	case mode == storeLosesAnswers && strings.HasSuffix(r.Header.Get("X-Amz-Target"), ".TransactWriteItems"):
		s.proxy.ServeHTTP(httptest.NewRecorder(), r) // applied, its answer lost
		s.stall(r)
		return
	}
	s.proxy.ServeHTTP(w, r)
}

func (s *stallingStore) stall(r *http.Request) {
	select {
	case <-r.Context().Done():
	case <-s.done:
	}
}

// TestFrozenStore holds the request deadline's promise: with the store
// silent, every request is answered within the deadline (none dropped), reads
// and writes that were never sent say UNAVAILABLE, and a write whose answer
// was lost says OUTCOME_UNKNOWN, with retrySafe telling whether the same
// idempotency key makes a retry safe, which it then is: applied once.
func TestFrozenStore(t *testing.T) {
	t.Parallel() // its own server and store; it waits out request deadlines
	store := newStallingStore(t)
	const deadline = 2 * time.Second
	in := serve(t, settings(t, t.TempDir(), false,
		"AWS_ENDPOINT_URL_DYNAMODB", store.URL, "CALGRAPH_DEV_TOKENS", "true",
		"CALGRAPH_TABLE", fmt.Sprintf("frozen%d", time.Now().UnixNano()),
		"CALGRAPH_REQUEST_TIMEOUT", deadline.String(), "CALGRAPH_STORE_ATTEMPT_TIMEOUT", "300ms"))
	cal := in.query(t, `mutation { createCalendar(input: {name: "Team"}) { calendar { id } } }`)["data"].(map[string]any)["createCalendar"].(map[string]any)["calendar"].(map[string]any)["id"].(string)
	create := func(title, key string) string {
		k := ""
		if key != "" {
			k = fmt.Sprintf(`idempotencyKey: %q,`, key)
		}
		return fmt.Sprintf(`mutation { createEntry(input: {%s calendarId: %q, title: %q,
			timing: {timed: {start: "2026-03-02T09:00:00Z", end: "2026-03-02T10:00:00Z"}}}) { entry { id } } }`, k, cal, title)
	}
	week := fmt.Sprintf(`{ node(id: %q) { ... on Calendar { entries(range: {instants: {start: "2026-03-02T00:00:00Z", end: "2026-03-09T00:00:00Z"}}) { entries { id title } } } } }`, cal)

	setMode(store.URL, storeFrozen)
	var wg sync.WaitGroup
	for i := range 12 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			q := week
			if i%3 == 0 {
				q = create(fmt.Sprint("frozen ", i), fmt.Sprint("frozen-key-", i))
			}
			start := time.Now()
			errs := post(t, in, q)
			if took := time.Since(start); took > deadline+time.Second {
				t.Errorf("request %d answered after %s, want within %s", i, took, deadline)
			}
			if code := codeOf(errs); code != "UNAVAILABLE" {
				t.Errorf("request %d with the store frozen: got %v, want UNAVAILABLE", i, errs)
			}
		}()
	}
	wg.Wait()

	setMode(store.URL, storeLosesAnswers)
	for _, tt := range []struct {
		key       string
		retrySafe bool
	}{{"lost-answer-key", true}, {"", false}} {
		errs := post(t, in, create("lost"+tt.key, tt.key))
		if codeOf(errs) != "OUTCOME_UNKNOWN" || errs[0]["extensions"].(map[string]any)["retrySafe"] != tt.retrySafe {
			t.Errorf("write with key %q whose answer was lost: got %v, want OUTCOME_UNKNOWN with retrySafe %v", tt.key, errs, tt.retrySafe)
		}
	}

	setMode(store.URL, storeAnswers)
	retry := post(t, in, create("lostlost-answer-key", "lost-answer-key"))
	// On a machine so loaded that the retry's read of the first attempt's
	// record misses its own deadline, UNAVAILABLE is a safe answer too: the
	// titles below still show the entry applied once.
	if code := codeOf(retry); len(retry) > 0 && code != "VERSION_CONFLICT" && code != "UNAVAILABLE" {
		t.Errorf("retry with the same key: got %v, want the entry, VERSION_CONFLICT (applied by the first attempt) or UNAVAILABLE", retry)
	}
	titles := map[string]int{}
	for _, e := range in.query(t, week)["data"].(map[string]any)["node"].(map[string]any)["entries"].(map[string]any)["entries"].([]any) {
		titles[e.(map[string]any)["title"].(string)]++
	}
	want := map[string]int{"lostlost-answer-key": 1, "lost": 1}
	for title, n := range want {
		if titles[title] != n {
			t.Errorf("after the lost answers: %d entries titled %q, want %d (all: %v)", titles[title], title, n, titles)
		}
	}
	for title := range titles {
		if strings.HasPrefix(title, "frozen") {
			t.Errorf("entry %q was created while the store was frozen", title)
		}
	}
}

// post sends one operation and returns its errors; it fails the test on a
// dropped connection or an answer that is not GraphQL.
func post(t *testing.T, in instance, q string) []map[string]any {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"query": q})
	req, _ := http.NewRequest(http.MethodPost, in.url+"/query", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+in.token)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Errorf("request dropped: %v", err)
		return nil
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	var out struct{ Errors []map[string]any }
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Errorf("answer is not JSON: %d %s", res.StatusCode, raw)
	}
	return out.Errors
}

func codeOf(errs []map[string]any) string {
	if len(errs) == 0 {
		return ""
	}
	code, _ := errs[0]["extensions"].(map[string]any)["code"].(string)
	return code
}
