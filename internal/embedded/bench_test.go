package embedded_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/calgraph/calgraph/internal/embedded"
)

// The engine benchmarks time the four calls calgraph's reads and writes are
// made of, on calgraph's table holding n entry-shaped items, on the embedded
// engine (fsync on, as a server runs it) and, when CALGRAPH_TEST_DYNAMODB
// names it, on DynamoDB Local in the same run:
//
//	go test ./internal/embedded -run XXX -bench Engine
//	CALGRAPH_TEST_DYNAMODB=http://127.0.0.1:8000 CALGRAPH_BENCH_LARGE=1 \
//	    go test ./internal/embedded -run XXX -bench . -timeout 60m
//
// benchWorkers clients call at once. Besides ns/op (1/throughput) each
// reports ops/s, p50 and p99 latency, and CPU per call: proc-cpu-µs/op is
// this process's (getrusage), which for the embedded engine holds the engine,
// its HTTP server and the SDK client together; java-cpu-µs/op is DynamoDB
// Local's JVM (/proc/<pid>/stat); total-cpu-µs/op is their sum, the figure to
// compare between engines. The table holds 5k and 50k items, and 200k with
// CALGRAPH_BENCH_LARGE set.

const benchWorkers = 4

func benchSizes() []int {
	if os.Getenv("CALGRAPH_BENCH_LARGE") != "" {
		return []int{5_000, 50_000, 200_000}
	}
	return []int{5_000, 50_000}
}

// benchEngine opens an empty table on one engine, for n items.
type benchEngine struct {
	name string
	open func(b *testing.B, n int) *target
}

func benchEngines(b *testing.B) []benchEngine {
	b.Setenv("AWS_CA_BUNDLE", "")
	engines := []benchEngine{{"embedded", func(b *testing.B, n int) *target {
		_, tg := openEmbedded(b, b.TempDir(), embedded.Options{})
		return tg
	}}}
	if endpoint := os.Getenv("CALGRAPH_TEST_DYNAMODB"); endpoint != "" {
		engines = append(engines, benchEngine{"ddblocal", func(b *testing.B, n int) *target {
			tg := &target{db: newClient(b, endpoint, nil), table: fmt.Sprintf("bench%d_%d", n, time.Now().UnixNano()), pid: javaPID(endpoint)}
			if tg.pid == 0 {
				b.Logf("DynamoDB Local's process not found: CPU is the client's only")
			}
			ensureTable(b, tg)
			b.Cleanup(func() { tg.db.DeleteTable(context.Background(), &dynamodb.DeleteTableInput{TableName: &tg.table}) })
			return tg
		}})
	}
	return engines
}

func BenchmarkEngine(b *testing.B) {
	ops := []struct {
		name string
		call func(ctx context.Context, tg *target, r *rand.Rand, worker int) error
	}{
		{"GetItem", getOne}, {"Query20", query20}, {"BatchGetItem100", batchGet100}, {"TransactWriteItems4", transact4},
	}
	for _, eng := range benchEngines(b) {
		b.Run(eng.name, func(b *testing.B) {
			for _, n := range benchSizes() {
				b.Run(fmt.Sprintf("items=%d", n), func(b *testing.B) {
					tg := eng.open(b, n)
					var rate float64
					b.Run("Load", func(b *testing.B) {
						if rate == 0 { // once, whatever b.N
							rate = load(b, tg, n)
						}
						b.ReportMetric(rate, "items/s")
					})
					for _, op := range ops {
						b.Run(op.name, func(b *testing.B) {
							measure(b, tg, func(ctx context.Context, r *rand.Rand, w int) error { return op.call(ctx, tg, r, w) })
						})
					}
				})
			}
		})
	}
}

