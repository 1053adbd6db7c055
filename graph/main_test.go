package graph_test

import (
	"flag"
	"os"
	"runtime"
	"strconv"
	"testing"
)

// TestMain runs up to four parallel tests at once unless -parallel says
// otherwise (its default is GOMAXPROCS, two on a 2-core machine): this
// package's parallel tests spend most of their time waiting (deadlines,
// retries, polls), so more of them overlap than there are cores. Every test
// that reads process-wide state (goroutines, descriptors, memory, the wave
// gate's quiescence) stays sequential, and top-level parallel tests start
// only after all the sequential ones have ended.
func TestMain(m *testing.M) {
	flag.Parse()
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == "test.parallel" })
	if !given {
		_ = flag.Set("test.parallel", strconv.Itoa(max(4, runtime.GOMAXPROCS(0))))
	}
	os.Exit(m.Run())
}
