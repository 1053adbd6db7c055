package graph_test

import (
	"bytes"
	"cmp"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/golang-jwt/jwt/v5"

	"github.com/calgraph/calgraph/graph"
	"github.com/calgraph/calgraph/internal/answercache"
	"github.com/calgraph/calgraph/internal/auth"
	"github.com/calgraph/calgraph/internal/calendar"
	"github.com/calgraph/calgraph/internal/dynamo"
	"github.com/calgraph/calgraph/internal/dynamotest"
	"github.com/calgraph/calgraph/internal/httpapi"
	"github.com/calgraph/calgraph/internal/live"
	"github.com/calgraph/calgraph/internal/loader"
	"github.com/calgraph/calgraph/internal/recurrence"
)

var testSecret = []byte("0123456789abcdef0123456789abcdef-test")

// env is the whole API wired as server.go wires it, over a fresh table, served
// by httptest, with every DynamoDB call recorded.
type env struct {
	t     testing.TB
	url   string
	store *dynamo.Store
	// answers is the answer cache (withAnswerCache); nil without one.
	answers *answercache.Cache
	rec     *dynamo.Recorder
	logs    *syncBuffer
	tokens  sync.Map // email -> token
	messy   bool     // the test leaves the table inconsistent on purpose
	hub     *live.Hub

	checked *dynamo.Store // the table through a plain client, for Store.Check
	opts    []func(*envOptions)
	window  time.Duration // the loaders' batch window, when gated
}

type envOptions struct {
	latency  time.Duration
	gate     bool          // hold calls until the process is quiescent (dynamo.WithWaveGate)
	window   time.Duration // the loaders' batch window under the gate (gateWindows[0] if zero)
	table    string        // an existing table to serve, instead of a fresh one
	endpoint string        // a DynamoDB endpoint for the server to reach its table through
	client   []func(*dynamodb.Options)
	poll     time.Duration // the live hub's poll interval (live.DefaultPollInterval if zero)
	ping     time.Duration // the WebSocket ping interval (graph's default if zero)
	idle     time.Duration // the WebSocket idle timeout (graph's default if zero)
	noViews  bool          // no view cache: every view reads its calendars' entries
	origins  []string      // -cors-origins, for CORS and WebSocket alike
	initWait time.Duration // how long a WebSocket may wait for connection_init (graph's default if zero)
	deadline time.Duration // each request's deadline (httpapi.Deadline), as -request-timeout; none if zero
	budget   int           // each request's budget of entries (graph.Options.MaxEntries); the default if zero
	answers  int64         // the answer cache's bytes (-answer-cache-bytes); none if zero
}

