package graph

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strconv"
	"sync"
	"unicode/utf8"
)

// Close codes of graphql-transport-ws
// (https://github.com/enisdenjo/graphql-ws/blob/master/PROTOCOL.md), used
// for the older graphql-ws protocol too, which defines none.
const (
	closeBadRequest        = 4400 // a message that is not JSON, of no known type, or of the wrong shape
	closeUnauthorized      = 4401 // an operation before connection_init
	closeInitTimeout       = 4408 // no connection_init within the init timeout
	closeSubscriberExists  = 4409 // a subscribe with the id of a running operation
	closeTooManyInitialise = 4429 // a second connection_init
)

// wsRule is the message filter between a WebSocket and gqlgen's transport:
// it holds clients to the protocol where gqlgen does not, without forking it.
//
// Inbound, every message is checked before gqlgen reads it, and one that
// breaks the protocol closes the connection with its code (gqlgen answered
// 1002 or nothing, and a connection_init whose payload was not an object left
// the socket open for ever). A ping before connection_init is answered here:
// gqlgen would close on it.
//
// Operation ids are renamed: gqlgen sees a fresh id for each operation, and
// the client its own. gqlgen keeps no ids of its own apart, so that a
// subscription started again under an id the client had completed shared
// gqlgen's bookkeeping with the ending one (and could not be stopped), and it
// answers a client's `complete` with a `complete`, where the protocol wants
// nothing more for that id. Here a client's `complete` forgets the id at once:
// whatever gqlgen still sends under the old operation's id is dropped, and
// the client may use the id again.
type wsRule struct {
	vocab wsVocabulary

	mu          sync.Mutex
	initialised bool              // a connection_init went to gqlgen
	ops         map[string]string // running operations: the client's id to gqlgen's
	ids         map[string]string // gqlgen's id to the client's
	seq         int
}

// wsVocabulary names a protocol's client messages.
type wsVocabulary struct {
	subscribe, stop, terminate string
	ping                       bool // the client may ping (and pong)
}

var (
	transportWS = wsVocabulary{subscribe: "subscribe", stop: "complete", ping: true}
	legacyWS    = wsVocabulary{subscribe: "start", stop: "stop", terminate: "connection_terminate"}
)

func newWSRule(subprotocol string) *wsRule {
	v := legacyWS // gqlgen's choice for a client that names none
	if subprotocol == "graphql-transport-ws" {
		v = transportWS
	}
	return &wsRule{vocab: v, ops: map[string]string{}, ids: map[string]string{}}
}

// wsMessage is a message of either protocol.
type wsMessage struct {
	ID      string          `json:"id,omitempty"`
	Type    string          `json:"type"`
	Payload json.RawMessage `json:"payload,omitempty"`
}

// wsRefusal is why a connection is closed.
type wsRefusal struct {
	code   int
	reason string
}

// refusal is a wsRefusal with reason cut to what a close frame holds (RFC
// 6455: 125 bytes, 2 of them the code): coder/websocket sends no close frame
// at all for a longer one.
func refusal(code int, reason string) *wsRefusal {
	const most = 123
	if len(reason) > most {
		reason = reason[:most]
		for !utf8.ValidString(reason) {
			reason = reason[:len(reason)-1]
		}
	}
	return &wsRefusal{code, reason}
}

