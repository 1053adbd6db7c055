package main

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// report is the benchmark's outcome and how it was obtained.
type report struct {
	command     string
	rev         revisions
	endpoint    string   // DynamoDB Local's
	stores      []string // storeDynamoDB, storeEmbedded
	storePID    int      // DynamoDB Local's process; 0 when its CPU was not measured
	perCalendar int
	requests    int
	rounds      int
	clients     int
	tick        time.Duration
	views       []string
	calendars   []int
	bins        []*binary
	results     []*result
}

// find returns the result of one row, nil when it was not measured.
func (rep *report) find(calendars int, bin *binary, store, view string) *result {
	for _, r := range rep.results {
		if r.calendars == calendars && r.binary == bin && r.store == store && r.view == view {
			return r
		}
	}
	return nil
}

// write prints the report in markdown: how it was run, then one table per
// view and, with two binaries, the ratio of their server CPU.
func (rep *report) write(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# viewbench\n\n    %s\n\n", rep.command)
	fmt.Fprintf(&b, "- now: %s\n", rep.rev.now)
	if rep.rev.before != "" {
		fmt.Fprintf(&b, "- before: %s\n", rep.rev.before)
	}
	for _, store := range rep.stores {
		switch store {
		case storeDynamoDB:
			measured := fmt.Sprintf("its CPU (utime+stime of its process, pid %d) measured around each binary's requests as the server's is", rep.storePID)
			if rep.storePID == 0 {
				measured = "its CPU not measured (no process found listening on its port)"
			}
			fmt.Fprintf(&b, "- store dynamodb: DynamoDB Local at %s, reached by each server through a counting proxy; %s\n", rep.endpoint, measured)
		case storeEmbedded:
			b.WriteString("- store embedded: the embedded default, a data directory per binary; its engine runs in the server's process, so server CPU includes it; " +
				"its calls go over the engine's loopback port without a proxy, so calls, waves, items read and bytes are not counted (–)\n")
		}
	}
	fmt.Fprintf(&b, "- %d entries per calendar\n", rep.perCalendar)
	sending := "one at a time"
	if rep.clients > 1 {
		sending = fmt.Sprintf("from %d concurrent clients (waves per view are then not counted; views/s is the throughput)", rep.clients)
	}
	fmt.Fprintf(&b, "- rounds: %d; in each, each binary in turn (alternating which goes first) gets %d warm-up requests (for %v at least) then %d measured requests of a view, %s\n",
		rep.rounds, warmUps, warmUpTime, rep.requests, sending)
	for _, bin := range rep.bins {
		if bin.cacheBytes != "" {
			fmt.Fprintf(&b, "- %s: -cache-bytes %s (its caches together)\n", bin.label, bin.cacheBytes)
		}
		if bin.cold != "" {
			fmt.Fprintf(&b, "- %s: without its view cache (-cold): every view reads its calendars' entries\n", bin.label)
		}
	}
	for _, bin := range rep.bins {
		if len(bin.quiet) > 0 {
			fmt.Fprintf(&b, "- %s: background polls an hour apart (%s), so that calls and waves per view are the view's own (-background keeps their defaults)\n", bin.label, strings.Join(bin.quiet, " "))
		}
	}
	fmt.Fprintf(&b, "- server CPU: utime+stime of the server process (/proc, clock tick %s), median over rounds [min–max]; latency as the client sees it\n", rep.tick)
	for _, v := range rep.views {
		fmt.Fprintf(&b, "\n## %s\n\n", v)
		b.WriteString("| calendars | store | binary | server CPU ms/view | DynamoDB Local CPU ms/view | server+store CPU ms/view | views/s | p50 ms | p99 ms | DynamoDB calls/view | waves/view | items read/view | items returned/view | read amplification | KB read from DynamoDB/view | response KB/view | allocs/view | KB allocated/view | goroutines/view | GC/view | RSS MiB [peak] |\n")
		b.WriteString("|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
		for _, n := range rep.calendars {
			for _, store := range rep.stores {
				for _, bin := range rep.bins {
					if r := rep.find(n, bin, store, v); r != nil {
						b.WriteString(row(r) + "\n")
					}
				}
			}
		}
		rep.writeRatios(&b, v)
		rep.writeStoreRatios(&b, v)
		rep.writeLost(&b, v)
		rep.writeBackground(&b, v)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeRatios prints, per data set, now's median server CPU over before's,
// and warns when the two do not return the same number of items: then they
// do not do the same work, and the ratio compares unlike things.
func (rep *report) writeRatios(b *strings.Builder, view string) {
	if len(rep.bins) != 2 {
		return
	}
	var parts []string
	for _, n := range rep.calendars {
		for _, store := range rep.stores {
			now, before := rep.find(n, rep.bins[0], store, view), rep.find(n, rep.bins[1], store, view)
			if now == nil || before == nil {
				continue
			}
			if before.medianCPU() > 0 {
				parts = append(parts, fmt.Sprintf("%d calendars on %s %.2f×", n, store, now.medianCPU()/before.medianCPU()))
			}
			returned := func(s sample) int { return s.returned }
			if nowItems, beforeItems := now.perView(returned), before.perView(returned); nowItems != beforeItems {
				fmt.Fprintf(b, "\nWarning: with %d calendars on %s now returns %.1f items per view and before %.1f.\n", n, store, nowItems, beforeItems)
			}
		}
	}
	if len(parts) > 0 {
		fmt.Fprintf(b, "\nServer CPU now/before: %s\n", strings.Join(parts, ", "))
	}
}

// writeStoreRatios prints, per data set and binary run on both stores, the
// embedded default's server+engine CPU over the server's plus DynamoDB
// Local's: what issue 29 asks to be at most 1.
func (rep *report) writeStoreRatios(b *strings.Builder, view string) {
	var parts []string
	for _, n := range rep.calendars {
		for _, bin := range rep.bins {
			embedded, local := rep.find(n, bin, storeEmbedded, view), rep.find(n, bin, storeDynamoDB, view)
			if embedded == nil || local == nil {
				continue
			}
			e, _ := embedded.totalCPUPerView()
			l, ok := local.totalCPUPerView()
			if ok && median(l) > 0 {
				parts = append(parts, fmt.Sprintf("%d calendars, %s %.2f×", n, bin.label, median(e)/median(l)))
			}
		}
	}
	if len(parts) > 0 {
		fmt.Fprintf(b, "\nServer+engine CPU on embedded / server+DynamoDB Local CPU on dynamodb: %s\n", strings.Join(parts, ", "))
	}
}

// writeBackground says how many calls each server made without requests,
// which calls per view leaves out (callsCell).
func (rep *report) writeBackground(b *strings.Builder, view string) {
	var rates []string
	for _, n := range rep.calendars {
		for _, bin := range rep.bins {
			if r := rep.find(n, bin, storeDynamoDB, view); r != nil {
				rates = append(rates, fmt.Sprintf("%s %.1f/s", bin.label, r.idleCalls))
			}
		}
	}
	if len(rates) > 0 {
		fmt.Fprintf(b, "\nBackground calls: without requests (%s idle after seeding) each server made DynamoDB calls of its own, its live hub's, reminders' and webhooks' polls: %s. "+
			"Calls per view leave out that rate over the time calls were counted; waves and items read include the few that fell during a request.\n", idleWindow, strings.Join(rates, ", "))
	}
}

// writeLost says which rows had DynamoDB calls that got no answer and were
// retried by the server (counted among their calls).
func (rep *report) writeLost(b *strings.Builder, view string) {
	for _, r := range rep.results {
		if r.view != view {
			continue
		}
		if lost := r.perView(func(s sample) int { return s.lost }); lost > 0 {
			fmt.Fprintf(b, "\nLost calls: with %d calendars, %s on %s: %d calls got no answer from DynamoDB (the connection reset) and were retried by the server (counted in calls/view).\n",
				r.calendars, r.binary.label, r.store, int(lost*float64(r.requests())+0.5))
		}
	}
}

// row is one table row.
func row(r *result) string {
	cpu := r.cpuPerView()
	read := r.perView(func(s sample) int { return s.itemsRead })
	returned := r.perView(func(s sample) int { return s.returned })
	proxied := func(format string, count func(s sample) int, unit float64) string {
		if r.store == storeEmbedded {
			return "–"
		}
		return fmt.Sprintf(format, r.perView(count)/unit)
	}
	cells := []string{
		fmt.Sprint(r.calendars), r.store, r.binary.label,
		spread(cpu, true),
		spread(r.storeCPUPerView()),
		spread(r.totalCPUPerView()),
		fmt.Sprintf("%.0f", r.throughput()),
		fmt.Sprintf("%.2f", r.latency(50)), fmt.Sprintf("%.2f", r.latency(99)),
		callsCell(r),
		wavesCell(r),
		proxied("%.1f", func(s sample) int { return s.itemsRead }, 1),
		fmt.Sprintf("%.1f", returned), amplificationCell(r, read, returned),
		proxied("%.1f", func(s sample) int { return s.bytesRead }, 1024),
		fmt.Sprintf("%.1f", r.perView(func(s sample) int { return s.answerBytes })/1024),
		runtimeCell(r, "%.0f", 1, func(d runtimeDelta) uint64 { return d.mallocs }),
		runtimeCell(r, "%.1f", 1024, func(d runtimeDelta) uint64 { return d.allocBytes }),
		runtimeCell(r, "%.1f", 1, func(d runtimeDelta) uint64 { return d.goroutines }),
		runtimeCell(r, "%.3f", 1, func(d runtimeDelta) uint64 { return d.gcs }),
		memoryCell(r),
	}
	return "| " + strings.Join(cells, " | ") + " |"
}

// callsCell is the DynamoDB calls per view, less the background calls the
// server would have made meanwhile without a request (sample.background);
// "–" on the embedded store.
func callsCell(r *result) string {
	if r.store == storeEmbedded {
		return "–"
	}
	calls, background := 0.0, 0.0
	for _, s := range r.samples {
		calls += float64(s.calls)
		background += s.background
	}
	return fmt.Sprintf("%.1f", max(0, calls-background)/float64(r.requests()))
}

// memoryCell is the server's resident set after its last sample, and the
// highest it reached, in MiB.
func memoryCell(r *result) string {
	var peak uint64
	for _, s := range r.samples {
		peak = max(peak, s.peakRSS)
	}
	if len(r.samples) == 0 {
		return "–"
	}
	return fmt.Sprintf("%.0f [%.0f]", float64(r.samples[len(r.samples)-1].rss)/(1<<20), float64(peak)/(1<<20))
}

// spread is the median of sorted per-round values with their range,
// "–" when they were not measured.
func spread(sorted []float64, ok bool) string {
	if !ok || len(sorted) == 0 {
		return "–"
	}
	return fmt.Sprintf("%.2f [%.2f–%.2f]", median(sorted), sorted[0], sorted[len(sorted)-1])
}

// amplificationCell is the read amplification, "–" on the embedded store,
// whose reads are not counted.
func amplificationCell(r *result, read, returned float64) string {
	if r.store == storeEmbedded {
		return "–"
	}
	return amplification(read, returned)
}

// amplification is items read per item returned: ∞ when a view read items
// but returned none.
func amplification(read, returned float64) string {
	switch {
	case returned > 0:
		return fmt.Sprintf("%.1f", read/returned)
	case read > 0:
		return "∞"
	}
	return "–"
}

// runtimeCell formats a runtime counter per view, divided by unit; "–" for a
// binary that does not report it.
func runtimeCell(r *result, format string, unit float64, count func(runtimeDelta) uint64) string {
	v, ok := r.runtimePerView(count)
	if !ok {
		return "–"
	}
	return fmt.Sprintf(format, v/unit)
}

// wavesCell is the waves per view, "–" when the requests were concurrent
// (their calls' waves cannot be told apart).
func wavesCell(r *result) string {
	if r.store == storeEmbedded {
		return "–"
	}
	for _, s := range r.samples {
		if s.clients > 1 {
			return "–"
		}
	}
	return fmt.Sprintf("%.1f", r.perView(func(s sample) int { return s.waves }))
}
