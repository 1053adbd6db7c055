package graph_test

import (
	"encoding/json"
	"fmt"
	"sync/atomic"
	"testing"
	"time"
)

// BenchmarkBookRoom measures the write path issue 5 hardened: an hour's
// booking of a resource calendar (four quarter-hour slot items and a day item
// in the entry's transaction) sent with an idempotency key (the marker in the
// same transaction, then its outcome kept). Every booking takes the next free
// hour, so none clashes.
func BenchmarkBookRoom(b *testing.B) {
	benchmarkRequests(b, roomData, func(e *env, tok string) []byte {
		n := bookings.Add(1)
		start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(n) * time.Hour)
		body, _ := json.Marshal(map[string]any{"query": bookRoom, "variables": map[string]any{
			"c": roomID(e, tok), "k": fmt.Sprint("booking-", n),
			"s": start.Format(time.RFC3339), "e": start.Add(time.Hour).Format(time.RFC3339)}})
		return body
	})
}

const bookRoom = `mutation($c: ID!, $k: String!, $s: DateTime!, $e: DateTime!) {
	createEntry(input: {calendarId: $c, title: "Meeting", timing: {timed: {start: $s, end: $e, timeZone: "Europe/Paris"}}, idempotencyKey: $k}) {
		entry { id version } } }`

var (
	roomTable seededTable
	bookings  atomic.Int64 // the hours booked so far in this process
	room      atomic.Pointer[string]
)

func roomData(b *testing.B, opts []func(*envOptions)) (*env, string) {
	return roomTable.env(b, opts, func(b *testing.B) string {
		name, _, _, _ := benchOwner(b, 0, nil)
		return name
	})
}

// roomID returns the benchmark's resource calendar, creating it on first use.
func roomID(e *env, tok string) string {
	if id := room.Load(); id != nil {
		return *id
	}
	id := str(e.must(tok, `mutation { createCalendar(input: {name: "Room", timeZone: "Europe/Paris", isResource: true}) { calendar { id } } }`, nil),
		"createCalendar.calendar.id")
	room.Store(&id)
	return id
}
