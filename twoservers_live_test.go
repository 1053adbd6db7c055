package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	coderws "github.com/coder/websocket"

	"github.com/calgraph/calgraph/internal/dynamo"
	"github.com/calgraph/calgraph/internal/dynamotest"
)

// TestLiveAcrossServers: two servers on one DynamoDB table; a subscriber on
// the second, over graphql-transport-ws, receives the writes made through
// the first, which the second finds in the table's recent writes (its sweep
// is an hour away: no other way would bring them in time).
func TestLiveAcrossServers(t *testing.T) {
	if os.Getenv(dynamotest.EnvEndpoint) == "" {
		t.Skip("two servers share a table on DynamoDB Local only (set " + dynamotest.EnvEndpoint + ")")
	}
	dir, table := t.TempDir(), fmt.Sprintf("live%d", time.Now().UnixNano())
	t.Cleanup(func() { // after both servers stopped
		if err := dynamo.DeleteTable(context.Background(), dynamotest.Client(t), table); err != nil {
			t.Error(err)
		}
	})
	a := serve(t, settings(t, dir, true, "CALGRAPH_TABLE", table)) // the same data dir: the same dev signing key
	b := serve(t, settings(t, dir, true, "CALGRAPH_TABLE", table, "CALGRAPH_LIVE_SWEEP", "1h"))
	out := a.query(t, `mutation { createCalendar(input: {name: "Shared"}) { calendar { id } } }`)
	cal := field(out, "data", "createCalendar", "calendar", "id").(string)

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	conn, _, err := coderws.Dial(ctx, "ws"+strings.TrimPrefix(b.url, "http")+"/query",
		&coderws.DialOptions{Subprotocols: []string{"graphql-transport-ws"}})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.CloseNow()
	send := func(msg map[string]any) {
		m, _ := json.Marshal(msg)
		if err := conn.Write(ctx, coderws.MessageText, m); err != nil {
			t.Fatal(err)
		}
	}
	send(map[string]any{"type": "connection_init", "payload": map[string]string{"Authorization": "Bearer " + b.token}})
	send(map[string]any{"type": "subscribe", "id": "1", "payload": map[string]any{
		"query":     `subscription($c: [ID!]) { calendarChanges(calendarIds: $c) { kind changes { node { ... on Task { title } } } } }`,
		"variables": map[string]any{"c": []string{cal}}}})
	titles := make(chan string, 100)
	go func() {
		defer close(titles)
		for {
			_, m, err := conn.Read(ctx)
			if err != nil {
				return
			}
			var msg struct{ Type string }
			_ = json.Unmarshal(m, &msg)
			switch msg.Type {
			case "ping":
				_ = conn.Write(ctx, coderws.MessageText, []byte(`{"type":"pong"}`))
			case "next", "connection_ack":
			default:
				t.Errorf("got %s", m)
			}
			for _, title := range strings.Split(string(m), `"title":"`)[1:] {
				titles <- title[:strings.IndexByte(title, '"')]
			}
		}
	}()
	write := func(title string) {
		a.query(t, fmt.Sprintf(`mutation { createEntry(input: {calendarId: %q, title: %q, timing: {task: {dueDate: "2026-12-01"}}}) { entry { id } } }`, cal, title))
	}
	// The subscription starts when b registers it, which the protocol does
	// not tell: write until one write comes, then each must.
	for i, registered := 0, false; !registered; i++ {
		write(fmt.Sprint("until registered ", i))
		select {
		case _, ok := <-titles:
			if !ok {
				t.Fatalf("the subscription ended before any delivery: %v", ctx.Err())
			}
			registered = true
		case <-time.After(2 * time.Second):
		}
	}
	for i := range 3 {
		want := fmt.Sprint("write ", i)
		write(want)
		found := false
		for got := range titles {
			if found = got == want; found {
				break
			}
		}
		if !found {
			t.Fatalf("%q never reached the other server: %v", want, ctx.Err())
		}
	}
}