func newEnv(t testing.TB, opts ...func(*envOptions)) *env {
	t.Helper()
	var o envOptions
	for _, f := range opts {
		f(&o)
	}
	rec := &dynamo.Recorder{}
	clientOpts := []func(*dynamodb.Options){dynamo.WithRecorder(rec)}
	if o.gate {
		clientOpts = append(clientOpts, dynamo.WithWaveGate(loaderWindow))
	}
	if o.latency > 0 {
		clientOpts = append(clientOpts, dynamo.WithLatency(o.latency))
	}
	clientOpts = append(clientOpts, o.client...)
	db := dynamotest.Client(t, clientOpts...)
	// The table is made, checked and deleted through a client of its own:
	// without the latency, the gate or the recorder, which are the server's.
	plain := dynamotest.Client(t)
	table := o.table
	if table == "" {
		table = dynamotest.Table(t, plain)
	}
	if o.endpoint != "" {
		var err error
		db, err = dynamo.NewClient(context.Background(), dynamo.ClientConfig{Endpoint: o.endpoint, Local: true, Options: clientOpts,
			Credentials: dynamotest.Credentials(t)})
		if err != nil {
			t.Fatal(err)
		}
	}
	var hub *live.Hub
	storeOpts := []dynamo.Option{dynamo.WithCommitHook(func(l []calendar.LogRef) { hub.Notify(l) })}
	if o.noViews {
		storeOpts = append(storeOpts, dynamo.WithViewCache(0))
	}
	store := dynamo.New(db, table, recurrence.Engine{}, storeOpts...)
	logs := &syncBuffer{}
	logger := slog.New(httpapi.LogHandler(slog.NewTextHandler(logs, nil)))
	hub = live.NewHub(store, o.poll, logger)
	running, stop := context.WithCancel(context.Background())
	hubDone := make(chan struct{})
	go func() { defer close(hubDone); hub.Run(running) }()
	t.Cleanup(func() { stop(); <-hubDone })
	verifier, err := auth.NewVerifier(context.Background(), auth.Config{
		HMACSecret: testSecret, Issuer: auth.LocalIssuer, Audience: auth.LocalAudience,
	})
	if err != nil {
		t.Fatal(err)
	}
	authn := auth.NewAuthenticator(verifier, store, logger)
	wait := 2 * time.Millisecond // the loaders' own
	if o.gate {
		// Request-plan tests pin the number of calls: a batch whose keys
		// come from a loop is split in two when the loop is preempted for
		// longer than the window, which is harmless in production (one
		// more call, same wave). A starved machine preempts for tens of
		// milliseconds; the gate waits for open windows (loaderWindow),
		// and steadyPlan measures again with longer ones (e.again).
		wait = cmp.Or(o.window, gateWindows[0])
	}
	answers := answercache.New(store, o.answers)
	api := authn.Middleware(answers.Middleware(graph.NewHandler(store, logger, graph.Options{MaxBodyBytes: 64 << 10, ForgetIdentity: authn.Forget, MaxEntries: o.budget,
		Live: &graph.LiveOptions{Hub: hub, Authenticate: authn.Authenticate, AllowedOrigins: o.origins, Shutdown: running,
			PingInterval: o.ping, IdleTimeout: o.idle, InitTimeout: o.initWait},
		NewLoaders: func(scope calendar.ReadScope) *loader.Loaders {
			return loader.NewWithWait(store, recurrence.Engine{}, scope, wait)
		}})))
	if o.deadline > 0 {
		api = httpapi.Deadline(o.deadline, api)
	}
	h := httpapi.New(httpapi.Config{AllowedOrigins: o.origins, SDL: []byte("schema"), Feeds: httpapi.FeedHandler(store, recurrence.Engine{}, time.Now, logger)}, api, store.Ping, logger)
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	e := &env{t: t, url: srv.URL, store: store, answers: answers, rec: rec, logs: logs, hub: hub, checked: dynamo.New(plain, table, recurrence.Engine{}), opts: opts, window: wait}
	if o.table == "" { // a shared table (the benchmarks') is not this test's to check
		t.Cleanup(func() {
			if !e.messy && !t.Failed() {
				e.consistent()
			}
		})
	}
	return e
}

// consistent fails the test when the table breaks an invariant (Store.Check).
func (e *env) consistent() {
	e.t.Helper()
	problems, err := e.checked.Check(context.Background())
	if err != nil {
		e.t.Fatalf("check: %v", err)
	}
	for _, p := range problems {
		e.t.Errorf("inconsistent: %s", p)
	}
}

func withLatency(d time.Duration) func(*envOptions) { return func(o *envOptions) { o.latency = d } }

// withoutViewCache turns the store's view cache off, for request plans of
// views that read every calendar's entries however often they are repeated.
func withoutViewCache() func(*envOptions) { return func(o *envOptions) { o.noViews = true } }

// withDeadline gives each request a deadline, as -request-timeout does: the
// store retries a failing call until then.
func withDeadline(d time.Duration) func(*envOptions) { return func(o *envOptions) { o.deadline = d } }

// withWaveGate holds the store's calls until the process is quiescent
// (dynamo.WithWaveGate), so that the calls of one wave overlap and waves are
// counted by causality, however the machine schedules the test.
func withWaveGate() func(*envOptions) { return func(o *envOptions) { o.gate = true } }

// loaderWindow names, as stack traces do, the function in which a
// dataloader's batch waits for its window to end: a wave is not over while
// one is open.
const loaderWindow = "graph-gophers/dataloader/v7.(*Loader[...]).sleeper"

// token returns a dev token for email.
func (e *env) token(email string) string {
	e.t.Helper()
	if tok, ok := e.tokens.Load(email); ok {
		return tok.(string)
	}
	tok, err := auth.Mint(testSecret, email, "", time.Now(), time.Hour)
	if err != nil {
		e.t.Fatal(err)
	}
	e.tokens.Store(email, tok)
	return tok
}

