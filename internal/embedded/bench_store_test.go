package embedded_test

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/calgraph/calgraph/internal/calendar"
	"github.com/calgraph/calgraph/internal/dynamo"
	"github.com/calgraph/calgraph/internal/embedded"
	"github.com/calgraph/calgraph/internal/recurrence"
)

// BenchmarkCreate5000Entries creates 5,000 entries in one calendar through
// the store, one after the other, on a fresh table (the embedded engine with
// fsync on, and DynamoDB Local when CALGRAPH_TEST_DYNAMODB is set), and
// reports the rate of the first thousand and of the last: a rate that falls
// as the table and the partition grow is a cost growing with their size.
//
//	go test ./internal/embedded -run XXX -bench Create5000
func BenchmarkCreate5000Entries(b *testing.B) {
	b.Setenv("AWS_CA_BUNDLE", "")
	engines := []benchEngine{{"embedded", func(b *testing.B, _ int) *target {
		_, tg := openEmbedded(b, b.TempDir(), embedded.Options{})
		return tg
	}}}
	if endpoint := os.Getenv("CALGRAPH_TEST_DYNAMODB"); endpoint != "" {
		engines = append(engines, benchEngine{"ddblocal", func(b *testing.B, _ int) *target {
			tg := &target{db: newClient(b, endpoint, nil), table: fmt.Sprintf("create_%d", time.Now().UnixNano())}
			ensureTable(b, tg)
			b.Cleanup(func() { tg.db.DeleteTable(context.Background(), &dynamodb.DeleteTableInput{TableName: &tg.table}) })
			return tg
		}})
	}
	for _, eng := range engines {
		b.Run(eng.name, func(b *testing.B) {
			var first, last time.Duration
			for range b.N {
				b.StopTimer()
				tg := eng.open(b, 0)
				b.StartTimer()
				perThousand := createEntries(b, tg, 5000)
				first, last = first+perThousand[0], last+perThousand[len(perThousand)-1]
				b.Logf("seconds per thousand entries: %v", perThousand)
			}
			b.ReportMetric(float64(1000*b.N)/first.Seconds(), "first1k-entries/s")
			b.ReportMetric(float64(1000*b.N)/last.Seconds(), "last1k-entries/s")
			b.ReportMetric(float64(b.N*5000)/b.Elapsed().Seconds(), "entries/s")
		})
	}
}

// createEntries signs a user up, creates a calendar, then creates n entries
// in it through the store, and returns how long each thousand took.
func createEntries(b *testing.B, tg *target, n int) []time.Duration {
	b.Helper()
	store := dynamo.New(tg.db, tg.table, recurrence.Engine{})
	ctx := context.Background()
	id, _, err := store.ResolveIdentity(ctx, calendar.SignUp{Identity: calendar.Identity{Provider: "p", Subject: "bench"}, Email: "bench@example.com"})
	if err != nil {
		b.Fatal(err)
	}
	as := calendar.WithViewer(ctx, calendar.Viewer{ID: id})
	cal, _, err := store.CreateCalendar(as, calendar.NewCalendar{Name: "Bench"})
	if err != nil {
		b.Fatal(err)
	}
	var perThousand []time.Duration
	t := time.Now()
	for i := range n {
		start := time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC).Add(time.Duration(i) * time.Hour)
		if _, _, err := store.CreateEntry(as, calendar.NewEntry{CalendarID: cal.ID, Title: fmt.Sprint("entry ", i),
			Timing: calendar.Timing{Timed: &calendar.TimedTiming{Start: start, End: start.Add(time.Hour)}}}); err != nil {
			b.Fatal(err)
		}
		if (i+1)%1000 == 0 {
			perThousand = append(perThousand, time.Since(t).Round(time.Millisecond))
			t = time.Now()
		}
	}
	return perThousand
}

