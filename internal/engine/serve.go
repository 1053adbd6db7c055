package engine

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
)

// Server serves a DB's DynamoDB protocol on a loopback port, to callers that
// sign with its credentials only (auth.go), and sweeps expired items in the
// background.
type Server struct {
	db      *DB
	auth    *authenticator
	refused refusals
	srv     *http.Server
	url     string
	served  chan error
	// gate orders every call's calls.Add before Close's calls.Wait: a
	// connection that read its request just before srv.Close still runs its
	// handler afterwards, and must then be refused, not let in behind Wait.
	gate    sync.Mutex
	closed  bool
	calls   sync.WaitGroup
	stop    context.CancelFunc
	swept   chan struct{}
	closing sync.Once
}

// Serve starts serving db on 127.0.0.1 at a free port, sweeping expired
// items every sweepEvery (never when it is 0).
func Serve(db *DB, sweepEvery time.Duration) (*Server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("listen for the embedded engine: %w", err)
	}
	s := &Server{db: db, auth: newAuthenticator(), url: "http://" + ln.Addr().String(), served: make(chan error, 1), swept: make(chan struct{})}
	s.srv = &http.Server{Handler: http.HandlerFunc(s.serveHTTP), ReadHeaderTimeout: 10 * time.Second}
	go func() { s.served <- s.srv.Serve(ln) }()
	ctx, stop := context.WithCancel(context.Background())
	s.stop = stop
	go s.sweep(ctx, sweepEvery)
	return s, nil
}

// URL is the endpoint to give the SDK.
func (s *Server) URL() string { return s.url }

// Credentials are the only credentials the server answers: made at random
// when it started, never written anywhere. Give them to the SDK client.
func (s *Server) Credentials() aws.Credentials { return s.auth.creds }

// DB is the database served.
func (s *Server) DB() *DB { return s.db }

func (s *Server) serveHTTP(w http.ResponseWriter, r *http.Request) {
	if !s.begin() {
		e := &apiError{Type: "ServiceUnavailable", Status: http.StatusServiceUnavailable, Message: "The engine is shutting down"}
		writeAnswer(w, e.Status, e.body())
		return
	}
	defer s.calls.Done()
	body, ok := readBody(w, r)
	if !ok {
		return
	}
	if err := s.auth.verify(r, body); err != nil {
		s.refused.note(s.db.log, err)
		writeAnswer(w, err.Status, err.body())
		return
	}
	s.db.serve(w, r, body)
}

// begin counts a call in, unless Close has begun waiting for the calls.
func (s *Server) begin() bool {
	s.gate.Lock()
	defer s.gate.Unlock()
	if s.closed {
		return false
	}
	s.calls.Add(1)
	return true
}

// Close stops serving: it closes the listener and every connection at once
// (idle kept-alive ones would otherwise hold a graceful shutdown for
// seconds), then waits for the calls under way, whose writes the DB
// finishes. The DB stays open.
func (s *Server) Close() error {
	var err error
	s.closing.Do(func() {
		s.stop()
		<-s.swept
		err = s.srv.Close()
		if serveErr := <-s.served; !errors.Is(serveErr, http.ErrServerClosed) && err == nil {
			err = serveErr
		}
		s.gate.Lock()
		s.closed = true
		s.gate.Unlock()
		s.calls.Wait()
	})
	if err != nil {
		return fmt.Errorf("stop the embedded engine: %w", err)
	}
	return nil
}

func (s *Server) sweep(ctx context.Context, every time.Duration) {
	defer close(s.swept)
	if every <= 0 {
		return
	}
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			s.sweepOnce(ctx)
		}
	}
}

// sweepOnce deletes the expired items. A panic (a damaged page) is logged
// like any failure, and the sweeper goes on.
func (s *Server) sweepOnce(ctx context.Context) {
	var n int
	err := guard(func() (err error) { n, err = s.db.SweepExpired(ctx); return err })
	_, panicked := errors.AsType[*panicError](err)
	switch {
	case panicked:
		s.db.damage(err, "while", "sweeping expired items")
	case err != nil && ctx.Err() == nil:
		s.db.log.Error("sweeping expired items", "err", err)
	case n > 0:
		s.db.log.Debug("swept expired items", "items", n)
	}
}

// refusals counts the calls refused for their signature, and logs them at
// most once a minute: another process calling the engine is worth an
// operator's attention, but must not be able to fill the log.
type refusals struct {
	count  atomic.Int64
	logged atomic.Int64 // when they were last logged, in Unix seconds
}

func (r *refusals) note(log *slog.Logger, err *apiError) {
	r.count.Add(1)
	now, last := time.Now().Unix(), r.logged.Load()
	if now-last < 60 || !r.logged.CompareAndSwap(last, now) {
		return
	}
	log.Warn("embedded engine refused calls not signed by this process: another process on this machine is calling it",
		"refused", r.count.Swap(0), "last", err.Error())
}
