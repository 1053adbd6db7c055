package graph

import (
	"bufio"
	"bytes"
	"container/list"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/99designs/gqlgen/graphql/handler/transport"
)

// sessionConns accepts connections that keep to the protocol (wsRule), close
// with their session's code, wait for connection_init a bounded time among
// a bounded number (pendingConns), and cut off a client whose writes block.
type sessionConns struct {
	server *wsServer
	accept transport.WebsocketImplementation
}

func (c sessionConns) Accept(w http.ResponseWriter, r *http.Request, o transport.WebsocketAcceptOptions) (transport.WebsocketConn, error) {
	hw := &hijackWriter{ResponseWriter: w}
	conn, err := c.accept.Accept(hw, r, o)
	if err != nil {
		return nil, err
	}
	s := sessionOf(r.Context())
	if s == nil {
		s = &wsSession{} // not through wsServer.handler: nothing to share it with
	}
	sc := &sessionConn{WebsocketConn: conn, raw: hw.conn, session: s, pending: c.server.pending, rule: newWSRule(conn.Subprotocol())}
	s.mu.Lock()
	s.conn = sc
	s.mu.Unlock()
	sc.initTimer = time.AfterFunc(c.server.opts.InitTimeout, func() {
		if c.server.pending.take(sc) {
			sc.refuse(refusal(closeInitTimeout, "Connection initialisation timeout"))
		}
	})
	c.server.pending.add(sc) // after the timer: add may refuse sc's elders, which stop theirs
	return sc, nil
}

// sessionConn is gqlgen's connection with wsRule between it and the client.
type sessionConn struct {
	transport.WebsocketConn
	raw       net.Conn // the socket under it
	signedIn  atomic.Bool
	session   *wsSession
	pending   *pendingConns
	rule      *wsRule
	initTimer *time.Timer
	waiting   *list.Element // in pending, until connection_ack (pending.mu)
}

// errRefused ends gqlgen's reading of a connection calgraph closed; as a
// net.ErrClosed, gqlgen takes it for a connection closed on purpose.
var errRefused = fmt.Errorf("refused by the protocol's rules: %w", net.ErrClosed)

func (c *sessionConn) NextReader() (int, io.Reader, error) {
	for {
		kind, r, err := c.WebsocketConn.NextReader()
		if err != nil {
			return kind, r, err
		}
		b, err := io.ReadAll(r)
		if err != nil {
			return kind, nil, err
		}
		pass, answer, refused := c.rule.inbound(b)
		if refused != nil {
			c.refuse(refused)
			return kind, nil, errRefused
		}
		if answer != nil {
			if err := c.write(answer); err != nil {
				return kind, nil, err
			}
		}
		if pass != nil {
			return kind, bytes.NewReader(pass), nil
		}
	}
}

// refuse closes the connection at once with f's code (or with the one
// calgraph ended it with before). gqlgen's reading then fails, and it winds
// the connection down, its subscriptions included.
func (c *sessionConn) refuse(f *wsRefusal) {
	c.pending.take(c)
	c.initTimer.Stop()
	_ = c.WebsocketConn.WriteClose(c.session.closeWith(f.code, f.reason))
	c.cutAfterGrace()
}

// cutAfterGrace closes the socket wsRefuseGrace from now, whether or not the
// client has answered the close frame.
func (c *sessionConn) cutAfterGrace() {
	if c.raw != nil {
		time.AfterFunc(wsRefuseGrace, func() { _ = c.raw.Close() })
	}
}

// wsRefuseGrace is how long a refused client, or one that never signed in,
// has to answer the close frame before its socket is cut. coder/websocket
// waits 5 s for the answer, and a flooding client has no reason to give one:
// a flood would hold five seconds' worth of sockets, where this holds one.
// A signed-in client's connection gets the whole 5 s.
const wsRefuseGrace = time.Second

// hijackWriter keeps the connection an upgrade hijacks, which gqlgen's
// WebSocket adapter keeps to itself.
type hijackWriter struct {
	http.ResponseWriter
	conn net.Conn
}

func (w *hijackWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	conn, rw, err := http.NewResponseController(w.ResponseWriter).Hijack()
	w.conn = conn
	return conn, rw, err
}

func (w *hijackWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// WriteJSON sends a message of gqlgen's as wsRule has the client see it:
// its id rewritten in place (messageHead) and encoded once, or else encoded,
// filtered and sent as bytes.
func (c *sessionConn) WriteJSON(v any) error {
	id, typ, ok := messageHead(v)
	if !ok {
		encodedWrites.Add(1)
		b, err := json.Marshal(v)
		if err != nil {
			return err
		}
		out, acked := c.rule.outbound(b)
		c.acked(acked)
		if out == nil {
			return nil
		}
		return c.write(out)
	}
	clientID, keep, acked := c.rule.route(id.String(), typ.String())
	c.acked(acked)
	if !keep {
		return nil
	}
	if id.String() != "" {
		id.SetString(clientID)
	}
	return c.within(func() error { return c.WebsocketConn.WriteJSON(v) })
}

// encodedWrites counts the messages WriteJSON filtered encoded: none of
// gqlgen's, unless its messages change shape (a test watches it).
var encodedWrites atomic.Int64

// acked notes a connection_ack: the connection no longer waits to sign in.
func (c *sessionConn) acked(acked bool) {
	if acked {
		c.signedIn.Store(true)
		c.pending.take(c)
		c.initTimer.Stop()
	}
}

// write sends one encoded message.
func (c *sessionConn) write(b []byte) error {
	return c.within(func() error { return c.WebsocketConn.WriteJSON(json.RawMessage(b)) })
}

// within runs a write, cutting the connection off if the client does not
// take it within wsWriteTimeout.
func (c *sessionConn) within(write func() error) error {
	cut := time.AfterFunc(wsWriteTimeout, func() { _ = c.WebsocketConn.Close() })
	defer cut.Stop()
	return write()
}

func (c *sessionConn) WriteClose(code int, msg string) error {
	err := c.WebsocketConn.WriteClose(c.session.closeWith(code, msg))
	if !c.signedIn.Load() { // a bad token, say: see wsRefuseGrace
		c.cutAfterGrace()
	}
	return err
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

// pendingConns are an instance's connections waiting for connection_init,
// oldest first, at most max of them.
type pendingConns struct {
	mu    sync.Mutex
	max   int
	order list.List
}

// add counts c as waiting; past max, the oldest waiting is closed.
func (p *pendingConns) add(c *sessionConn) {
	p.mu.Lock()
	var oldest *sessionConn
	if p.order.Len() >= p.max {
		oldest = p.order.Remove(p.order.Front()).(*sessionConn)
		oldest.waiting = nil
	}
	c.waiting = p.order.PushBack(c)
	p.mu.Unlock()
	if oldest != nil {
		oldest.refuse(refusal(closeInitTimeout, "Too many connections are waiting for connection_init"))
	}
}

// take uncounts c, reporting whether it was waiting.
func (p *pendingConns) take(c *sessionConn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if c.waiting == nil {
		return false
	}
	p.order.Remove(c.waiting)
	c.waiting = nil
	return true
}
