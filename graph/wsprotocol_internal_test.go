package graph

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestWSRuleOperationIDs: gqlgen sees a fresh id for each operation and the
// client its own; once an operation has ended (the client's complete, or the
// server's complete or error) nothing more of it reaches the client, even
// when the client has started another under the same id.
func TestWSRuleOperationIDs(t *testing.T) {
	r := newWSRule("graphql-transport-ws")
	in := func(text string) string {
		t.Helper()
		pass, answer, refused := r.inbound([]byte(text))
		if refused != nil || answer != nil {
			t.Fatalf("%s: answered %s, refused %v", text, answer, refused)
		}
		return string(pass)
	}
	out := func(id, typ string) string {
		t.Helper()
		b, _ := r.outbound(mustMarshal(wsMessage{ID: id, Type: typ, Payload: []byte(`{}`)}))
		return string(b)
	}
	in(`{"type":"connection_init"}`)
	if got := in(`{"id":"a","type":"subscribe","payload":{}}`); got != `{"id":"1","type":"subscribe","payload":{}}` {
		t.Fatalf("subscribe a went to gqlgen as %s", got)
	}
	if got := out("1", "next"); got != `{"id":"a","type":"next","payload":{}}` {
		t.Fatalf("gqlgen's next for 1 reached the client as %s", got)
	}
	if got := in(`{"id":"a","type":"complete"}`); got != `{"id":"1","type":"complete"}` {
		t.Fatalf("complete a went to gqlgen as %s", got)
	}
	in(`{"id":"a","type":"subscribe","payload":{}}`) // a again, as 2
	for _, typ := range []string{"next", "complete"} {
		if got := out("1", typ); got != "" {
			t.Fatalf("the first a's %s reached the client: %s", typ, got)
		}
	}
	if got := out("2", "next"); got != `{"id":"a","type":"next","payload":{}}` {
		t.Fatalf("the second a's next: %s", got)
	}
	if got := out("2", "error"); got != `{"id":"a","type":"error","payload":{}}` {
		t.Fatalf("the second a's error: %s", got)
	}
	if got := out("2", "complete"); got != "" {
		t.Fatalf("a complete after an error reached the client: %s", got)
	}
	if got := in(`{"id":"a","type":"complete"}`); got != "" {
		t.Fatalf("completing an ended operation went to gqlgen: %s", got)
	}
	if len(r.ops) != 0 || len(r.ids) != 0 {
		t.Fatalf("ended operations are remembered: %v %v", r.ops, r.ids)
	}
	if b, acked := r.outbound([]byte(`{"type":"connection_ack"}`)); !acked || string(b) != `{"type":"connection_ack"}` {
		t.Fatalf("connection_ack: %s %v", b, acked)
	}
}

// TestWSRuleLongReason: a close reason is cut to what a close frame holds.
func TestWSRuleLongReason(t *testing.T) {
	r := newWSRule("graphql-transport-ws")
	r.inbound([]byte(`{"type":"connection_init"}`))
	id := fmt.Sprintf("%0200d", 7)
	r.inbound([]byte(`{"id":"` + id + `","type":"subscribe","payload":{}}`))
	_, _, refused := r.inbound([]byte(`{"id":"` + id + `","type":"subscribe","payload":{}}`))
	if refused == nil || refused.code != closeSubscriberExists || len(refused.reason) != 123 || refused.reason[:20] != "Subscriber for 00000" {
		t.Fatalf("a duplicate id: %+v, want 4409 and the reason's first 123 bytes", refused)
	}
	if r := refusal(4400, strings.Repeat("é", 100)); len(r.reason) != 122 || !utf8.ValidString(r.reason) {
		t.Fatalf("a reason cut inside a character: %d bytes, valid %v", len(r.reason), utf8.ValidString(r.reason))
	}
}

// BenchmarkWSRuleOutbound: what wsRule adds to each message gqlgen sends
// (decoding its envelope and writing it again under the client's id), beside
// encoding the message in the first place.
func BenchmarkWSRuleOutbound(b *testing.B) {
	for _, size := range []int{2 << 10, 64 << 10} {
		payload := mustMarshal(map[string]any{"data": map[string]any{"calendarChanges": strings.Repeat("x", size)}})
		msg := wsMessage{ID: "1", Type: "next", Payload: payload}
		b.Run(fmt.Sprintf("encode-%dKiB", size>>10), func(b *testing.B) {
			for b.Loop() {
				mustMarshal(msg)
			}
		})
		b.Run(fmt.Sprintf("rule-%dKiB", size>>10), func(b *testing.B) {
			r := newWSRule("graphql-transport-ws")
			r.inbound([]byte(`{"type":"connection_init"}`))
			r.inbound([]byte(`{"id":"a","type":"subscribe","payload":{}}`))
			enc := mustMarshal(msg)
			for b.Loop() {
				if out, _ := r.outbound(enc); out == nil {
					b.Fatal("dropped")
				}
			}
		})
	}
}
