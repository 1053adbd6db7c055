// Package memlimit finds the memory limit of the container the process runs
// in, so that the Go runtime's soft limit (GOMEMLIMIT) can default to a
// little below it: with the collector's target at GOGC=400 (server.go) a
// heap may grow to five times its live data, and a process that meets its
// container's limit is killed, while one that meets GOMEMLIMIT collects
// harder instead.
package memlimit

import (
	"strconv"
	"strings"
)

// Files are the cgroup files that hold a container's memory limit: cgroup
// v2's, then v1's.
var Files = []string{"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"}

// unlimitedV1 is where cgroup v1 reports "no limit": a page-rounded
// maximum, anything this large is none.
const unlimitedV1 = int64(1) << 60

// Container returns the memory limit in bytes that the first readable file
// of Files gives, reading through read (os.ReadFile), and false when none
// sets one ("max", a v1 limit of about 2^63, no such file).
func Container(read func(string) ([]byte, error)) (int64, bool) {
	for _, f := range Files {
		b, err := read(f)
		if err != nil {
			continue
		}
		text := strings.TrimSpace(string(b))
		if text == "max" {
			return 0, false
		}
		n, err := strconv.ParseInt(text, 10, 64)
		if err != nil || n <= 0 || n >= unlimitedV1 {
			return 0, false
		}
		return n, true
	}
	return 0, false
}

// Soft returns the soft limit to give the runtime under a container limit of
// limit bytes: 90% of it, leaving room for what the runtime does not count
// (the binary, thread stacks, the embedded engine's memory-mapped file is
// counted by the kernel as page cache, which it can reclaim).
func Soft(limit int64) int64 { return limit / 10 * 9 }
