package graph

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"sync"
	"time"

	"github.com/99designs/gqlgen/graphql/handler/transport"
	coderws "github.com/coder/websocket"

	"github.com/calgraph/calgraph/internal/calendar"
	"github.com/calgraph/calgraph/internal/httpapi"
	"github.com/calgraph/calgraph/internal/live"
)

// Subscriptions run over WebSocket with the graphql-transport-ws protocol
// (and the older graphql-ws, for old clients). The client signs in with the
// `connection_init` payload {"Authorization": "Bearer <token>"} (or the
// upgrade request's Authorization header); a connection that does not is
// closed with 4403. Limits and hygiene:
//   - MaxSubscriptionsPerConnection subscriptions at once on a connection,
//     more fail with TOO_MANY_SUBSCRIPTIONS; MaxConnectionsPerUser
//     connections of one user on one instance, more are closed at
//     connection_init with 4429;
//   - the server pings every wsPingInterval and closes a connection whose
//     client has not answered within twice that;
//   - a connection without a subscription for wsIdleTimeout is closed (1000);
//   - a connection ends (4403) when the token it signed in with expires: the
//     client signs in again and resumes with its sync tokens;
//   - a subscriber that falls behind (its client reads deliveries more
//     slowly than they come, live.ErrTooSlow) is closed with 1008; one whose
//     single write blocks for wsWriteTimeout (a client that stopped reading)
//     is cut off at once, as no close frame can reach it;
//   - when a connection ends, its subscriptions end with it, and nothing of
//     them is left running (TestSubscriptionsLeaveNothingBehind).
const (
	MaxSubscriptionsPerConnection = 20
	MaxConnectionsPerUser         = 10

	wsPingInterval = 25 * time.Second
	wsIdleTimeout  = 5 * time.Minute
	wsInitTimeout  = 10 * time.Second
	wsWriteTimeout = 10 * time.Second

	closeForbidden       = 4403 // graphql-transport-ws: the connection_init was refused
	closeTooManyRequests = 4429
	closeTooSlow         = 1008 // RFC 6455 policy violation
	closeGoingAway       = 1001
)

// LiveOptions turn subscriptions on.
type LiveOptions struct {
	Hub *live.Hub
	// Authenticate returns ctx with the viewer of an Authorization value
	// ("Bearer <token>"), or with the reason there is none.
	Authenticate func(ctx context.Context, authorization string) context.Context
	// AllowedOrigins are the origins (as for CORS) whose pages may open
	// WebSockets besides the server's own.
	AllowedOrigins []string
	// Shutdown ends every connection (1001, going away) when it is done:
	// the HTTP server's graceful shutdown does not wait for hijacked ones.
	Shutdown context.Context
	// Timeouts for tests; zero means the defaults above.
	PingInterval, IdleTimeout time.Duration
}

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
}

type sessionKey struct{}

func sessionOf(ctx context.Context) *wsSession {
	s, _ := ctx.Value(sessionKey{}).(*wsSession)
	return s
}

// end closes the connection with code.
func (s *wsSession) end(code int, msg string) {
	s.mu.Lock()
	if s.closeCode == 0 {
		s.closeCode, s.closeMsg = code, msg
	}
	cancel := s.cancel
	s.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}

// holdSubscription counts a subscription on its connection, refusing one
// past the limit; release uncounts it. A subscription stops counting towards
// the limit as soon as its context ends, before its goroutine has wound down
// and released it: gqlgen cancels that context as it reads the client's
// `complete`, and answers `complete` without waiting for the goroutine, so a
// client may start another at once.
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

