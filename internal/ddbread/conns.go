package ddbread

import (
	"bufio"
	"cmp"
	"context"
	"crypto/tls"
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"sync"
	"time"

	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

// conns sends a Client's calls on kept-alive HTTP/1.1 connections of its own,
// writing each request and reading its answer on the calling goroutine.
//
// net/http's Transport gives every connection a goroutine that writes and one
// that reads, and hands each request and answer between them and the caller
// by channel: three goroutines woken per call. A cold view sends a score of
// small Queries at once, and those hand-offs were over a third of the CPU of
// sending them: 20 bare calls at once to DynamoDB Local took 1.16 ms of CPU
// through net/http and 0.72 ms written and read in place; BenchmarkConns,
// its stand-in server's CPU included, measures 1.65 against 1.91 ms, and 150
// against 183 allocations a call. conns takes over only calls it can
// make as that Transport would: to the endpoint itself, with no proxy, on the
// transport's own dialer and TLS configuration (AWS_CA_BUNDLE's roots
// included). Anything else goes to the HTTP client it was made from. A call
// that finds the transport's MaxConnsPerHost connections open and all busy
// waits for one, as net/http's would.
//
// Connections are kept up to the transport's MaxIdleConnsPerHost and closed
// after its IdleConnTimeout unused, as net/http does; one timer, not a
// goroutine per connection, closes them. A kept connection the endpoint
// closed meanwhile shows as an end of file (or a reset) before any byte of
// the answer: the call is sent once more at once on a new connection, which
// is safe as every call of this package is a read.
type conns struct {
	next        dynamodb.HTTPClient
	scheme      string
	host        string // as in the endpoint's URL
	addr        string // what is dialed: host and port
	tls         *tls.Config
	handshake   time.Duration // the TLS handshake's bound, 0 for none
	dial        func(ctx context.Context, network, addr string) (net.Conn, error)
	maxIdle     int
	idleTimeout time.Duration
	// slots holds a token per open connection, up to MaxConnsPerHost (nil:
	// no bound); kept says that a connection was put back, to a call
	// waiting for one.
	slots chan struct{}
	kept  chan struct{}

	mu    sync.Mutex
	idle  []*conn     // the most recently used last
	sweep *time.Timer // armed while idle holds a connection
}

// conn is one kept-alive connection.
type conn struct {
	nc   net.Conn
	br   *bufio.Reader
	bw   *bufio.Writer
	used time.Time // when it was last put back
}

// ownConns returns h with the calls to endpoint sent on conns of their own
// beneath any Wrapping around h, or h itself when its transport is not the
// SDK's buildable one or its calls could not be made as it would make them.
func ownConns(h dynamodb.HTTPClient, endpoint string) dynamodb.HTTPClient {
	if w, ok := h.(Wrapping); ok {
		return w.Rewrap(ownConns(w.Unwrap(), endpoint))
	}
	bc, ok := h.(*awshttp.BuildableClient)
	if !ok {
		return h
	}
	u, err := url.Parse(endpoint)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || (u.Path != "" && u.Path != "/") {
		return h
	}
	t := bc.GetTransport()
	if t.Proxy != nil {
		if p, err := t.Proxy(&http.Request{Method: http.MethodPost, URL: u}); err != nil || p != nil {
			return h
		}
	}
	if t.DialTLSContext != nil { // a transport that dials TLS its own way
		return h
	}
	p := &conns{
		next: h, scheme: u.Scheme, host: u.Host, addr: u.Host, dial: t.DialContext,
		maxIdle:     cmp.Or(t.MaxIdleConnsPerHost, http.DefaultMaxIdleConnsPerHost), // as net/http reads it
		idleTimeout: t.IdleConnTimeout, handshake: t.TLSHandshakeTimeout, kept: make(chan struct{}, 1),
	}
	if t.MaxConnsPerHost > 0 {
		p.slots = make(chan struct{}, t.MaxConnsPerHost)
	}
	if p.dial == nil {
		p.dial = (&net.Dialer{}).DialContext
	}
	if u.Port() == "" {
		p.addr = net.JoinHostPort(u.Hostname(), map[string]string{"http": "80", "https": "443"}[u.Scheme])
	}
	if u.Scheme == "https" {
		cfg := &tls.Config{}
		if t.TLSClientConfig != nil {
			cfg = t.TLSClientConfig.Clone()
		}
		if cfg.ServerName == "" {
			cfg.ServerName = u.Hostname()
		}
		cfg.NextProtos = []string{"http/1.1"}
		p.tls = cfg
	}
	return p
}

// Wrapping is an HTTP client that wraps another, as the store's client that
// reads every answer's Date does: a Client's own connections go beneath it.
type Wrapping interface {
	dynamodb.HTTPClient
	// Unwrap returns the client it wraps.
	Unwrap() dynamodb.HTTPClient
	// Rewrap returns a copy of it that wraps next instead.
	Rewrap(next dynamodb.HTTPClient) dynamodb.HTTPClient
}

// Do sends req on a kept connection, or on a new one, and returns its answer,
// whose body gives the connection back when read to its end.
func (p *conns) Do(req *http.Request) (*http.Response, error) {
	if req.URL.Scheme != p.scheme || req.URL.Host != p.host {
		return p.next.Do(req)
	}
	ctx := req.Context()
	for again := false; ; again = true {
		c, kept, err := p.get(ctx)
		if err != nil {
			return nil, &url.Error{Op: req.Method, URL: req.URL.String(), Err: err}
		}
		res, err := p.roundTrip(ctx, c, req)
		if err == nil {
			return res, nil
		}
		p.close(c)
		if ctx.Err() != nil {
			err = ctx.Err()
		} else if _, before := errors.AsType[unanswered](err); kept && !again && before && req.GetBody != nil {
			if req.Body, err = req.GetBody(); err == nil {
				continue
			}
		}
		return nil, &url.Error{Op: req.Method, URL: req.URL.String(), Err: err}
	}
}

// unanswered is a connection that failed before any byte of the answer came:
// what a kept connection the endpoint let go shows, on writing the request or
// on waiting for the answer.
type unanswered struct{ err error }

func (e unanswered) Error() string { return e.err.Error() }
func (e unanswered) Unwrap() error { return e.err }

// roundTrip writes req on c and reads its answer's head. The request's
// context bounds both and the reading of the body: its end cuts the
// connection short. (Not its deadline set on the connection as well: the
// connection could then fail a moment before the context ends, and the call
// would not say that its deadline passed.)
func (p *conns) roundTrip(ctx context.Context, c *conn, req *http.Request) (*http.Response, error) {
	stop := context.AfterFunc(ctx, func() { _ = c.nc.SetDeadline(aLongTimeAgo) })
	err := req.Write(c.bw)
	if err == nil {
		err = c.bw.Flush()
	}
	if err == nil {
		_, err = c.br.Peek(1)
	}
	if err != nil {
		stop()
		return nil, unanswered{err}
	}
	res, err := http.ReadResponse(c.br, req)
	if err != nil {
		stop()
		return nil, err
	}
	res.Body = &connBody{ReadCloser: res.Body, p: p, c: c, stop: stop, keep: !res.Close}
	return res, nil
}

// aLongTimeAgo is a deadline that has passed: set on a connection, it ends
// what is waiting on it at once.
var aLongTimeAgo = time.Unix(1, 0)

// get returns a kept connection (kept true) or a new one, waiting for one
// to be put back or closed while the bound's worth are open.
func (p *conns) get(ctx context.Context) (c *conn, kept bool, err error) {
	for {
		if c := p.kept1(); c != nil {
			return c, true, nil
		}
		if p.slots != nil {
			select {
			case p.slots <- struct{}{}:
			case <-p.kept:
				continue
			case <-ctx.Done():
				return nil, false, ctx.Err()
			}
		}
		if c, err = p.connect(ctx); err != nil {
			p.release()
			return nil, false, err
		}
		return c, false, nil
	}
}

// kept1 takes the connection last put back, closing those unused for
// idleTimeout on the way; nil when none is kept.
func (p *conns) kept1() *conn {
	now := time.Now()
	p.mu.Lock()
	defer p.mu.Unlock()
	for len(p.idle) > 0 {
		c := p.idle[len(p.idle)-1]
		p.idle[len(p.idle)-1] = nil
		p.idle = p.idle[:len(p.idle)-1]
		if p.idleTimeout <= 0 || now.Sub(c.used) < p.idleTimeout {
			return c
		}
		p.close(c)
	}
	return nil
}

// release gives back the slot of a connection closed or never made.
func (p *conns) release() {
	if p.slots != nil {
		<-p.slots
	}
}

// close closes c and gives back its slot.
func (p *conns) close(c *conn) {
	_ = c.nc.Close()
	p.release()
}

// connect dials a new connection, with TLS when the endpoint is https.
func (p *conns) connect(ctx context.Context) (*conn, error) {
	nc, err := p.dial(ctx, "tcp", p.addr)
	if err != nil {
		return nil, err
	}
	if p.tls != nil {
		hctx := ctx
		if p.handshake > 0 {
			var cancel context.CancelFunc
			hctx, cancel = context.WithTimeout(ctx, p.handshake)
			defer cancel()
		}
		tc := tls.Client(nc, p.tls)
		if err := tc.HandshakeContext(hctx); err != nil {
			_ = nc.Close()
			return nil, err
		}
		nc = tc
	}
	return &conn{nc: nc, br: bufio.NewReader(nc), bw: bufio.NewWriter(nc)}, nil
}

// put keeps c for another call, or closes it when maxIdle are kept.
func (p *conns) put(c *conn) {
	c.used = time.Now()
	p.mu.Lock()
	if len(p.idle) >= p.maxIdle {
		p.mu.Unlock()
		p.close(c)
		return
	}
	p.idle = append(p.idle, c)
	if p.idleTimeout > 0 && p.sweep == nil {
		p.sweep = time.AfterFunc(p.idleTimeout, p.closeIdle)
	}
	p.mu.Unlock()
	select {
	case p.kept <- struct{}{}:
	default:
	}
}

// closeIdle closes the connections unused for idleTimeout, and is set to run
// again when the oldest left will have been.
func (p *conns) closeIdle() {
	now := time.Now()
	p.mu.Lock()
	defer p.mu.Unlock()
	n := 0
	for n < len(p.idle) && now.Sub(p.idle[n].used) >= p.idleTimeout {
		p.close(p.idle[n])
		n++
	}
	left := copy(p.idle, p.idle[n:])
	clear(p.idle[left:])
	p.idle = p.idle[:left]
	if left == 0 {
		p.sweep = nil
		return
	}
	p.sweep = time.AfterFunc(p.idleTimeout-now.Sub(p.idle[0].used), p.closeIdle)
}

// connBody is an answer's body: read to its end, it gives its connection
// back (unless the answer said to close it, or the request's context ended
// meanwhile); closed before, it closes the connection.
type connBody struct {
	io.ReadCloser
	p    *conns
	c    *conn
	stop func() bool
	keep bool
	done bool
}

func (b *connBody) Read(buf []byte) (int, error) {
	if b.done {
		return 0, io.EOF
	}
	n, err := b.ReadCloser.Read(buf)
	if err == io.EOF {
		b.release(true)
	} else if err != nil {
		b.release(false)
	}
	return n, err
}

func (b *connBody) Close() error {
	if !b.done {
		b.release(false)
	}
	return nil
}

func (b *connBody) release(whole bool) {
	b.done = true
	if b.stop() && whole && b.keep {
		b.p.put(b.c)
		return
	}
	b.p.close(b.c)
}
