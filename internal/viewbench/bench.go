package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"
)

// bench builds the binaries, measures every data set and returns the report
// (without its command line). It leaves no child process, worktree or, unless
// -keep, temporary file or table behind, also when it fails or ctx ends.
func bench(ctx context.Context, o options, progress io.Writer) (rep *report, err error) {
	root, err := git(ctx, ".", "rev-parse", "--show-toplevel")
	if err != nil {
		return nil, err
	}
	rev, err := readRevisions(ctx, root, o.before)
	if err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp("", "viewbench-")
	if err != nil {
		return nil, err
	}
	defer func() {
		if o.keep {
			fmt.Fprintf(progress, "kept %s\n", tmp)
			return
		}
		err = errors.Join(err, os.RemoveAll(tmp))
	}()
	fmt.Fprintf(progress, "building now (%s) in %s\n", rev.now, tmp)
	if rev.before != "" {
		fmt.Fprintf(progress, "building before (%s) in %s\n", rev.before, tmp)
	}
	bins, removeWorktree, err := buildBinaries(ctx, root, tmp, rev, o.cold, o.background, o.cacheBytes)
	defer func() { err = errors.Join(err, removeWorktree()) }()
	if err != nil {
		return nil, err
	}
	if slices.Contains(o.stores, storeDynamoDB) && o.storePID == 0 {
		if o.storePID, err = listenerPID(o.endpoint); err != nil {
			fmt.Fprintf(progress, "DynamoDB Local's CPU is not measured: %v (name its process with -store-pid)\n", err)
		}
	}
	rep = &report{rev: rev, endpoint: o.endpoint, stores: o.stores, storePID: o.storePID, perCalendar: o.perCalendar, requests: o.n, rounds: o.rounds, clients: o.clients,
		tick: clockTick(ctx), calendars: o.calendars, bins: bins}
	for _, v := range o.views {
		rep.views = append(rep.views, v.name)
	}
	for _, n := range o.calendars {
		results, err := benchDataSet(ctx, o, bins, n, tmp, rep.tick, progress)
		if err != nil {
			return nil, err
		}
		rep.results = append(rep.results, results...)
	}
	return rep, nil
}

// benchDataSet seeds the data set of that many calendars for each binary, on
// a table of its own, then measures every view in interleaved rounds: in each
// round each binary in turn, alternating which goes first, so that a slow
// spell of a shared machine falls on both.
func benchDataSet(ctx context.Context, o options, bins []*binary, calendars int, tmp string, tick time.Duration, progress io.Writer) (results []*result, err error) {
	var targets []*target
	defer func() {
		for _, t := range targets {
			err = errors.Join(err, t.close())
			if t.table != "" && !o.keep {
				err = errors.Join(err, dropTable(o.endpoint, t.table))
			}
		}
	}()
	run := time.Now().UnixNano()
	for _, store := range o.stores {
		for _, bin := range bins {
			table := fmt.Sprintf("viewbench-%d-%s-%s-%d", run, store, strings.Fields(bin.label)[0], calendars)
			t, err := startTarget(ctx, bin, store, o.endpoint, o.storePID, table, tmp)
			if t != nil {
				targets = append(targets, t)
			}
			if err != nil {
				return nil, fmt.Errorf("start %s on %s: %w", bin.label, store, err)
			}
			start := time.Now()
			if t.calendars, err = seed(ctx, t.owner, t.member, calendars, o.perCalendar); err != nil {
				return nil, fmt.Errorf("seed %s on %s (%s): %w", bin.label, store, table, err)
			}
			fmt.Fprintf(progress, "%s on %s: seeded %d calendars × %d entries in %s (%s)\n",
				bin.label, store, calendars, o.perCalendar, time.Since(start).Round(time.Second), table)
			if err := t.measureIdle(ctx); err != nil {
				return nil, err
			}
		}
	}
	for _, v := range o.views {
		for _, t := range targets {
			results = append(results, &result{calendars: calendars, binary: t.bin, store: t.store, view: v.name, idleCalls: t.idleCalls})
		}
	}
	for round := range o.rounds {
		for i, v := range o.views {
			for j := range targets {
				k := (j + round) % len(targets)
				s, err := measure(ctx, targets[k], calendars, v, o.n, o.clients, tick)
				if err != nil {
					return nil, err
				}
				r := results[i*len(targets)+k]
				r.samples = append(r.samples, s)
				fmt.Fprintf(progress, "%d calendars, round %d/%d, %s, %s on %s: %.2f ms server CPU/view\n",
					calendars, round+1, o.rounds, v.name, r.binary.label, r.store, millis(s.cpu)/float64(s.requests))
			}
		}
	}
	return results, nil
}
