package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"
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
	requests int
	clients  int           // sending at once
	wall     time.Duration // from the first measured request to the last answer
	cpu      time.Duration // the server process's, over all requests
	// storeCPU is DynamoDB Local's process's over the same window, when
	// storeMeasured. It counts whatever else DynamoDB Local served then:
	// the other servers' background polls, idle while one is measured.
	storeCPU      time.Duration
	storeMeasured bool
	latencies     []time.Duration
	calls         int // DynamoDB calls
	// counted is how long calls were counted for: the requests' latencies
	// one at a time, the wall time with concurrent clients. The server's
	// idle call rate over it estimates the background calls among calls.
	counted time.Duration
	// background is the server's idle call rate (target.idleCalls) times
	// counted: the calls its polls would have made meanwhile without a
	// request, left out of calls per view.
	background  float64
	lost        int // of which DynamoDB never answered: the server retried them (its answer was whole)
	waves       int // sequential rounds of DynamoDB calls, summed per request; not counted with concurrent clients
	itemsRead   int // items DynamoDB read
	bytesRead   int // bytes of DynamoDB's answers
	returned    int // items in the GraphQL answers
	answerBytes int // bytes of the GraphQL answers
	runtime     *runtimeDelta
	// rss and peakRSS are the server process's resident set after the
	// sample's requests and its highest so far (VmRSS, VmHWM), in bytes.
	rss, peakRSS uint64
}

// runtimeDelta is what the server's runtime counted during a sample; only
// binaries with a debug listener tell.
type runtimeDelta struct {
	mallocs, allocBytes, gcs, goroutines uint64
}

// measure sends warmUps requests of v (for warmUpTime at least), then n
// measured ones from clients concurrent clients (one at a time for 1), and
// returns their cost. v counts what the answers return.
func measure(ctx context.Context, t *target, calendars int, v view, n, clients int, tick time.Duration) (s sample, err error) {
	s = sample{requests: n, clients: clients, latencies: make([]time.Duration, 0, n)}
	for start, i := time.Now(), 0; i < warmUps || time.Since(start) < warmUpTime; i++ {
		if err := t.request(ctx, calendars, v, &sample{}); err != nil {
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
	var store0, store1 time.Duration
	if t.storePID != 0 {
		if store0, err = processCPU(t.storePID, tick); err != nil {
			return s, err
		}
	}
	cpu0, err := processCPU(pid, tick)
	if err != nil {
		return s, err
	}
	start := time.Now()
	if err := t.load(ctx, calendars, v, n, clients, &s); err != nil {
		return s, err
	}
	s.wall = time.Since(start)
	s.background = t.idleCalls * s.counted.Seconds()
	cpu1, err := processCPU(pid, tick)
	if err != nil {
		return s, err
	}
	s.cpu = cpu1 - cpu0
	if s.rss, s.peakRSS, err = processMemory(pid); err != nil {
		return s, err
	}
	if t.storePID != 0 {
		if store1, err = processCPU(t.storePID, tick); err != nil {
			return s, err
		}
		s.storeCPU, s.storeMeasured = store1-store0, true
	}
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

// request sends one request and adds what it cost to s: its DynamoDB calls
// and their waves too, the only request in flight (none counted without a
// proxy, on the embedded store).
func (t *target) request(ctx context.Context, calendars int, v view, s *sample) error {
	if t.proxy == nil {
		return t.answer(ctx, calendars, v, s)
	}
	t.proxy.Reset()
	start := time.Now()
	if err := t.answer(ctx, calendars, v, s); err != nil {
		return err
	}
	calls := t.proxy.Calls()
	s.counted += time.Since(start)
	s.waves += waves(calls)
	return t.count(calls, v, s)
}

// load sends n requests from clients concurrent clients (one at a time for
// 1), and adds what they cost to s: the DynamoDB calls of them all, whose
// waves cannot be told apart.
func (t *target) load(ctx context.Context, calendars int, v view, n, clients int, s *sample) error {
	if clients <= 1 {
		for range n {
			if err := t.request(ctx, calendars, v, s); err != nil {
				return err
			}
		}
		return nil
	}
	if t.proxy != nil {
		t.proxy.Reset()
	}
	start := time.Now()
	var mu sync.Mutex
	var sent atomic.Int64
	g, ctx := errgroup.WithContext(ctx)
	for range clients {
		g.Go(func() error {
			for sent.Add(1) <= int64(n) {
				var one sample
				if err := t.answer(ctx, calendars, v, &one); err != nil {
					return err
				}
				mu.Lock()
				s.latencies = append(s.latencies, one.latencies...)
				s.returned += one.returned
				s.answerBytes += one.answerBytes
				mu.Unlock()
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil || t.proxy == nil {
		return err
	}
	calls := t.proxy.Calls()
	s.counted += time.Since(start)
	return t.count(calls, v, s)
}

// answer sends one request and adds its latency and what it returned to s.
// The answer must be HTTP 200 without errors.
func (t *target) answer(ctx context.Context, calendars int, v view, s *sample) error {
	body := t.body(v, calendars)
	start := time.Now()
	answer, err := t.owner.post(ctx, body)
	latency := time.Since(start)
	if err != nil {
		return fmt.Errorf("%s, view %s: %w", t.bin.label, v.name, err)
	}
	data, err := decodeData(answer)
	if err != nil {
		return fmt.Errorf("%s, view %s: %w", t.bin.label, v.name, err)
	}
	s.latencies = append(s.latencies, latency)
	s.returned += v.returned(data)
	s.answerBytes += len(answer)
	return nil
}

// count adds DynamoDB calls to s; every one must have succeeded, but for
// those DynamoDB never answered (lost), which the server retried: the
// request's answer, already checked, was whole. On a loaded machine
// DynamoDB Local resets a connection now and then; that must not end a run.
func (t *target) count(calls []call, v view, s *sample) error {
	s.calls += len(calls)
	for _, c := range calls {
		if c.Lost {
			s.lost++
			continue
		}
		if c.Err != nil {
			return fmt.Errorf("%s, view %s: DynamoDB %s: %w", t.bin.label, v.name, c.Op, c.Err)
		}
		s.itemsRead += c.Items
		s.bytesRead += c.Bytes
	}
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