// tokenFor signs a token for an arbitrary subject and email, with extra claims.
func (e *env) tokenFor(subject, email string, exp time.Time, extra ...any) string {
	e.t.Helper()
	claims := jwt.MapClaims{
		"iss": auth.LocalIssuer, "aud": auth.LocalAudience, "sub": subject, "email": email,
		"iat": time.Now().Add(-2 * time.Hour).Unix(), "exp": exp.Unix(),
	}
	for i := 0; i+1 < len(extra); i += 2 {
		claims[extra[i].(string)] = extra[i+1]
	}
	tok, err := jwt.NewWithClaims(jwt.SigningMethodHS256, claims).SignedString(testSecret)
	if err != nil {
		e.t.Fatal(err)
	}
	return tok
}

// gqlError is one entry of a response's errors.
type gqlError struct {
	Message    string `json:"message"`
	Path       []any  `json:"path"`
	Extensions struct {
		Code       string `json:"code"`
		Field      string `json:"field"`
		CalendarID string `json:"calendarId"`
	} `json:"extensions"`
}

type response struct {
	Status int
	Data   map[string]any `json:"data"`
	Errors []gqlError     `json:"errors"`
	Raw    string
}

// code returns the first error's code, or "" when there is none.
func (r response) code() string {
	if len(r.Errors) == 0 {
		return ""
	}
	return r.Errors[0].Extensions.Code
}

// do posts a GraphQL operation with the bearer token (none when empty).
func (e *env) do(token, query string, vars map[string]any) response {
	e.t.Helper()
	body, _ := json.Marshal(map[string]any{"query": query, "variables": vars})
	req, _ := http.NewRequest(http.MethodPost, e.url+"/query", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	return e.send(req)
}

func (e *env) send(req *http.Request) response {
	e.t.Helper()
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatalf("POST /query: %v", err)
	}
	defer res.Body.Close()
	var buf bytes.Buffer
	_, _ = buf.ReadFrom(res.Body)
	r := response{Status: res.StatusCode, Raw: buf.String()}
	if err := json.Unmarshal(buf.Bytes(), &r); err != nil {
		e.t.Fatalf("response %d is not JSON: %v\n%s", res.StatusCode, err, buf.String())
	}
	return r
}

// must runs an operation that has to succeed and returns its data.
func (e *env) must(token, query string, vars map[string]any) map[string]any {
	e.t.Helper()
	r := e.do(token, query, vars)
	if len(r.Errors) > 0 {
		e.t.Fatalf("%s\nfailed: %s", strings.TrimSpace(query), r.Raw)
	}
	return r.Data
}

// get walks a decoded JSON value along a path like "createCalendar.calendar.id".
func get(v any, path string) any {
	for _, p := range strings.Split(path, ".") {
		switch x := v.(type) {
		case map[string]any:
			v = x[p]
		case []any:
			var i int
			fmt.Sscan(p, &i)
			if i >= len(x) {
				return nil
			}
			v = x[i]
		default:
			return nil
		}
	}
	return v
}

func str(v any, path string) string { s, _ := get(v, path).(string); return s }
func num(v any, path string) int    { f, _ := get(v, path).(float64); return int(f) }

type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// emailOf reads the email claim back out of one of env's tokens.
func emailOf(token string) string {
	claims := jwt.MapClaims{}
	_, _, _ = jwt.NewParser().ParseUnverified(token, claims)
	s, _ := claims["email"].(string)
	return s
}

// countUsers counts the user items in env's table.
func countUsers(t *testing.T, e *env) int {
	t.Helper()
	var buf bytes.Buffer
	if _, err := e.store.Export(context.Background(), &buf); err != nil {
		t.Fatal(err)
	}
	return strings.Count(buf.String(), `"entityType":{"S":"USER"}`)
}

// dynamoClient returns a client for env's engine.
func dynamoClient(e *env) *dynamodb.Client { return dynamotest.Client(e.t) }

// putRaw writes an item as given, as a process that was cut off halfway would
// have left it.
func (e *env) putRaw(attrs map[string]string) {
	e.t.Helper()
	it := map[string]types.AttributeValue{}
	for k, v := range attrs {
		it[k] = &types.AttributeValueMemberS{Value: v}
	}
	_, err := dynamoClient(e).PutItem(context.Background(), &dynamodb.PutItemInput{TableName: aws.String(e.store.Table()), Item: it})
	if err != nil {
		e.t.Fatal(err)
	}
}

// decodeUserID turns a User's global ID back into the user's ID.
func decodeUserID(t *testing.T, gid string) string {
	t.Helper()
	raw, err := base64.RawURLEncoding.DecodeString(gid)
	if err != nil || !strings.HasPrefix(string(raw), "User:") {
		t.Fatalf("%q is not a User ID", gid)
	}
	return strings.TrimPrefix(string(raw), "User:")
}
