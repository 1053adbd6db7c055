package main

import (
	"context"
	"fmt"
	"net/url"
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

// listenerPID finds the process listening on endpoint's TCP port on this
// machine (DynamoDB Local's java, for one): the inode of the listening
// socket in /proc/net/tcp or tcp6, then the process holding it among
// /proc/<pid>/fd. Only processes of this user can be searched.
func listenerPID(endpoint string) (int, error) {
	u, err := url.Parse(endpoint)
	if err != nil {
		return 0, err
	}
	port, err := strconv.ParseUint(u.Port(), 10, 16)
	if err != nil {
		return 0, fmt.Errorf("no port in %q", endpoint)
	}
	var inodes []string
	for _, table := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		b, err := os.ReadFile(table)
		if err != nil {
			continue
		}
		inodes = append(inodes, listeningInodes(string(b), uint16(port))...)
	}
	if len(inodes) == 0 {
		return 0, fmt.Errorf("nothing listens on port %d", port)
	}
	procs, err := os.ReadDir("/proc")
	if err != nil {
		return 0, err
	}
	for _, p := range procs {
		pid, err := strconv.Atoi(p.Name())
		if err != nil {
			continue
		}
		fds, _ := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid)) // another user's: unreadable
		for _, fd := range fds {
			link, _ := os.Readlink(fmt.Sprintf("/proc/%d/fd/%s", pid, fd.Name()))
			for _, inode := range inodes {
				if link == "socket:["+inode+"]" {
					return pid, nil
				}
			}
		}
	}
	return 0, fmt.Errorf("no process of this user holds the socket listening on port %d", port)
}

// listeningInodes returns the inodes of the sockets listening on port in
// a /proc/net/tcp or tcp6 table: lines of "sl local_address rem_address
// st ... inode", the address as hex IP:PORT, the state 0A for LISTEN.
func listeningInodes(table string, port uint16) []string {
	var inodes []string
	for _, line := range strings.Split(table, "\n")[1:] {
		f := strings.Fields(line)
		if len(f) < 10 || f[3] != "0A" {
			continue
		}
		_, hexPort, ok := strings.Cut(f[1], ":")
		if p, err := strconv.ParseUint(hexPort, 16, 16); ok && err == nil && uint16(p) == port {
			inodes = append(inodes, f[9])
		}
	}
	return inodes
}

// processMemory returns the resident set of process pid now and at its
// peak (VmRSS and VmHWM of /proc/<pid>/status), in bytes.
func processMemory(pid int) (rss, peak uint64, err error) {
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, 0, fmt.Errorf("read the server's memory: %w", err)
	}
	return parseStatusMemory(string(status))
}

// parseStatusMemory reads VmRSS and VmHWM ("VmRSS:	  12345 kB") from a
// /proc/<pid>/status text.
func parseStatusMemory(status string) (rss, peak uint64, err error) {
	found := 0
	for _, line := range strings.Split(status, "\n") {
		name, value, ok := strings.Cut(line, ":")
		if !ok || (name != "VmRSS" && name != "VmHWM") {
			continue
		}
		kb, err := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(value), " kB"), 10, 64)
		if err != nil {
			return 0, 0, fmt.Errorf("%s: %w", name, err)
		}
		if name == "VmRSS" {
			rss = kb << 10
		} else {
			peak = kb << 10
		}
		found++
	}
	if found != 2 {
		return 0, 0, fmt.Errorf("no VmRSS and VmHWM in /proc status")
	}
	return rss, peak, nil
}