// websocketTransport is the WebSocket transport with calgraph's sign-in and
// limits.
func websocketTransport(o LiveOptions) transport.Websocket {
	users := &wsUsers{count: map[string]int{}}
	ping, idle := o.PingInterval, o.IdleTimeout
	if ping == 0 {
		ping = wsPingInterval
	}
	if idle == 0 {
		idle = wsIdleTimeout
	}
	var origins []string
	for _, a := range o.AllowedOrigins {
		if u, err := url.Parse(a); err == nil && u.Host != "" {
			origins = append(origins, u.Host)
		} else if a == "*" {
			origins = append(origins, "*")
		}
	}
	return transport.Websocket{
		Implementation:   sessionConns{accept: transport.CoderWebsocketImplementation{AcceptOptions: coderws.AcceptOptions{OriginPatterns: origins}}},
		InitTimeout:      wsInitTimeout,
		PingPongInterval: ping,
		InitFunc: func(ctx context.Context, p transport.InitPayload) (context.Context, *transport.InitPayload, error) {
			if a := p.Authorization(); a != "" && o.Authenticate != nil {
				ctx = o.Authenticate(ctx, a)
			}
			user, err := calendar.ViewerID(ctx)
			if err != nil {
				return transport.WithWebsocketCloseCode(ctx, closeForbidden), nil, err
			}
			if !users.acquire(user) {
				return transport.WithWebsocketCloseCode(ctx, closeTooManyRequests), nil,
					calendar.Errorf(calendar.CodeTooManySubscriptions, "a user holds at most %d connections", MaxConnectionsPerUser)
			}
			s := sessionOf(ctx)
			ctx, cancel := context.WithCancel(ctx)
			s.mu.Lock()
			s.user, s.users, s.idle, s.cancel = user, users, idle, cancel
			s.idleTimer = time.AfterFunc(idle, func() { s.end(transport.WebsocketCloseNormalClosure, "idle") })
			if exp, ok := calendar.SignInExpiry(ctx); ok { // sign in again, and resume
				s.expiry = time.AfterFunc(time.Until(exp), func() { s.end(closeForbidden, "the token expired") })
			}
			s.mu.Unlock()
			return ctx, nil, nil
		},
		CloseFunc: func(ctx context.Context, _ int) {
			s := sessionOf(ctx)
			if s == nil {
				return
			}
			s.mu.Lock()
			defer s.mu.Unlock()
			if s.idleTimer != nil {
				s.idleTimer.Stop()
			}
			if s.expiry != nil {
				s.expiry.Stop()
			}
			if s.cancel != nil {
				s.cancel()
			}
			if s.user != "" {
				s.users.release(s.user)
				s.user = ""
			}
		},
	}
}

// withSessions gives every WebSocket upgrade its session, ended when
// shutdown is done.
func withSessions(shutdown context.Context, next http.Handler) http.Handler {
	if shutdown == nil {
		shutdown = context.Background()
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !httpapi.IsWebSocket(r) {
			next.ServeHTTP(w, r)
			return
		}
		s := &wsSession{}
		ctx, cancel := context.WithCancel(context.WithValue(r.Context(), sessionKey{}, s))
		defer cancel()
		stop := context.AfterFunc(shutdown, func() {
			s.end(closeGoingAway, "the server is shutting down")
			cancel()
		})
		defer stop()
		next.ServeHTTP(w, r.WithContext(ctx))
	})
}

// sessionConns accepts connections that close with their session's code
// and cut off a client whose writes block.
type sessionConns struct {
	accept transport.WebsocketImplementation
}

func (c sessionConns) Accept(w http.ResponseWriter, r *http.Request, o transport.WebsocketAcceptOptions) (transport.WebsocketConn, error) {
	conn, err := c.accept.Accept(w, r, o)
	if err != nil {
		return nil, err
	}
	return &sessionConn{WebsocketConn: conn, session: sessionOf(r.Context())}, nil
}

type sessionConn struct {
	transport.WebsocketConn
	session *wsSession
}

func (c *sessionConn) WriteJSON(v any) error {
	cut := time.AfterFunc(wsWriteTimeout, func() { _ = c.WebsocketConn.Close() })
	defer cut.Stop()
	return c.WebsocketConn.WriteJSON(v)
}

func (c *sessionConn) WriteClose(code int, msg string) error {
	if s := c.session; s != nil {
		s.mu.Lock()
		if s.closeCode != 0 {
			code, msg = s.closeCode, s.closeMsg
		}
		s.mu.Unlock()
	}
	return c.WebsocketConn.WriteClose(code, msg)
}

func (c *sessionConn) SetReadLimit(n int64) {
	if l, ok := c.WebsocketConn.(transport.WebsocketReadLimiter); ok {
		l.SetReadLimit(n)
	}
}

func (c *sessionConn) SetReadDeadline(t time.Time) error {
	if d, ok := c.WebsocketConn.(transport.WebsocketReadDeadliner); ok {
		return d.SetReadDeadline(t)
	}
	return nil
}
