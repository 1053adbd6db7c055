package graph

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/99designs/gqlgen/graphql/handler/transport"

	"github.com/calgraph/calgraph/internal/calendar"
	"github.com/calgraph/calgraph/internal/live"
)

// wsUsers counts each user's connections on this instance.
type wsUsers struct {
	mu    sync.Mutex
	count map[string]int
}

func (u *wsUsers) acquire(user string) bool {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.count[user] >= MaxConnectionsPerUser {
		return false
	}
	u.count[user]++
	return true
}

func (u *wsUsers) release(user string) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.count[user]--; u.count[user] <= 0 {
		delete(u.count, user)
	}
}

// wsSession is one WebSocket connection's state, in its requests' context.
type wsSession struct {
	users *wsUsers
	idle  time.Duration

	mu        sync.Mutex
	user      string // once connection_init signed in
	cancel    context.CancelFunc
	subs      map[*int]context.Context // held subscriptions, by their contexts
	idleTimer *time.Timer
	expiry    *time.Timer // ends the connection when its token expires
	closeCode int         // the code to close with, when calgraph ends the connection
	closeMsg  string
	conn      *sessionConn // once accepted
}

type sessionKey struct{}

func sessionOf(ctx context.Context) *wsSession {
	s, _ := ctx.Value(sessionKey{}).(*wsSession)
	return s
}

// end closes the connection with code (or with the code an earlier end
// gave): once signed in through gqlgen, whose closing ends the connection's
// subscriptions, and before that (gqlgen waits for connection_init, deaf to
// its context) directly.
func (s *wsSession) end(code int, msg string) {
	s.mu.Lock()
	if s.closeCode == 0 {
		s.closeCode, s.closeMsg = code, msg
	}
	cancel, conn := s.cancel, s.conn
	code, msg = s.closeCode, s.closeMsg
	s.mu.Unlock()
	switch {
	case cancel != nil:
		cancel()
	case conn != nil:
		_ = conn.WriteClose(code, msg)
	}
}

// closeWith returns the code and reason to close with: the first calgraph
// gave (end, or an earlier closeWith), else code and msg, which become it.
func (s *wsSession) closeWith(code int, msg string) (int, string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closeCode == 0 {
		s.closeCode, s.closeMsg = code, msg
	}
	return s.closeCode, s.closeMsg
}

// holdSubscription counts a subscription on its connection, refusing one
// past the limit; release uncounts it. A subscription stops counting towards
// the limit as soon as its context ends, before its goroutine has wound down
// and released it: gqlgen cancels that context as it reads the client's
// `complete`, before it reads the next message, and a client may start
// another subscription at once (it is told nothing more of the one it
// completed, wsRule).
func holdSubscription(ctx context.Context) (release func(), err error) {
	s := sessionOf(ctx)
	if s == nil {
		return nil, calendar.Invalidf("", "subscriptions run over WebSocket (graphql-transport-ws)")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	live := 0
	for _, c := range s.subs {
		if c.Err() == nil {
			live++
		}
	}
	if live >= MaxSubscriptionsPerConnection {
		return nil, calendar.Errorf(calendar.CodeTooManySubscriptions, "a connection holds at most %d subscriptions", MaxSubscriptionsPerConnection)
	}
	if s.subs == nil {
		s.subs = map[*int]context.Context{}
	}
	held := new(int)
	s.subs[held] = ctx
	if s.idleTimer != nil {
		s.idleTimer.Stop()
	}
	var once sync.Once
	return func() {
		once.Do(func() {
			s.mu.Lock()
			defer s.mu.Unlock()
			if delete(s.subs, held); len(s.subs) == 0 && s.idleTimer != nil {
				s.idleTimer.Reset(s.idle)
			}
		})
	}, nil
}

// subscriptionEnded reports why a subscription's deliveries stopped: a slow
// client's connection is closed; other failures end the subscription with
// an error.
func (r *Resolver) subscriptionEnded(ctx context.Context, err error) {
	switch {
	case err == nil:
	case errors.Is(err, live.ErrTooSlow):
		if s := sessionOf(ctx); s != nil {
			s.end(closeTooSlow, "too slow: deliveries were not read in time")
		}
	default:
		transport.AddSubscriptionError(ctx, r.present(ctx, err))
	}
}

// hangUp closes the session's socket once gqlgen's transport has returned:
// a no-op when gqlgen closed it (or its close handshake is under way), and
// otherwise the only thing that would.
func (s *wsSession) hangUp() {
	s.mu.Lock()
	c := s.conn
	s.mu.Unlock()
	if c == nil {
		return
	}
	c.pending.take(c)
	c.initTimer.Stop()
	_ = c.WebsocketConn.Close()
}
