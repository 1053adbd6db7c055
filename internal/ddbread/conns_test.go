package ddbread_test

import (
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httptrace"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/calgraph/calgraph/internal/ddbread"
)

// endpoint is a stand-in for DynamoDB that answers every GetItem with one
// item, after delay, and counts the connections it was sent.
type endpoint struct {
	srv    *httptest.Server
	delay  time.Duration
	mu     sync.Mutex
	opened int // connections made to it
	active int // open now
	peak   int // the most open at once
	closed chan struct{}
}

func newEndpoint(t *testing.T, tls bool, configure func(*endpoint)) *endpoint {
	e := &endpoint{closed: make(chan struct{}, 1000)}
	if configure != nil {
		configure(e)
	}
	e.srv = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Read whole, the request lets the server watch its connection,
		// and end r's context when the client closes it.
		_, _ = io.Copy(io.Discard, r.Body)
		select {
		case <-time.After(e.delay):
		case <-r.Context().Done():
			return
		}
		w.Header().Set("Content-Type", "application/x-amz-json-1.0")
		fmt.Fprint(w, `{"Item":{"PK":{"S":"P"}}}`)
	}))
	e.srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		e.mu.Lock()
		defer e.mu.Unlock()
		switch s {
		case http.StateNew:
			e.opened++
			e.active++
			e.peak = max(e.peak, e.active)
		case http.StateClosed, http.StateHijacked:
			e.active--
			e.closed <- struct{}{}
		}
	}
	if tls {
		e.srv.StartTLS()
	} else {
		e.srv.Start()
	}
	t.Cleanup(e.srv.Close)
	return e
}

func (e *endpoint) counts() (opened, active, peak int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.opened, e.active, e.peak
}

// leanClient is a ddbread client of url whose SDK client has the SDK's own
// HTTP client, its transport set by transport and wrapped by any wrap, and
// one attempt per call.
func leanClient(t testing.TB, url string, transport func(*http.Transport), wrap ...func(dynamodb.HTTPClient) dynamodb.HTTPClient) *ddbread.Client {
	t.Helper()
	hc := awshttp.NewBuildableClient()
	if transport != nil {
		hc = hc.WithTransportOptions(transport)
	}
	var h dynamodb.HTTPClient = hc
	for _, w := range wrap {
		if w != nil {
			h = w(h)
		}
	}
	db := dynamodb.New(dynamodb.Options{
		Region: "us-east-1", BaseEndpoint: aws.String(url), HTTPClient: h,
		Credentials: credentials.NewStaticCredentialsProvider("k", "s", ""),
		Retryer:     retry.AddWithMaxAttempts(retry.NewStandard(), 1),
	})
	lean, err := ddbread.New(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	return lean
}

// opaque hides the HTTP client it holds from ddbread, which then sends its
// calls through it as it is.
type opaque struct{ dynamodb.HTTPClient }

// viaNetHTTP returns a context under which a call that net/http's transport
// sends is counted in n: it reports every connection it uses, and the
// client's own connections report none.
func viaNetHTTP(n *atomic.Int32) context.Context {
	return httptrace.WithClientTrace(context.Background(), &httptrace.ClientTrace{GotConn: func(httptrace.GotConnInfo) { n.Add(1) }})
}

func getItem(ctx context.Context, lean *ddbread.Client) error {
	out, err := lean.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("t"), Key: key("K")})
	if err == nil && len(out.Item) != 1 {
		err = fmt.Errorf("answer %v, want one item", out.Item)
	}
	return err
}

// getItemsAtOnce makes n calls at once and waits for them all.
func getItemsAtOnce(t testing.TB, ctx context.Context, lean *ddbread.Client, n int) {
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			if err := getItem(ctx, lean); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
}