// measure makes b.N calls from benchWorkers goroutines, each with its own
// random source, after up to 50 untimed ones, and reports throughput, latency and CPU per call.
func measure(b *testing.B, tg *target, call func(ctx context.Context, r *rand.Rand, worker int) error) {
	ctx := context.Background()
	lat := make([]time.Duration, b.N)
	var next atomic.Int64
	errs := make(chan error, benchWorkers)
	warm := rand.New(rand.NewPCG(0, 0))
	for range min(b.N, 50) { // DynamoDB Local's JIT compiles the call's code
		if err := call(ctx, warm, 0); err != nil {
			b.Fatal(err)
		}
	}
	cpu0, java0 := procCPU(), javaCPU(tg.pid)
	b.ResetTimer()
	start := time.Now()
	var wg sync.WaitGroup
	for w := range benchWorkers {
		wg.Go(func() {
			r := rand.New(rand.NewPCG(uint64(w), uint64(b.N)))
			for i := int(next.Add(1)) - 1; i < b.N; i = int(next.Add(1)) - 1 {
				t := time.Now()
				if err := call(ctx, r, w); err != nil {
					errs <- err
					return
				}
				lat[i] = time.Since(t)
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	b.StopTimer()
	close(errs)
	if err := <-errs; err != nil {
		b.Fatal(err)
	}
	proc, java := procCPU()-cpu0, javaCPU(tg.pid)-java0
	slices.Sort(lat)
	perOp := func(d time.Duration) float64 { return float64(d.Microseconds()) / float64(b.N) }
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "ops/s")
	b.ReportMetric(float64(lat[b.N/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(lat[b.N*99/100].Microseconds()), "p99-µs")
	b.ReportMetric(perOp(proc), "proc-cpu-µs/op")
	if tg.pid != 0 {
		b.ReportMetric(perOp(java), "java-cpu-µs/op")
	}
	b.ReportMetric(perOp(proc+java), "total-cpu-µs/op")
}

func getOne(ctx context.Context, tg *target, r *rand.Rand, _ int) error {
	k := tg.keys[r.IntN(len(tg.keys))]
	out, err := tg.db.GetItem(ctx, &dynamodb.GetItemInput{TableName: &tg.table, Key: k.av()})
	if err == nil && out.Item == nil {
		err = fmt.Errorf("GetItem %v: no item", k)
	}
	return err
}

// query20 reads 20 entries of a partition from LSI1, as a calendar's range
// read does.
func query20(ctx context.Context, tg *target, r *rand.Rand, _ int) error {
	pk := tg.keys[r.IntN(len(tg.keys)/perPartition)*perPartition].pk
	out, err := tg.db.Query(ctx, &dynamodb.QueryInput{TableName: &tg.table, IndexName: aws.String("LSI1"),
		KeyConditionExpression: aws.String("PK = :pk AND LSI1SK BETWEEN :lo AND :hi"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":pk": str(pk),
			":lo": str("SPAN#2026-01-11"), ":hi": str("SPAN#2026-01-30~")}})
	if err == nil && out.Count != 20 {
		err = fmt.Errorf("Query %s: got %d items, want 20", pk, out.Count)
	}
	return err
}

func batchGet100(ctx context.Context, tg *target, r *rand.Rand, _ int) error {
	seen := map[int]bool{}
	var keys []map[string]types.AttributeValue
	for len(keys) < 100 {
		if i := r.IntN(len(tg.keys)); !seen[i] {
			seen[i] = true
			keys = append(keys, tg.keys[i].av())
		}
	}
	out, err := tg.db.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{tg.table: {Keys: keys}}})
	if err == nil && (len(out.Responses[tg.table]) != 100 || len(out.UnprocessedKeys) != 0) {
		err = fmt.Errorf("BatchGetItem: got %d items and %d tables unprocessed, want 100 and 0", len(out.Responses[tg.table]), len(out.UnprocessedKeys))
	}
	return err
}

// transact4 rewrites 4 items of one partition; each worker writes partitions
// of its own, so that transactions never conflict.
func transact4(ctx context.Context, tg *target, r *rand.Rand, w int) error {
	parts := len(tg.keys) / perPartition
	p := (r.IntN(parts/benchWorkers)*benchWorkers + w) % parts
	first := p*perPartition + r.IntN(perPartition-4)
	var items []types.TransactWriteItem
	for i := first; i < first+4; i++ {
		items = append(items, types.TransactWriteItem{Put: &types.Put{TableName: &tg.table, Item: entryItem(tg.keys[i], i, r.IntN(1000))}})
	}
	_, err := tg.db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: items})
	return err
}

// procCPU is this process's CPU time so far, user and system.
func procCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// javaCPU is process pid's CPU time so far from /proc/<pid>/stat (utime and
// stime, in ticks of 10 ms: Linux's USER_HZ), 0 for pid 0.
func javaCPU(pid int) time.Duration {
	if pid == 0 {
		return 0
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	f := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
	utime, _ := strconv.Atoi(f[11])
	stime, _ := strconv.Atoi(f[12])
	return time.Duration(utime+stime) * 10 * time.Millisecond
}

// javaPID finds the DynamoDB Local process listening on endpoint's port by
// its command line, or returns 0.
func javaPID(endpoint string) int {
	u, err := url.Parse(endpoint)
	if err != nil {
		return 0
	}
	cmdlines, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, path := range cmdlines {
		cmd, err := os.ReadFile(path)
		if err == nil && strings.Contains(string(cmd), "DynamoDBLocal") && strings.Contains(string(cmd), "-port\x00"+u.Port()+"\x00") {
			pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(path)))
			return pid
		}
	}
	return 0
}
