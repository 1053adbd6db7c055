package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"
)

// warmUps is how many requests at least precede each measurement, for
// warmUpTime at least: they fill the server's identity, query and view caches
// (a server caches views of a calendar revision it has seen for a second,
// internal/dynamo/viewcache.go) and warm DynamoDB Local.
const (
	warmUps    = 20
	warmUpTime = 1500 * time.Millisecond
)

// sample is what one binary's requests of one view cost in one round; the
// counts are totals over its requests.
type sample struct {
	requests    int
	cpu         time.Duration // the server process's, over all requests
	latencies   []time.Duration
	calls       int // DynamoDB calls
	waves       int // sequential rounds of DynamoDB calls, summed per request
	itemsRead   int // items DynamoDB read
	bytesRead   int // bytes of DynamoDB's answers
	returned    int // items in the GraphQL answers
	answerBytes int // bytes of the GraphQL answers
	runtime     *runtimeDelta
}

// runtimeDelta is what the server's runtime counted during a sample; only
// binaries with a debug listener tell.
type runtimeDelta struct {
	mallocs, allocBytes, gcs, goroutines uint64
}

// measure sends warmUps requests of body (for warmUpTime at least), then n
// measured ones, one at a time, and returns their cost. v counts what the answers return.
func measure(ctx context.Context, t *target, body []byte, v view, n int, tick time.Duration) (s sample, err error) {
	s = sample{requests: n, latencies: make([]time.Duration, 0, n)}
	for start, i := time.Now(), 0; i < warmUps || time.Since(start) < warmUpTime; i++ {
		if err := t.request(ctx, body, v, &sample{}); err != nil {
			return s, err
		}
	}
	// The runtime counters are read outside the CPU window: serving them
	// costs a stop of the world.
	debug := t.srv.debugURL != ""
	var before, after runtimeCounters
	if debug {
		if before, err = t.runtimeCounters(ctx); err != nil {
			return s, err
		}
	}
	pid := t.srv.cmd.Process.Pid
	cpu0, err := processCPU(pid, tick)
	if err != nil {
		return s, err
	}
	for range n {
		if err := t.request(ctx, body, v, &s); err != nil {
			return s, err
		}
	}
	cpu1, err := processCPU(pid, tick)
	if err != nil {
		return s, err
	}
	s.cpu = cpu1 - cpu0
	if debug {
		if after, err = t.runtimeCounters(ctx); err != nil {
			return s, err
		}
		s.runtime = &runtimeDelta{
			mallocs:    after.Memstats.Mallocs - before.Memstats.Mallocs,
			allocBytes: after.Memstats.TotalAlloc - before.Memstats.TotalAlloc,
			gcs:        uint64(after.Memstats.NumGC - before.Memstats.NumGC),
			goroutines: *after.GoroutinesCreated - *before.GoroutinesCreated,
		}
	}
	return s, nil
}

// request sends one request and adds what it cost to s. The answer must be
// HTTP 200 without errors, and every DynamoDB call it made must have been
// counted.
func (t *target) request(ctx context.Context, body []byte, v view, s *sample) error {
	t.proxy.Reset()
	start := time.Now()
	answer, err := t.owner.post(ctx, body)
	latency := time.Since(start)
	if err != nil {
		return fmt.Errorf("%s, view %s: %w", t.bin.label, v.name, err)
	}
	calls := t.proxy.Calls()
	data, err := decodeData(answer)
	if err != nil {
		return fmt.Errorf("%s, view %s: %w", t.bin.label, v.name, err)
	}
	s.latencies = append(s.latencies, latency)
	s.calls += len(calls)
	s.waves += waves(calls)
	for _, c := range calls {
		if c.Err != nil {
			return fmt.Errorf("%s, view %s: DynamoDB %s: %w", t.bin.label, v.name, c.Op, c.Err)
		}
		s.itemsRead += c.Items
		s.bytesRead += c.Bytes
	}
	s.returned += v.returned(data)
	s.answerBytes += len(answer)
	return nil
}

// runtimeCounters are the expvar counters a debug listener serves.
type runtimeCounters struct {
	Memstats struct {
		Mallocs, TotalAlloc uint64
		NumGC               uint32
	} `json:"memstats"`
	GoroutinesCreated *uint64 `json:"goroutines_created"`
}

// runtimeCounters reads the server's /debug/vars.
func (t *target) runtimeCounters(ctx context.Context) (runtimeCounters, error) {
	var c runtimeCounters
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, t.srv.debugURL+"/debug/vars", nil)
	if err != nil {
		return c, err
	}
	res, err := httpClient.Do(req)
	if err != nil {
		return c, fmt.Errorf("%s: read /debug/vars: %w", t.bin.label, err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return c, fmt.Errorf("%s: read /debug/vars: HTTP %d", t.bin.label, res.StatusCode)
	}
	if err := json.NewDecoder(res.Body).Decode(&c); err != nil {
		return c, fmt.Errorf("%s: decode /debug/vars: %w", t.bin.label, err)
	}
	if c.GoroutinesCreated == nil {
		return c, errors.New(t.bin.label + ": /debug/vars has no goroutines_created")
	}
	return c, nil
}
