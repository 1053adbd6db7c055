package dynamo_test

import (
	"context"
	"math/rand/v2"
	"os"
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/calgraph/calgraph/internal/benchdata"
	"github.com/calgraph/calgraph/internal/calendar"
	"github.com/calgraph/calgraph/internal/dynamo"
	"github.com/calgraph/calgraph/internal/recurrence"
)

// TestSearchCost measures Viewer.search's store side on CALGRAPH_SEARCH_BENCH
// entries (benchdata's, with a title, location and description of random
// words) in 10 calendars of one user: the first (cold) search, which reads
// the calendars whole, then 200 searches of one or two word prefixes on
// warm indexes (p50, p90, and this process's CPU per search from
// getrusage: with the embedded engine that includes the engine's), a
// search right after a write, and the indexes' memory per entry. Searches
// within 30 s of the load and after are reported apart (see below). Run:
//
//	CALGRAPH_SEARCH_BENCH=5000 go test ./internal/dynamo -run TestSearchCost -v
//
// CALGRAPH_SEARCH_PROFILE=<file> writes a CPU profile of the steady
// searches there (go tool pprof <file>).
func TestSearchCost(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("CALGRAPH_SEARCH_BENCH"))
	if n == 0 {
		t.Skip("set CALGRAPH_SEARCH_BENCH to the number of entries")
	}
	f := newFixture(t)
	f.messy = true // a 50,000-entry Store.Check is not what this measures
	ada := f.user("ada@example.com")
	var cals []*calendar.Calendar
	for i := range 10 {
		cals = append(cals, f.calendarOf(ada, "Calendar "+strconv.Itoa(i)))
	}
	rng := rand.New(rand.NewPCG(1, 2))
	work := make(chan calendar.NewEntry)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for e := range work {
				if _, _, err := f.store.CreateEntry(ada, e); err != nil {
					t.Errorf("seed: %v", err)
				}
			}
		})
	}
	began := time.Now()
	for i := range n {
		e := benchdata.Entry(rng, cals[i%len(cals)].ID, i)
		e.Title, e.Location, e.Description = randomText(rng, 1+rng.IntN(4)), randomText(rng, rng.IntN(2)), randomText(rng, rng.IntN(30))
		work <- e
	}
	close(work)
	wg.Wait()
	t.Logf("seeded %d entries in %s", n, time.Since(began).Round(time.Millisecond))

	// A fresh instance: its first search builds every index.
	s := dynamo.New(f.db, f.store.Table(), recurrence.Engine{})
	queries := make([]calendar.SearchQuery, 200)
	for i := range queries {
		queries[i] = calendar.SearchQuery{Text: randomQuery(rng), Page: calendar.Page{First: 20}}
	}
	heap := heapInUse()
	cold, cpu := measure(t, s, ada, queries[:1])
	st := s.SearchIndexStats()
	grew := heapInUse() - heap
	t.Logf("cold search: %s, CPU %s; indexes: %d calendars, %d bytes counted (%d per entry), heap grew %d bytes (%d per entry)",
		cold[0], cpu, st.Calendars, st.Bytes, st.Bytes/n, grew, grew/n)
	// Within overlapWindow (30 s) of the load, each catch-up reads the load's
	// last change records again (up to 500 a calendar); then only new ones.
	seeded := time.Now()
	for _, phase := range []string{"within 30 s of the load", "steady"} {
		if phase == "steady" {
			time.Sleep(time.Until(seeded.Add(31 * time.Second)))
		}
		stop := func() {}
		if path := os.Getenv("CALGRAPH_SEARCH_PROFILE"); path != "" && phase == "steady" {
			stop = cpuProfile(t, path)
		}
		warm, cpu := measure(t, s, ada, queries)
		stop()
		slices.Sort(warm)
		t.Logf("warm searches %s: p50 %s, p90 %s, max %s; CPU per search %s", phase,
			warm[len(warm)/2], warm[len(warm)*9/10], warm[len(warm)-1], cpu/time.Duration(len(queries)))
	}
	if _, _, err := f.store.CreateEntry(ada, calendar.NewEntry{CalendarID: cals[0].ID, Title: "fresh", Timing: soon(1)}); err != nil {
		t.Fatal(err)
	}
	after, cpu := measure(t, s, ada, []calendar.SearchQuery{{Text: "fresh", Page: calendar.Page{First: 20}}})
	t.Logf("search after a write on another instance: %s, CPU %s", after[0], cpu)
}

// measure runs the queries one after another and returns each one's time
// and the process's CPU time (user and system) over all of them.
func measure(t *testing.T, s *dynamo.Store, ctx context.Context, qs []calendar.SearchQuery) ([]time.Duration, time.Duration) {
	t.Helper()
	before := cpuTime()
	var took []time.Duration
	for _, q := range qs {
		began := time.Now()
		if _, err := s.Search(ctx, q); err != nil && calendar.ErrorCode(err) != calendar.CodeInvalid {
			t.Fatalf("search %q: %v", q.Text, err)
		}
		took = append(took, time.Since(began))
	}
	return took, cpuTime() - before
}

// cpuProfile starts a CPU profile into path and returns what stops it.
func cpuProfile(t *testing.T, path string) func() {
	t.Helper()
	out, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := pprof.StartCPUProfile(out); err != nil {
		t.Fatal(err)
	}
	return func() {
		pprof.StopCPUProfile()
		if err := out.Close(); err != nil {
			t.Error(err)
		}
	}
}

// heapInUse is the live heap after a collection.
func heapInUse() int {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int(m.HeapAlloc)
}

func cpuTime() time.Duration {
	var u syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &u)
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}
