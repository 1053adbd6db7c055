package engine_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/calgraph/calgraph/internal/engine"
)

// BenchmarkWire times the engine alone on calgraph's four hot calls, sent
// to its handler in process (no network, no SDK), on a table of 5,000
// entry-shaped items: what the engine's own code costs per call, which the
// whole-stack BenchmarkEngine (internal/embedded) buries under HTTP and the
// SDK on a busy machine. The transaction's puts carry conditions as
// calgraph's writes do.
//
//	go test ./internal/engine -run XXX -bench Wire
func BenchmarkWire(b *testing.B) {
	db, err := engine.Open(filepath.Join(b.TempDir(), "e.db"), engine.Options{NoSync: true})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	send := func(b *testing.B, op, body string) {
		req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(body))
		req.Header.Set("X-Amz-Target", "DynamoDB_20120810."+op)
		rec := httptest.NewRecorder()
		db.ServeUnsigned(rec, req)
		if rec.Code != http.StatusOK {
			b.Fatalf("%s: %d %.300s", op, rec.Code, rec.Body.String())
		}
	}
	send(b, "CreateTable", `{"TableName":"cal","BillingMode":"PAY_PER_REQUEST",
		"KeySchema":[{"AttributeName":"PK","KeyType":"HASH"},{"AttributeName":"SK","KeyType":"RANGE"}],
		"AttributeDefinitions":[{"AttributeName":"PK","AttributeType":"S"},{"AttributeName":"SK","AttributeType":"S"},
			{"AttributeName":"LSI1SK","AttributeType":"S"},{"AttributeName":"GSI1PK","AttributeType":"S"},{"AttributeName":"GSI1SK","AttributeType":"S"}],
		"LocalSecondaryIndexes":[{"IndexName":"LSI1","KeySchema":[{"AttributeName":"PK","KeyType":"HASH"},{"AttributeName":"LSI1SK","KeyType":"RANGE"}],"Projection":{"ProjectionType":"ALL"}}],
		"GlobalSecondaryIndexes":[{"IndexName":"GSI1","KeySchema":[{"AttributeName":"GSI1PK","KeyType":"HASH"},{"AttributeName":"GSI1SK","KeyType":"RANGE"}],"Projection":{"ProjectionType":"ALL"}}]}`)
	const partitions, perPartition = 50, 100
	item := func(p, i, rev int) string {
		return fmt.Sprintf(`{"PK":{"S":"CAL#%03d"},"SK":{"S":"ENTRY#%04d"},"LSI1SK":{"S":"SPAN#2026-01-%02d#%04d"},"GSI1PK":{"S":"USER#%d"},"GSI1SK":{"S":"CAL#%03d#%04d"},`+
			`"title":{"S":"Weekly planning with the whole team"},"start":{"S":"2026-01-%02dT09:00:00Z"},"end":{"S":"2026-01-%02dT10:00:00Z"},"rev":{"N":"%d"},`+
			`"tags":{"SS":["work","team"]},"attendees":{"L":[{"M":{"id":{"S":"u1"},"status":{"S":"accepted"}}},{"M":{"id":{"S":"u2"},"status":{"S":"tentative"}}}]}}`,
			p, i, 1+i%28, i, p%10, p, i, 1+i%28, 1+i%28, rev)
	}
	for p := range partitions {
		for i := range perPartition {
			send(b, "PutItem", `{"TableName":"cal","Item":`+item(p, i, 1)+`}`)
		}
	}
	key := func(p, i int) string { return fmt.Sprintf(`{"PK":{"S":"CAL#%03d"},"SK":{"S":"ENTRY#%04d"}}`, p, i) }
	n := 0
	b.Run("GetItem", func(b *testing.B) {
		defer reportCPU(b)()
		for b.Loop() {
			n++
			send(b, "GetItem", `{"TableName":"cal","ConsistentRead":true,"Key":`+key(n%partitions, n%perPartition)+`}`)
		}
	})
	b.Run("Query20", func(b *testing.B) {
		defer reportCPU(b)()
		for b.Loop() {
			n++
			send(b, "Query", fmt.Sprintf(`{"TableName":"cal","IndexName":"LSI1","KeyConditionExpression":"#0 = :0 AND #1 BETWEEN :1 AND :2","Limit":20,
				"FilterExpression":"attribute_exists (#2)","ExpressionAttributeNames":{"#0":"PK","#1":"LSI1SK","#2":"title"},
				"ExpressionAttributeValues":{":0":{"S":"CAL#%03d"},":1":{"S":"SPAN#2026-01-11"},":2":{"S":"SPAN#2026-01-30~"}}}`, n%partitions))
		}
	})
	b.Run("BatchGetItem100", func(b *testing.B) {
		defer reportCPU(b)()
		for b.Loop() {
			n++
			keys := make([]string, 100)
			for i := range keys {
				keys[i] = key((n+i)%partitions, (n*7+i)%perPartition)
			}
			send(b, "BatchGetItem", `{"RequestItems":{"cal":{"Keys":[`+strings.Join(keys, ",")+`]}}}`)
		}
	})
	b.Run("TransactWriteItems4", func(b *testing.B) {
		defer reportCPU(b)()
		for b.Loop() {
			n++
			acts := make([]string, 4)
			for i := range acts {
				acts[i] = `{"Put":{"TableName":"cal","Item":` + item(n%partitions, (n*4+i)%perPartition, n) +
					`,"ConditionExpression":"(attribute_not_exists (#0)) OR (#1 < :0)","ExpressionAttributeNames":{"#0":"PK","#1":"rev"},` +
					fmt.Sprintf(`"ExpressionAttributeValues":{":0":{"N":"%d"}}}}`, n)
			}
			send(b, "TransactWriteItems", `{"TransactItems":[`+strings.Join(acts, ",")+`]}`)
		}
	})
}

// reportCPU reports the process's CPU time per call (user and system) when
// the function it returns is called: on a machine others share, time per
// call measures them too, CPU time mostly the engine.
func reportCPU(b *testing.B) func() {
	cpu := func() time.Duration {
		var ru syscall.Rusage
		_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
		return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	start := cpu()
	return func() {
		b.ReportMetric(float64((cpu()-start).Microseconds())/float64(b.N), "cpu-µs/op")
	}
}
