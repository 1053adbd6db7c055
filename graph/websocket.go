package graph

import (
	"cmp"
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/99designs/gqlgen/graphql"
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
// closed with 4403. A page may open one from the origins CORS allows
// (httpapi.Origins); others get 403. Limits and hygiene:
//   - MaxSubscriptionsPerConnection subscriptions at once on a connection,
//     more fail with TOO_MANY_SUBSCRIPTIONS; MaxConnectionsPerUser
//     connections of one user on one instance, more are closed at
//     connection_init with 4429;
//   - a connection must send connection_init within wsInitTimeout (else
//     4408), and at most MaxPendingConnections of an instance wait for theirs
//     at once: past that the oldest waiting is closed (4408), so a flood of
//     connections that never sign in holds a bounded number of sockets and
//     cannot keep out clients that do;
//   - a message that breaks the protocol closes the connection with the
//     protocol's code (wsRule: 4400, 4401, 4409, 4429);
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
//     them is left running (TestSubscriptionsLeaveNothingBehind); whatever
//     way gqlgen's transport returns, the socket is closed
//     (TestMalformedInitLeavesNothing).
const (
	MaxSubscriptionsPerConnection = 20
	MaxConnectionsPerUser         = 10
	// MaxPendingConnections bounds the connections of an instance that have
	// not completed connection_init. A client completes it within a round
	// trip, so even a mass reconnection keeps few waiting; past the bound the
	// oldest waiting one is closed rather than the newest refused, so that a
	// flood of connections that never sign in cannot shut out clients that
	// do (they need only sign in before MaxPendingConnections more arrive).
	MaxPendingConnections = 128

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
	PingInterval, IdleTimeout, InitTimeout time.Duration
}

// wsServer is an instance's WebSocket side: its options and the counts its
// limits keep.
type wsServer struct {
	opts    LiveOptions // with the defaults filled in
	present graphql.ErrorPresenterFunc
	origins httpapi.Origins
	users   *wsUsers
	pending *pendingConns
}

func newWSServer(o LiveOptions, present graphql.ErrorPresenterFunc) *wsServer {
	o.PingInterval = cmp.Or(o.PingInterval, wsPingInterval)
	o.IdleTimeout = cmp.Or(o.IdleTimeout, wsIdleTimeout)
	o.InitTimeout = cmp.Or(o.InitTimeout, wsInitTimeout)
	if o.Shutdown == nil {
		o.Shutdown = context.Background()
	}
	return &wsServer{opts: o, present: present, origins: httpapi.NewOrigins(o.AllowedOrigins),
		users: &wsUsers{count: map[string]int{}}, pending: &pendingConns{max: MaxPendingConnections}}
}

// transport is gqlgen's WebSocket transport with calgraph's sign-in, limits
// and protocol rules. Its own init timeout is off: sessionConns keeps one
// that closes with the protocol's code.
func (ws *wsServer) transport() transport.Websocket {
	o, users, idle := ws.opts, ws.users, ws.opts.IdleTimeout
	return transport.Websocket{
		// The Origin was checked already (handler), with the matcher CORS uses.
		Implementation: sessionConns{server: ws, accept: transport.CoderWebsocketImplementation{
			AcceptOptions: coderws.AcceptOptions{InsecureSkipVerify: true}}},
		PingPongInterval: o.PingInterval,
		InitFunc: func(ctx context.Context, p transport.InitPayload) (context.Context, *transport.InitPayload, error) {
			if a := p.Authorization(); a != "" && o.Authenticate != nil {
				ctx = o.Authenticate(ctx, a)
			}
			user, err := calendar.ViewerID(ctx)
			if err != nil {
				return ws.refuse(ctx, closeForbidden, err)
			}
			if !users.acquire(user) {
				return ws.refuse(ctx, closeTooManyRequests,
					calendar.Errorf(calendar.CodeTooManySubscriptions, "a user holds at most %d connections", MaxConnectionsPerUser))
			}
			s := sessionOf(ctx)
			ctx, cancel := context.WithCancel(ctx)
			s.mu.Lock()
			s.user, s.users, s.idle, s.cancel = user, users, idle, cancel
			s.idleTimer = time.AfterFunc(idle, func() { s.end(transport.WebsocketCloseNormalClosure, "idle") })
			if exp := calendar.ViewerOf(ctx).Expiry; !exp.IsZero() { // sign in again, and resume
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

// refuse ends a connection_init with code and err's message as the client
// may see it (presented as a response's error would be), as the close
// reason (gqlgen's would be "terminated") and the connection_error of the
// older protocol.
func (ws *wsServer) refuse(ctx context.Context, code int, err error) (context.Context, *transport.InitPayload, error) {
	r := refusal(code, ws.present(ctx, err).Message)
	return transport.AppendCloseReason(transport.WithWebsocketCloseCode(ctx, r.code), r.reason), nil, errors.New(r.reason)
}

// handler gives every WebSocket upgrade its session, ended when shutdown is
// done, and closes its socket when gqlgen's transport returns, whether it
// closed it or not (it left one open for ever when a connection_init's
// payload was not an object). An upgrade from an origin CORS does not allow
// is refused (403).
func (ws *wsServer) handler(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !httpapi.IsWebSocket(r) {
			next.ServeHTTP(w, r)
			return
		}
		if !ws.origins.AllowWebSocket(r) {
			writeRequestError(w, http.StatusForbidden, "a page of this origin may not open a WebSocket here (see -cors-origins)")
			return
		}
		s := &wsSession{}
		ctx, cancel := context.WithCancel(context.WithValue(r.Context(), sessionKey{}, s))
		defer cancel()
		stop := context.AfterFunc(ws.opts.Shutdown, func() {
			s.end(closeGoingAway, "the server is shutting down")
			cancel()
		})
		defer stop()
		defer s.hangUp()
		next.ServeHTTP(w, r.WithContext(ctx))
	})
}
