package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// processCPU returns the CPU time (user plus system, every thread) that the
// process pid has used so far, from /proc/<pid>/stat. tick is the length of
// one clock tick (clockTick), the unit of that file.
func processCPU(pid int, tick time.Duration) (time.Duration, error) {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, fmt.Errorf("read the server's CPU time: %w", err)
	}
	ticks, err := parseStatTicks(string(stat))
	if err != nil {
		return 0, fmt.Errorf("/proc/%d/stat: %w", pid, err)
	}
	return time.Duration(ticks) * tick, nil
}

// parseStatTicks returns utime+stime (fields 14 and 15, in clock ticks) of a
// /proc/<pid>/stat line. The process name (field 2) is in parentheses and may
// itself hold spaces and parentheses, so fields are counted from its last ')'.
func parseStatTicks(stat string) (uint64, error) {
	end := strings.LastIndexByte(stat, ')')
	if end < 0 {
		return 0, fmt.Errorf("no process name in %q", stat)
	}
	fields := strings.Fields(stat[end+1:]) // fields[0] is field 3, the state
	const utime, stime = 14 - 3, 15 - 3
	if len(fields) <= stime {
		return 0, fmt.Errorf("%d fields after the process name, want more than %d", len(fields), stime)
	}
	var total uint64
	for _, f := range []string{fields[utime], fields[stime]} {
		n, err := strconv.ParseUint(f, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("CPU field %q: %w", f, err)
		}
		total += n
	}
	return total, nil
}

// clockTick returns the length of the clock tick /proc counts CPU time in
// (getconf CLK_TCK), or 10ms, Linux's usual USER_HZ of 100, when getconf
// cannot tell.
func clockTick(ctx context.Context) time.Duration {
	out, err := exec.CommandContext(ctx, "getconf", "CLK_TCK").Output()
	if hz, perr := strconv.Atoi(strings.TrimSpace(string(out))); err == nil && perr == nil && hz > 0 {
		return time.Second / time.Duration(hz)
	}
	return 10 * time.Millisecond
}