// inbound checks a client's message: it returns what gqlgen is to read (nil
// for nothing), what to answer at once (nil for nothing), or why the
// connection ends.
func (r *wsRule) inbound(b []byte) (pass, answer []byte, refused *wsRefusal) {
	var m wsMessage
	if err := json.Unmarshal(b, &m); err != nil || m.Type == "" {
		return nil, nil, refusal(closeBadRequest, "Invalid message: a JSON object with a type")
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	v := r.vocab
	switch {
	case m.Type == "connection_init":
		if !objectOrNone(m.Payload) {
			return nil, nil, refusal(closeBadRequest, "Invalid connection_init: its payload must be an object")
		}
		if r.initialised {
			return nil, nil, refusal(closeTooManyInitialise, "Too many initialisation requests")
		}
		r.initialised = true
	case m.Type == v.subscribe || m.Type == v.stop:
		if !r.initialised {
			return nil, nil, refusal(closeUnauthorized, "Unauthorized")
		}
		if m.ID == "" {
			return nil, nil, refusal(closeBadRequest, "Invalid "+m.Type+": it needs an id")
		}
		if m.Type == v.stop {
			return r.stop(m), nil, nil
		}
		return r.subscribe(m)
	case v.ping && (m.Type == "ping" || m.Type == "pong"):
		if !objectOrNone(m.Payload) {
			return nil, nil, refusal(closeBadRequest, "Invalid "+m.Type+": its payload must be an object")
		}
		if !r.initialised { // gqlgen reads neither before connection_init
			if m.Type == "ping" {
				return nil, mustMarshal(wsMessage{Type: "pong", Payload: m.Payload}), nil
			}
			return nil, nil, nil
		}
	case m.Type == v.terminate:
	default:
		return nil, nil, refusal(closeBadRequest, "Invalid message type "+strconv.Quote(m.Type))
	}
	return mustMarshal(m), nil, nil
}

// subscribe starts operation m.ID under a fresh id of gqlgen's.
func (r *wsRule) subscribe(m wsMessage) ([]byte, []byte, *wsRefusal) {
	if !object(m.Payload) {
		return nil, nil, refusal(closeBadRequest, "Invalid "+m.Type+": its payload must be an object")
	}
	if _, ok := r.ops[m.ID]; ok {
		return nil, nil, refusal(closeSubscriberExists, "Subscriber for "+m.ID+" already exists")
	}
	r.seq++
	op := strconv.Itoa(r.seq)
	r.ops[m.ID], r.ids[op] = op, m.ID
	m.ID = op
	return mustMarshal(m), nil, nil
}

// stop ends operation m.ID for the client at once, and asks gqlgen to stop
// it; one that has ended already needs nothing.
func (r *wsRule) stop(m wsMessage) []byte {
	op, ok := r.ops[m.ID]
	if !ok {
		return nil
	}
	delete(r.ops, m.ID)
	delete(r.ids, op)
	m.ID = op
	return mustMarshal(m)
}

// outbound takes a message gqlgen sends, encoded, and returns it as the
// client is to see it, or nil when the client is to see nothing of it (see
// route). sessionConn.WriteJSON takes gqlgen's messages unencoded, without
// it (messageHead).
func (r *wsRule) outbound(b []byte) (out []byte, acked bool) {
	var m wsMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return b, false // not gqlgen's kind of message; as it is
	}
	id, keep, acked := r.route(m.ID, m.Type)
	switch {
	case !keep:
		return nil, false
	case m.ID == "":
		return b, acked
	}
	m.ID = id
	return mustMarshal(m), false
}

// route says what becomes of a message of type typ gqlgen sends under its
// operation id ("" for the connection's own messages): the client sees it
// under clientID, or not at all (keep false) when its operation has ended
// (completed by the client, or by an earlier `complete` or `error`). acked
// tells a connection_ack.
func (r *wsRule) route(id, typ string) (clientID string, keep, acked bool) {
	if id == "" {
		return "", true, typ == "connection_ack"
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	clientID, keep = r.ids[id]
	if keep && (typ == "complete" || typ == "error") { // the operation's last message
		delete(r.ids, id)
		delete(r.ops, clientID)
	}
	return clientID, keep, false
}

// messageHead returns the id and type fields of a message gqlgen hands
// WriteJSON (a pointer to a struct of its transport, made for that one
// write), so that its id is rewritten in place and the message encoded once.
// Decoding the encoded message and encoding it again cost three times what
// encoding it does (BenchmarkWSOutbound: about 60 µs more for a 2 KiB
// delivery). ok is false for anything else, which takes outbound's way.
func messageHead(v any) (id, typ reflect.Value, ok bool) {
	p := reflect.ValueOf(v)
	if p.Kind() != reflect.Pointer || p.IsNil() || p.Elem().Kind() != reflect.Struct {
		return id, typ, false
	}
	id, typ = p.Elem().FieldByName("ID"), p.Elem().FieldByName("Type")
	ok = id.IsValid() && typ.IsValid() && id.Kind() == reflect.String && typ.Kind() == reflect.String && id.CanSet()
	return id, typ, ok
}

// object reports whether p is a JSON object.
func object(p json.RawMessage) bool {
	p = bytes.TrimLeft(p, " \t\r\n")
	return len(p) > 0 && p[0] == '{'
}

// objectOrNone reports whether p is a JSON object, null, or absent.
func objectOrNone(p json.RawMessage) bool {
	return len(p) == 0 || string(bytes.TrimSpace(p)) == "null" || object(p)
}

func mustMarshal(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // a wsMessage of valid JSON parts always marshals
	}
	return b
}
