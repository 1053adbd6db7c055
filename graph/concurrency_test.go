package graph_test

import (
	"fmt"
	"strings"
	"sync"
	"testing"
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
// the same version at once: exactly one succeeds.
func TestTwentyClientsUpdateOneEntry(t *testing.T) {
	e := newEnv(t)
	w := e.world("race")
	id := e.createAllDay(w.writer, w.calendarID, "Shared")
	const n = 20
	codes := make([]string, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			codes[i] = e.do(w.writer, `mutation($id: ID!, $t: String!) { updateEntry(input: {id: $id, expectedVersion: 1, title: $t}) { entry { version } } }`,
				map[string]any{"id": id, "t": fmt.Sprint("by ", i)}).code()
		})
	}
	wg.Wait()
	won := 0
	for _, c := range codes {
		switch c {
		case "":
			won++
		case "VERSION_CONFLICT":
		default:
			t.Fatalf("got %s, want success or VERSION_CONFLICT", c)
		}
	}
	if won != 1 {
		t.Fatalf("%d of %d updates with version 1 succeeded, want exactly 1", won, n)
	}
}