// TestOwnConnectionsAreKept: calls go on the client's own connections, not
// net/http's, over plain HTTP and TLS (verified against the transport's own
// roots: a client without the test server's certificate is refused), one at
// a time on one connection and concurrent ones on no more connections than
// calls at once.
func TestOwnConnectionsAreKept(t *testing.T) {
	for _, secure := range []bool{false, true} {
		t.Run(fmt.Sprintf("tls=%v", secure), func(t *testing.T) {
			e := newEndpoint(t, secure, nil)
			var roots func(*http.Transport)
			if secure {
				pool := x509.NewCertPool()
				pool.AddCert(e.srv.Certificate())
				roots = func(tr *http.Transport) { tr.TLSClientConfig.RootCAs = pool }
			}
			lean := leanClient(t, e.srv.URL, roots)
			var nethttp atomic.Int32
			ctx := viaNetHTTP(&nethttp)
			for i := range 20 {
				if err := getItem(ctx, lean); err != nil {
					t.Fatalf("call %d: %v", i+1, err)
				}
			}
			if opened, _, _ := e.counts(); opened != 1 {
				t.Errorf("20 calls one at a time opened %d connections, want 1", opened)
			}
			for range 5 {
				getItemsAtOnce(t, ctx, lean, 8)
			}
			if opened, _, _ := e.counts(); opened > 8 {
				t.Errorf("rounds of 8 calls at once opened %d connections, want at most 8", opened)
			}
			if n := nethttp.Load(); n != 0 {
				t.Errorf("net/http's transport sent %d of the calls, want none", n)
			}
			if secure {
				if err := getItem(context.Background(), leanClient(t, e.srv.URL, nil)); err == nil || !strings.Contains(err.Error(), "certificate") {
					t.Errorf("a client without the server's root: %v, want a certificate error", err)
				}
			}
		})
	}
}

// TestOwnConnectionsAreLetGo: a connection unused for the transport's
// IdleConnTimeout is closed; one whose answer says "Connection: close" is not
// kept; one whose call's context ends mid-answer is closed at once, with the
// context's error, and the next call opens another.
func TestOwnConnectionsAreLetGo(t *testing.T) {
	t.Run("idle", func(t *testing.T) {
		e := newEndpoint(t, false, nil)
		lean := leanClient(t, e.srv.URL, func(tr *http.Transport) { tr.IdleConnTimeout = 50 * time.Millisecond })
		if err := getItem(context.Background(), lean); err != nil {
			t.Fatal(err)
		}
		select {
		case <-e.closed:
		case <-time.After(5 * time.Second):
			t.Fatal("the idle connection is still open after 5 s, its IdleConnTimeout 50 ms")
		}
	})
	t.Run("connection close", func(t *testing.T) {
		// The answer says "Connection: close", and the server holds the
		// connection open two seconds more: a client that kept it would
		// send its next call there and wait for those seconds.
		var opened atomic.Int32
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.Copy(io.Discard, r.Body)
			conn, buf, err := w.(http.Hijacker).Hijack()
			if err != nil {
				return
			}
			opened.Add(1)
			body := `{"Item":{"PK":{"S":"P"}}}`
			fmt.Fprintf(buf, "HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Type: application/x-amz-json-1.0\r\nContent-Length: %d\r\n\r\n%s", len(body), body)
			_ = buf.Flush()
			time.AfterFunc(2*time.Second, func() { _ = conn.Close() })
		}))
		defer srv.Close()
		lean := leanClient(t, srv.URL, nil)
		for i := range 3 {
			start := time.Now()
			if err := getItem(context.Background(), lean); err != nil || time.Since(start) > time.Second {
				t.Fatalf("call %d: %v after %s; want an answer at once, on a new connection", i+1, err, time.Since(start))
			}
		}
		if n := opened.Load(); n != 3 {
			t.Errorf("3 calls answered \"Connection: close\" were sent on %d connections, want 3", n)
		}
	})
	t.Run("context ends", func(t *testing.T) {
		e := newEndpoint(t, false, func(e *endpoint) { e.delay = time.Hour })
		lean := leanClient(t, e.srv.URL, nil)
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		defer cancel()
		start := time.Now()
		err := getItem(ctx, lean)
		if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > 2*time.Second {
			t.Fatalf("a call past its deadline: %v after %s, want the deadline's error at once", err, time.Since(start))
		}
		select {
		case <-e.closed:
		case <-time.After(5 * time.Second):
			t.Fatal("the connection of a call past its deadline is still open")
		}
		e.mu.Lock()
		e.delay = 0
		e.mu.Unlock()
	})
}

