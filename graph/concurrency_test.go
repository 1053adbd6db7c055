package graph_test

import (
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

// TestFiftyClientsBookOneSlot has 50 clients book the same hour of a
// resource calendar at once, through the HTTP handler: exactly one gets it,
// 49 get SLOT_CONFLICT naming the booking, and the stored slots are exactly
// the stored entries' (the table is checked when the test ends).
func TestFiftyClientsBookOneSlot(t *testing.T) {
	e := newEnv(t)
	owner := e.token("rooms@example.com")
	room := str(e.must(owner, `mutation { createCalendar(input: {name: "Room 101", timeZone: "Europe/Paris", isResource: true}) { calendar { id } } }`, nil),
		"createCalendar.calendar.id")
	const n = 50
	results := make([]response, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			results[i] = e.do(owner, `mutation($c: ID!, $t: String!) { createEntry(input: {calendarId: $c, title: $t,
				timing: {timed: {start: "2026-03-02T09:00:00Z", end: "2026-03-02T10:00:00Z", timeZone: "Europe/Paris"}}}) { entry { id } } }`,
				map[string]any{"c": room, "t": fmt.Sprint("booking ", i)})
		})
	}
	wg.Wait()
	won, winner := 0, ""
	for _, r := range results {
		if r.code() == "" {
			won++
			winner = str(r.Data, "createEntry.entry.id")
		}
	}
	if won != 1 {
		t.Fatalf("%d of %d clients booked the slot, want exactly 1", won, n)
	}
	for _, r := range results {
		if r.code() == "" {
			continue
		}
		if r.code() != "SLOT_CONFLICT" || !strings.Contains(r.Raw, winner) {
			t.Fatalf("a losing client got %s, want SLOT_CONFLICT naming %s", r.Raw, winner)
		}
	}
}

// TestTwentyClientsUpdateOneEntry has 20 clients update the same entry with
// the same version at once, through the HTTP handler, every one of them
// having read the entry before any writes it (writeBarrier): exactly one
// update applies, the other 19 get VERSION_CONFLICT, and the entry is left
// with the winner's title at the next version. A store that compared the
// version only after its read, not in its write's condition, would apply all.
func TestTwentyClientsUpdateOneEntry(t *testing.T) {
	const n = 20
	barrier := newWriteBarrier(n)
	e := newEnv(t, func(o *envOptions) { o.client = append(o.client, barrier.option()) })
	w := e.world("race")
	id := e.createAllDay(w.writer, w.calendarID, "Shared")
	results := make([]response, n)
	barrier.arm()
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			results[i] = e.do(w.writer, `mutation($id: ID!, $t: String!) { updateEntry(input: {id: $id, expectedVersion: 1, title: $t}) { entry { title version } } }`,
				map[string]any{"id": id, "t": fmt.Sprint("by ", i)})
		})
	}
	wg.Wait()
	if got := barrier.arrived.Load(); got < n {
		t.Fatalf("%d of %d updates reached their write, want all: the race was not set up", got, n)
	}
	won, title := 0, ""
	for i, r := range results {
		switch r.code() {
		case "":
			won, title = won+1, fmt.Sprint("by ", i)
			if got, v := str(r.Data, "updateEntry.entry.title"), num(r.Data, "updateEntry.entry.version"); got != title || v != 2 {
				t.Errorf("the winning update returned title %q at version %d, want %q at version 2", got, v, title)
			}
		case "VERSION_CONFLICT":
		default:
			t.Fatalf("got %s, want success or VERSION_CONFLICT", r.Raw)
		}
	}
	if won != 1 {
		t.Fatalf("%d of %d updates with version 1 succeeded, want exactly 1", won, n)
	}
	d := e.must(w.writer, `query($id: ID!) { node(id: $id) { ... on Entry { title version } } }`, map[string]any{"id": id})
	if got, v := str(d, "node.title"), num(d, "node.version"); got != title || v != 2 {
		t.Fatalf("stored entry has title %q at version %d, want the winner's %q at version 2", got, v, title)
	}
}

// writeBarrier holds every TransactWriteItems call, once armed, until n have
// arrived (or ten seconds have passed), so that n concurrent requests have
// all read what they are about to write before any of them writes: the
// interleaving that a check made only in Go after the read lets through.
type writeBarrier struct {
	n       int32
	armed   atomic.Bool
	arrived atomic.Int32
	all     chan struct{}
}

func newWriteBarrier(n int32) *writeBarrier { return &writeBarrier{n: n, all: make(chan struct{})} }

// arm starts holding writes; the setup's writes before it pass freely.
func (b *writeBarrier) arm() { b.armed.Store(true) }

// option returns the client option that holds the writes.
func (b *writeBarrier) option() func(*dynamodb.Options) {
	return beforeOperation("TransactWriteItems", func() {
		if !b.armed.Load() {
			return
		}
		if b.arrived.Add(1) == b.n {
			close(b.all)
		}
		select {
		case <-b.all:
		case <-time.After(10 * time.Second): // a request that never writes fails the test, not hangs it
		}
	})
}
