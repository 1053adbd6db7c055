package embedded_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/calgraph/calgraph/internal/dynamo"
	"github.com/calgraph/calgraph/internal/embedded"
)

// The benchmarks' data set: n items shaped like calgraph's timed entries,
// perPartition to a calendar's partition, loaded through the SDK.

const (
	perPartition = 50 // items in a calendar's partition; a Query reads 20 of them
	loadWorkers  = 8
)

// benchKey is an item's primary key.
type benchKey struct{ pk, sk string }

// target is a table holding n items, keys[i] being item i's; item i is in
// partition i/perPartition.
type target struct {
	db    *dynamodb.Client
	table string
	keys  []benchKey
	pid   int // DynamoDB Local's process, 0 in-process
}

// openEmbedded opens an embedded engine on dir with calgraph's table "cal",
// closed when b ends.
func openEmbedded(b *testing.B, dir string, opts embedded.Options) (*embedded.Engine, *target) {
	b.Helper()
	e, err := embedded.Open(dir, slog.New(slog.DiscardHandler), opts)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { e.Close(context.Background()) })
	return e, serve(b, e)
}

// serve returns the target of e's table "cal", which it creates.
func serve(b *testing.B, e *embedded.Engine) *target {
	b.Helper()
	tg := &target{db: newClient(b, e.URL(), e.Credentials()), table: "cal"}
	ensureTable(b, tg)
	return tg
}

// newClient returns a client of endpoint signing with creds (nil for
// DynamoDB Local, which takes any).
func newClient(b *testing.B, endpoint string, creds aws.CredentialsProvider) *dynamodb.Client {
	b.Helper()
	db, err := dynamo.NewClient(context.Background(), dynamo.ClientConfig{Endpoint: endpoint, Local: true, Credentials: creds})
	if err != nil {
		b.Fatal(err)
	}
	return db
}

func ensureTable(b *testing.B, tg *target) {
	b.Helper()
	if err := dynamo.EnsureTable(context.Background(), tg.db, tg.table); err != nil {
		b.Fatal(err)
	}
}

// load writes n entry-shaped items with BatchWriteItem, 25 a call, from
// loadWorkers goroutines, and returns the rate in items/s.
func load(b *testing.B, tg *target, n int) float64 {
	b.Helper()
	tg.keys = make([]benchKey, n)
	for i := range tg.keys {
		tg.keys[i] = benchKey{"CAL#" + fakeUUID("cal", i/perPartition), "ENTRY#" + fakeUUID("entry", i)}
	}
	start := time.Now()
	var next atomic.Int64
	errs := make(chan error, loadWorkers)
	var wg sync.WaitGroup
	for range loadWorkers {
		wg.Go(func() {
			for first := int(next.Add(25)) - 25; first < n; first = int(next.Add(25)) - 25 {
				var reqs []types.WriteRequest
				for i := first; i < min(first+25, n); i++ {
					reqs = append(reqs, types.WriteRequest{PutRequest: &types.PutRequest{Item: entryItem(tg.keys[i], i, 1)}})
				}
				if err := batchWrite(tg, reqs); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		b.Fatal(err)
	}
	return float64(n) / time.Since(start).Seconds()
}

// batchWrite writes reqs, sending unprocessed items again.
func batchWrite(tg *target, reqs []types.WriteRequest) error {
	in := map[string][]types.WriteRequest{tg.table: reqs}
	for try := 0; len(in) > 0; try++ {
		if try == 10 {
			return errors.New("BatchWriteItem: items still unprocessed after 10 tries")
		}
		out, err := tg.db.BatchWriteItem(context.Background(), &dynamodb.BatchWriteItemInput{RequestItems: in})
		if err != nil {
			return err
		}
		in = out.UnprocessedItems
	}
	return nil
}

// entryItem is item i shaped like a timed entry of calgraph's (about 600
// bytes), in revision rev. Its start is day i%perPartition of January 2026.
func entryItem(k benchKey, i, rev int) map[string]types.AttributeValue {
	id, cal := strings.TrimPrefix(k.sk, "ENTRY#"), strings.TrimPrefix(k.pk, "CAL#")
	start := time.Date(2026, 1, 1+i%perPartition, 9, 0, 0, 0, time.UTC)
	at := func(t time.Time) string { return t.Format("2006-01-02T15:04:05.000Z") }
	return map[string]types.AttributeValue{
		"PK": str(k.pk), "SK": str(k.sk),
		"LSI1SK":     str("SPAN#" + at(start) + "#" + id + "#00"),
		"LSI2SK":     str("SPANEND#" + at(start.Add(time.Hour)) + "#" + id),
		"entityType": str("ENTRY"), "id": str(id), "calendarId": str(cal), "kind": str("TIMED"),
		"title":       str(fmt.Sprintf("Weekly planning %d", i)),
		"description": str("Agenda: last week's outcomes, this week's priorities, blockers, and hiring."),
		"location":    str("Room 4.12"), "timeZone": str("Europe/Paris"),
		"start": str(at(start)), "end": str(at(start.Add(time.Hour))),
		"icalUid": str(id + "@calgraph.local"), "piece": num(0), "pieces": num(1), "sequence": num(0), "version": num(rev),
		"createdAt": str(at(start.AddDate(0, -1, 0))), "updatedAt": str(at(start.AddDate(0, 0, -rev%28))),
	}
}

func (k benchKey) av() map[string]types.AttributeValue {
	return map[string]types.AttributeValue{"PK": str(k.pk), "SK": str(k.sk)}
}

func str(s string) types.AttributeValue { return &types.AttributeValueMemberS{Value: s} }
func num(n int) types.AttributeValue    { return &types.AttributeValueMemberN{Value: strconv.Itoa(n)} }

// fakeUUID is a UUID-shaped ID, the same for the same kind and i.
func fakeUUID(kind string, i int) string {
	h := uint64(i)*0x9e3779b97f4a7c15 ^ uint64(len(kind))
	return fmt.Sprintf("%08x-%04x-7%03x-8%03x-%012x", uint32(h>>32), uint16(h>>16), i>>12&0xfff, i&0xfff, h&0xffffffffffff)
}
