package dynamo_test

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// BenchmarkWebhookDelivery: deliveries per second one worker makes to a
// receiver that answers at once, from queue to delete (claim, webhook read,
// POST, log, delete: five store calls each), 8 at a time. Run with
//
//	go test ./internal/dynamo -run '^$' -bench WebhookDelivery -benchtime 200x
func BenchmarkWebhookDelivery(b *testing.B) {
	h := newHookFixture(b)
	for i := range b.N {
		h.queue(fmt.Sprintf("bench-%06d", i), h.clock.Now())
	}
	h.worker.Batch = 100
	b.ResetTimer()
	began := time.Now()
	for delivered := 0; delivered < b.N; {
		n, err := h.hooks.DeliverWebhooks(context.Background(), h.worker)
		if err != nil {
			b.Fatal(err)
		}
		delivered += n
	}
	b.ReportMetric(float64(b.N)/time.Since(began).Seconds(), "deliveries/s")
}
