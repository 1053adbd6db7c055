package main

import (
	"slices"
	"time"
)

// result is one row of the report: one binary's view of one data set, over
// every round.
type result struct {
	calendars int
	binary    *binary
	store     string // storeDynamoDB or storeEmbedded
	view      string
	samples   []sample // one per round
	idleCalls float64  // the server's calls per second without requests (target.idleCalls)
}

// requests is the number of measured requests over every round.
func (r *result) requests() int {
	n := 0
	for _, s := range r.samples {
		n += s.requests
	}
	return n
}

// cpuPerView is the server's CPU milliseconds per view in each round, sorted.
func (r *result) cpuPerView() []float64 {
	var ms []float64
	for _, s := range r.samples {
		ms = append(ms, millis(s.cpu)/float64(s.requests))
	}
	slices.Sort(ms)
	return ms
}

// medianCPU is the median over rounds of the server's CPU milliseconds per view.
func (r *result) medianCPU() float64 { return median(r.cpuPerView()) }

// storeCPUPerView is DynamoDB Local's CPU milliseconds per view in each
// round, sorted, and whether it was measured (never on the embedded store,
// whose engine's CPU is the server's).
func (r *result) storeCPUPerView() ([]float64, bool) {
	var ms []float64
	for _, s := range r.samples {
		if !s.storeMeasured {
			return nil, false
		}
		ms = append(ms, millis(s.storeCPU)/float64(s.requests))
	}
	slices.Sort(ms)
	return ms, true
}

// totalCPUPerView is the CPU milliseconds per view of the server and its
// store together in each round, sorted: the server's plus DynamoDB Local's,
// or on the embedded store the server's alone (its engine runs inside it).
// ok is false when DynamoDB Local's was not measured.
func (r *result) totalCPUPerView() (ms []float64, ok bool) {
	for _, s := range r.samples {
		if r.store == storeDynamoDB && !s.storeMeasured {
			return nil, false
		}
		ms = append(ms, millis(s.cpu+s.storeCPU)/float64(s.requests))
	}
	slices.Sort(ms)
	return ms, true
}

// latency is the latency percentile p over every measured request, in
// milliseconds, taken as graph/bench_test.go takes its p50 and p99.
func (r *result) latency(p int) float64 {
	var all []time.Duration
	for _, s := range r.samples {
		all = append(all, s.latencies...)
	}
	if len(all) == 0 {
		return 0
	}
	slices.Sort(all)
	return millis(all[min(len(all)-1, len(all)*p/100)])
}

// throughput is the median over rounds of the views answered per second of
// wall time.
func (r *result) throughput() float64 {
	var rates []float64
	for _, s := range r.samples {
		if s.wall > 0 {
			rates = append(rates, float64(s.requests)/s.wall.Seconds())
		}
	}
	slices.Sort(rates)
	return median(rates)
}

// perView is a count summed over every request, divided by their number.
func (r *result) perView(count func(s sample) int) float64 {
	total := 0
	for _, s := range r.samples {
		total += count(s)
	}
	return float64(total) / float64(r.requests())
}

// runtimePerView is a runtime counter per view, and whether the binary
// reports it.
func (r *result) runtimePerView(count func(d runtimeDelta) uint64) (float64, bool) {
	var total uint64
	for _, s := range r.samples {
		if s.runtime == nil {
			return 0, false
		}
		total += count(*s.runtime)
	}
	return float64(total) / float64(r.requests()), true
}

// median of sorted values; 0 for none.
func median(sorted []float64) float64 {
	n := len(sorted)
	switch {
	case n == 0:
		return 0
	case n%2 == 1:
		return sorted[n/2]
	}
	return (sorted[n/2-1] + sorted[n/2]) / 2
}

func millis(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