// TestOwnConnectionsBound: with the transport's MaxConnsPerHost at 2, ten
// slow calls at once share two connections: no more are ever open.
func TestOwnConnectionsBound(t *testing.T) {
	e := newEndpoint(t, false, func(e *endpoint) { e.delay = 20 * time.Millisecond })
	lean := leanClient(t, e.srv.URL, func(tr *http.Transport) { tr.MaxConnsPerHost = 2 })
	getItemsAtOnce(t, context.Background(), lean, 10)
	if _, _, peak := e.counts(); peak > 2 {
		t.Errorf("%d connections were open at once, want at most MaxConnsPerHost (2)", peak)
	}
}

// TestProxiedCallsGoThroughNetHTTP: an endpoint reached through a proxy is
// left to net/http, which knows how to use one.
func TestProxiedCallsGoThroughNetHTTP(t *testing.T) {
	e := newEndpoint(t, false, nil)
	var proxied atomic.Int32
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		proxied.Add(1)
		w.Header().Set("Content-Type", "application/x-amz-json-1.0")
		fmt.Fprint(w, `{"Item":{"PK":{"S":"P"}}}`)
	}))
	defer proxy.Close()
	proxyURL, _ := url.Parse(proxy.URL)
	lean := leanClient(t, e.srv.URL, func(tr *http.Transport) { tr.Proxy = http.ProxyURL(proxyURL) })
	for range 3 {
		if err := getItem(context.Background(), lean); err != nil {
			t.Fatal(err)
		}
	}
	if opened, _, _ := e.counts(); proxied.Load() != 3 || opened != 0 {
		t.Errorf("the proxy saw %d calls and the endpoint %d connections; want 3 and none", proxied.Load(), opened)
	}
}

// TestKeptConnectionClosedWhileIdleIsResent: a kept connection the endpoint
// closed while it was idle costs a new connection, not a failed call.
func TestKeptConnectionClosedWhileIdleIsResent(t *testing.T) {
	e := newEndpoint(t, false, nil)
	lean := leanClient(t, e.srv.URL, nil)
	if err := getItem(context.Background(), lean); err != nil {
		t.Fatal(err)
	}
	e.srv.CloseClientConnections()
	select {
	case <-e.closed:
	case <-time.After(5 * time.Second):
		t.Fatal("the endpoint did not close its connection")
	}
	if err := getItem(context.Background(), lean); err != nil {
		t.Fatalf("after the endpoint closed the kept connection: %v", err)
	}
	if opened, _, _ := e.counts(); opened != 2 {
		t.Errorf("%d connections opened, want 2", opened)
	}
}

// BenchmarkConns: the CPU of small calls, on the client's own connections
// and on net/http's (the SDK's HTTP client behind a wrapper the client does
// not look through), 20 at once as a cold view sends them, the stand-in
// server in the same process:
//
//	go test ./internal/ddbread -run '^$' -bench Conns -benchtime 1000x -count 5
func BenchmarkConns(b *testing.B) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/x-amz-json-1.0")
		fmt.Fprint(w, `{"Item":{"PK":{"S":"P"}}}`)
	}))
	defer srv.Close()
	for _, c := range []struct {
		name string
		wrap func(dynamodb.HTTPClient) dynamodb.HTTPClient
	}{
		{"own", nil},
		{"net-http", func(h dynamodb.HTTPClient) dynamodb.HTTPClient { return opaque{h} }},
	} {
		b.Run(c.name, func(b *testing.B) {
			lean := leanClient(b, srv.URL, nil, c.wrap)
			b.ReportAllocs()
			before := cpuTime()
			for b.Loop() {
				getItemsAtOnce(b, context.Background(), lean, 20)
			}
			b.ReportMetric(float64(cpuTime()-before)/float64(b.N)/1e3, "cpu-µs/op")
		})
	}
}

// cpuTime is the CPU the process has used, the in-process server's included
// (the same for both ways of sending).
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
