package graph

import (
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"
)

// gqlgenMessage has the shape of the messages gqlgen's transport hands
// sessionConn.WriteJSON (graphqltransportwsMessage): the payload first.
type gqlgenMessage struct {
	Payload json.RawMessage `json:"payload,omitempty"`
	ID      string          `json:"id,omitempty"`
	Type    string          `json:"type"`
}

// discardConn is a connection that encodes what it is given, as
// coder/websocket's adapter does, and sends it nowhere.
type discardConn struct{}

func (discardConn) Close() error                        { return nil }
func (discardConn) NextReader() (int, io.Reader, error) { return 0, nil, io.EOF }
func (discardConn) WriteClose(int, string) error        { return nil }
func (discardConn) Subprotocol() string                 { return "graphql-transport-ws" }
func (discardConn) WriteJSON(v any) error {
	_, err := json.Marshal(v)
	return err
}

// deliveryPayload is a `next` payload of about 2 KiB: a delivery of eight
// entries.
func deliveryPayload() json.RawMessage {
	var changes []string
	for i := range 8 {
		changes = append(changes, `{"type":"ENTRY","id":"RW50cnk6MDFhMjFlYWQtMjczMi03ZDBkLTk3NTAtNzIxNjFjZWU2OGZjOjAxYTIxZWFkLTI5NzItN2U1MC05YTcwLTk3ZTkwYTZmZjNiNA","deleted":false,"node":{"title":"Weekly review `+strings.Repeat("x", i)+`","version":12,"calendar":{"name":"Team"}}}`)
	}
	return json.RawMessage(`{"data":{"calendarChanges":{"kind":"CHANGES","calendarId":"Q2FsZW5kYXI6MDFhMjFlYWQtMjczMi03ZDBkLTk3NTAtNzIxNjFjZWU2OGZj","syncToken":"AQEwMWEyMWVhZC0yNzMyLTdkMGQtOTc1MC03MjE2MWNlZTY4ZmP-gICAgICAgA","changes":[` + strings.Join(changes, ",") + `]}}}`)
}

// BenchmarkWSOutbound: what a connection costs per message gqlgen sends, a
// 2 KiB delivery: encoding it alone (what any connection does), through
// sessionConn (its id rewritten in place, encoded once), and the way it went
// before (encoded, decoded to rewrite its id, encoded again, and once more
// as the bytes handed to the connection), which sessionConn still takes for
// a message that is not of gqlgen's shape.
//
//	go test ./graph -run '^$' -bench WSOutbound -benchmem
func BenchmarkWSOutbound(b *testing.B) {
	payload := deliveryPayload()
	conn := func() *sessionConn {
		r := newWSRule("graphql-transport-ws")
		r.inbound([]byte(`{"type":"connection_init"}`))
		r.inbound([]byte(`{"id":"client-7","type":"subscribe","payload":{}}`))
		return &sessionConn{WebsocketConn: discardConn{}, rule: r, pending: &pendingConns{}, initTimer: time.NewTimer(time.Hour)}
	}
	b.Run("encode", func(b *testing.B) {
		for range b.N {
			if err := (discardConn{}).WriteJSON(&gqlgenMessage{Payload: payload, ID: "1", Type: "next"}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("sessionConn", func(b *testing.B) {
		c := conn()
		for range b.N {
			if err := c.WriteJSON(&gqlgenMessage{Payload: payload, ID: "1", Type: "next"}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("decode-encode", func(b *testing.B) {
		c := conn()
		for range b.N {
			if err := c.WriteJSON(gqlgenMessage{Payload: payload, ID: "1", Type: "next"}); err != nil { // not a pointer: encoded
				b.Fatal(err)
			}
		}
	})
}
