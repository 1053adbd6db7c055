package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/calgraph/calgraph/internal/dynamo"
)

// call is one DynamoDB call that passed through a proxy.
type call struct {
	dynamo.Call     // operation, index, and when it started and ended
	Items       int // items DynamoDB read to answer it (itemsRead)
	Bytes       int // bytes of DynamoDB's answer
	Err         error
	// Lost: the call never got an answer from DynamoDB (a connection reset
	// by a loaded DynamoDB Local, say); the server got a 502 and may retry.
	Lost bool
}

// proxy forwards a server's DynamoDB calls to the real endpoint and records
// each one. It runs in the benchmark's process, so its own work never counts
// as the server's CPU.
type proxy struct {
	target string // the endpoint's URL, without a trailing slash
	client *http.Client
	srv    *http.Server
	url    string // where the server is to send its calls

	mu       sync.Mutex
	idle     *sync.Cond // signalled when inflight drops to zero
	inflight int
	calls    []call
}

// hopHeaders are the hop-by-hop headers a proxy must not forward (RFC 9110, 7.6.1).
var hopHeaders = []string{"Connection", "Keep-Alive", "Proxy-Connection", "Proxy-Authenticate",
	"Proxy-Authorization", "Te", "Trailer", "Transfer-Encoding", "Upgrade"}

// startProxy serves a proxy to target on a free loopback port until Close.
func startProxy(target string) (*proxy, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("start the DynamoDB proxy: %w", err)
	}
	p := &proxy{
		target: strings.TrimSuffix(target, "/"),
		// The server's SDK chooses its own Accept-Encoding; the transport must
		// not add gzip on its behalf. Many calls of one wave run at once.
		client: &http.Client{Transport: &http.Transport{DisableCompression: true, MaxIdleConnsPerHost: 256}},
		url:    "http://" + ln.Addr().String(),
	}
	p.idle = sync.NewCond(&p.mu)
	p.srv = &http.Server{Handler: p, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = p.srv.Serve(ln) }()
	return p, nil
}

// Close stops serving and closes the connections to the endpoint.
func (p *proxy) Close() error {
	err := p.srv.Close()
	p.client.CloseIdleConnections()
	return err
}

// Reset forgets the calls recorded so far.
func (p *proxy) Reset() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.calls = nil
}

// Calls returns the calls recorded since the last Reset, in start order. It
// first waits for the calls under way to end: the server may have its answer,
// and so the client its own, before the proxy has finished recording.
func (p *proxy) Calls() []call {
	p.mu.Lock()
	defer p.mu.Unlock()
	for p.inflight > 0 {
		p.idle.Wait()
	}
	calls := slices.Clone(p.calls)
	slices.SortStableFunc(calls, func(a, b call) int { return a.Start.Compare(b.Start) })
	return calls
}

// ServeHTTP forwards one call, answers the server at once, and only then
// counts what the answer read, to keep the counting off the server's path.
func (p *proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p.mu.Lock()
	p.inflight++
	p.mu.Unlock()
	c := call{Call: dynamo.Call{Op: operation(r.Header.Get("X-Amz-Target")), Start: time.Now()}}
	defer p.record(&c)

	req, err := io.ReadAll(r.Body)
	if err != nil {
		c.Err = fmt.Errorf("read the server's %s request: %w", c.Op, err)
		http.Error(w, c.Err.Error(), http.StatusBadGateway)
		return
	}
	res, body, err := p.forward(r, req)
	if err != nil {
		c.Err, c.Lost = err, true
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	for k, v := range res.Header {
		w.Header()[k] = v
	}
	for _, h := range hopHeaders {
		w.Header().Del(h)
	}
	w.WriteHeader(res.StatusCode)
	_, _ = w.Write(body)
	_ = http.NewResponseController(w).Flush() // a small answer would wait for the handler's end
	c.End = time.Now()

	c.Index = indexName(req)
	c.Bytes = len(body)
	if res.StatusCode == http.StatusOK {
		if enc := res.Header.Get("Content-Encoding"); enc != "" && enc != "identity" {
			c.Err = fmt.Errorf("%s answer encoded as %s: its items cannot be counted", c.Op, enc)
			return
		}
		c.Items, c.Err = itemsRead(c.Op, body)
	}
}

// forward sends the server's request on to the endpoint and reads the whole
// answer.
func (p *proxy) forward(r *http.Request, body []byte) (*http.Response, []byte, error) {
	out, err := http.NewRequestWithContext(r.Context(), r.Method, p.target+r.URL.RequestURI(), bytes.NewReader(body))
	if err != nil {
		return nil, nil, err
	}
	out.Header = r.Header.Clone()
	for _, h := range hopHeaders {
		out.Header.Del(h)
	}
	out.Host = r.Host // the host the SDK signed
	res, err := p.client.Do(out)
	if err != nil {
		return nil, nil, fmt.Errorf("forward %s: %w", r.Header.Get("X-Amz-Target"), err)
	}
	defer res.Body.Close()
	answer, err := io.ReadAll(res.Body)
	if err != nil {
		return nil, nil, fmt.Errorf("read DynamoDB's answer: %w", err)
	}
	return res, answer, nil
}

// record adds a finished call.
func (p *proxy) record(c *call) {
	if c.End.IsZero() {
		c.End = time.Now()
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.calls = append(p.calls, *c)
	p.inflight--
	if p.inflight == 0 {
		p.idle.Broadcast()
	}
}

// operation is the operation named by an X-Amz-Target header such as
// "DynamoDB_20120810.Query".
func operation(target string) string {
	_, op, _ := strings.Cut(target, ".")
	return op
}

// indexName is the IndexName of a Query or Scan request, "" for the table.
func indexName(request []byte) string {
	var in struct{ IndexName string }
	_ = json.Unmarshal(request, &in) // a request without one reads the table
	return in.IndexName
}

// itemsRead is how many items DynamoDB read to give a successful answer to
// op: the scanned count of a Query or Scan (filtered out items were read
// too), the item of a GetItem, every item of a BatchGetItem or
// TransactGetItems. Writes read none that this benchmark charges.
func itemsRead(op string, answer []byte) (int, error) {
	switch op {
	case "Query", "Scan":
		var a struct{ ScannedCount *int }
		if err := json.Unmarshal(answer, &a); err != nil {
			return 0, err
		}
		if a.ScannedCount == nil {
			return 0, fmt.Errorf("%s answer without ScannedCount", op)
		}
		return *a.ScannedCount, nil
	case "GetItem":
		var a struct{ Item map[string]json.RawMessage }
		err := json.Unmarshal(answer, &a)
		return min(len(a.Item), 1), err
	case "BatchGetItem":
		var a struct{ Responses map[string][]json.RawMessage }
		err := json.Unmarshal(answer, &a)
		n := 0
		for _, items := range a.Responses {
			n += len(items)
		}
		return n, err
	case "TransactGetItems":
		var a struct {
			Responses []struct{ Item map[string]json.RawMessage }
		}
		err := json.Unmarshal(answer, &a)
		n := 0
		for _, r := range a.Responses {
			n += min(len(r.Item), 1)
		}
		return n, err
	}
	return 0, nil
}

// waves is the number of sequential rounds of calls (dynamo.Waves) among
// calls in start order.
func waves(calls []call) int {
	plain := make([]dynamo.Call, len(calls))
	for i, c := range calls {
		plain[i] = c.Call
	}
	return dynamo.Waves(plain)
}