// BenchmarkStartup200k opens the embedded engine on a data directory holding
// 200k items (loaded once, through the SDK) and times embedded.Open and the
// first GetItem after it. Once, it reports the process's resident memory
// (VmRSS) before the open, after it, and after reading every item once
// (BatchGetItem of 100): the growth is the engine's. Set CALGRAPH_BENCH_LARGE.
//
//	CALGRAPH_BENCH_LARGE=1 go test ./internal/embedded -run XXX -bench Startup -timeout 30m
func BenchmarkStartup200k(b *testing.B) {
	if os.Getenv("CALGRAPH_BENCH_LARGE") == "" {
		b.Skip("set CALGRAPH_BENCH_LARGE=1 to load 200k items")
	}
	b.Setenv("AWS_CA_BUNDLE", "")
	dir := b.TempDir()
	e, err := embedded.Open(dir, nil, embedded.Options{})
	if err != nil {
		b.Fatal(err)
	}
	tg := serve(b, e)
	b.Logf("loaded 200k items at %.0f items/s", load(b, tg, 200_000))
	keys := tg.keys
	if err := e.Close(context.Background()); err != nil {
		b.Fatal(err)
	}
	b.Run("open", func(b *testing.B) {
		var open, get time.Duration
		for range b.N {
			t := time.Now()
			e, err := embedded.Open(dir, nil, embedded.Options{})
			if err != nil {
				b.Fatal(err)
			}
			open += time.Since(t)
			b.StopTimer()
			tg := &target{db: newClient(b, e.URL(), e.Credentials()), table: "cal", keys: keys}
			b.StartTimer()
			t = time.Now()
			getKey(b, tg, keys[len(keys)/2])
			get += time.Since(t)
			b.StopTimer()
			if err := e.Close(context.Background()); err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
		}
		b.ReportMetric(float64(open.Microseconds())/1000/float64(b.N), "open-ms")
		b.ReportMetric(float64(get.Microseconds())/1000/float64(b.N), "first-get-ms")
	})
	var mb *[3]float64 // measured once, on the first of the runs b.N ramps through
	b.Run("rss", func(b *testing.B) {
		if mb == nil {
			mb = new(residentMemory(b, dir, keys))
		}
		b.ReportMetric(mb[0], "rss-before-MB")
		b.ReportMetric(mb[1], "rss-opened-MB")
		b.ReportMetric(mb[2], "rss-after-reads-MB")
	})
}

// residentMemory opens the engine on dir and returns VmRSS in MB before the
// open (after giving the heap back to the system), after it, and after
// reading every item of keys once.
func residentMemory(b *testing.B, dir string, keys []benchKey) [3]float64 {
	runtime.GC()
	debug.FreeOSMemory()
	before := vmRSS(b)
	_, tg := openEmbedded(b, dir, embedded.Options{})
	tg.keys = keys
	opened := vmRSS(b)
	for first := 0; first < len(keys); first += 100 {
		var batch []map[string]types.AttributeValue
		for _, k := range keys[first:min(first+100, len(keys))] {
			batch = append(batch, k.av())
		}
		out, err := tg.db.BatchGetItem(context.Background(), &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{tg.table: {Keys: batch}}})
		if err != nil || len(out.Responses[tg.table]) != len(batch) {
			b.Fatalf("BatchGetItem of %d keys: got %d items (%v)", len(batch), len(out.Responses[tg.table]), err)
		}
	}
	return [3]float64{before, opened, vmRSS(b)}
}

func getKey(b *testing.B, tg *target, k benchKey) {
	b.Helper()
	out, err := tg.db.GetItem(context.Background(), &dynamodb.GetItemInput{TableName: &tg.table, Key: k.av()})
	if err != nil || out.Item == nil {
		b.Fatalf("GetItem %v: got %v (%v), want the item", k, out, err)
	}
}

// vmRSS is this process's resident memory in MB (VmRSS of /proc/self/status).
func vmRSS(b *testing.B) float64 {
	b.Helper()
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		b.Fatal(err)
	}
	for line := range strings.Lines(string(status)) {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, err := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(rest), " kB"))
			if err != nil {
				b.Fatal(err)
			}
			return float64(kb) / 1024
		}
	}
	b.Fatal("no VmRSS in /proc/self/status")
	return 0
}
