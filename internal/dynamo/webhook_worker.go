package dynamo

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/calgraph/calgraph/internal/calendar"
	"github.com/calgraph/calgraph/internal/webhook"
)

// WebhookSender posts one delivery (webhook.Sender in production).
type WebhookSender interface {
	Send(ctx context.Context, url, secret string, d webhook.Delivery, now time.Time) webhook.Result
}

// WebhookWorker is how the webhook worker runs (RunWebhookWorker). Fields
// left zero take the defaults; tests set Now and Backoff so that nothing
// waits for real.
type WebhookWorker struct {
	Sender WebhookSender
	// Now is the worker's clock (time.Now).
	Now func() time.Time
	// Backoff is the wait after the n-th failed attempt (webhook.Backoff).
	Backoff func(attempt int) time.Duration
	// RetryFor is how long a delivery is retried before its webhook is
	// marked FAILING (webhook.RetryFor).
	RetryFor time.Duration
	// Poll is how often the outbox is read for due deliveries (1s): about
	// how late a delivery may be while a worker runs.
	Poll time.Duration
	// Lease is how long a claimed delivery is the claimant's (2 minutes):
	// longer than an attempt can last, so that no other worker repeats it
	// while it is under way.
	Lease time.Duration
	// Batch is how many due deliveries a pass reads per shard (25), and
	// Parallel how many it posts at once (8).
	Batch, Parallel int
}

func (w WebhookWorker) withDefaults() WebhookWorker {
	if w.Now == nil {
		w.Now = time.Now
	}
	if w.Backoff == nil {
		w.Backoff = webhook.Backoff
	}
	if w.RetryFor <= 0 {
		w.RetryFor = webhook.RetryFor
	}
	if w.Poll <= 0 {
		w.Poll = time.Second
	}
	if w.Lease <= 0 {
		w.Lease = 2 * time.Minute
	}
	if w.Batch <= 0 {
		w.Batch = 25
	}
	if w.Parallel <= 0 {
		w.Parallel = 8
	}
	return w
}

// RunWebhookWorker delivers due webhook deliveries, a pass every w.Poll,
// until ctx ends (a pass under way is cut off: what it had claimed is
// claimed again when its lease runs out). Any number of instances may run
// it on one table.
func (s *Store) RunWebhookWorker(ctx context.Context, w WebhookWorker) {
	w = w.withDefaults()
	for {
		if _, err := s.DeliverWebhooks(ctx, w); err != nil && ctx.Err() == nil {
			s.log.ErrorContext(ctx, "delivering webhooks", "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(w.Poll):
		}
	}
}

// DeliverWebhooks makes one pass: it reads the deliveries due by w.Now
// (dueDeliveries), and claims and attempts each, w.Parallel at once. It
// returns how many attempts it made (a delivery another worker claimed
// first, or whose webhook is gone or FAILING, makes none).
func (s *Store) DeliverWebhooks(ctx context.Context, w WebhookWorker) (int, error) {
	w = w.withDefaults()
	due, err := s.dueDeliveries(ctx, w.Now(), w.Batch)
	if err != nil {
		return 0, err
	}
	var (
		mu       sync.Mutex
		attempts int
		errs     []error
		wg       sync.WaitGroup
		slots    = make(chan struct{}, w.Parallel)
	)
	for _, r := range due {
		slots <- struct{}{}
		wg.Go(func() {
			defer func() { <-slots }()
			tried, err := s.deliverOne(ctx, w, r)
			mu.Lock()
			defer mu.Unlock()
			if tried {
				attempts++
			}
			if err != nil && !errors.Is(err, errLeaseLost) {
				errs = append(errs, fmt.Errorf("delivery %s: %w", r.DeliveryID, err))
			}
		})
	}
	wg.Wait()
	return attempts, errors.Join(errs...)
}

// dueDeliveries reads each outbox shard's first batch deliveries due by
// now, less those a worker holds. (Held ones still count in the batch: a
// shard with more than batch deliveries under way waits for some to end.)
func (s *Store) dueDeliveries(ctx context.Context, now time.Time, batch int) ([]outboxRecord, error) {
	var due []outboxRecord
	for n := range webhookShards {
		q := keyQuery{pkAttr: attrPK, partition: webhookQueuePartition(n), sk: skBelow(attrSK, webhookDueBefore(now)),
			consistent: true, limit: int32(batch)}
		out, err := s.reads.Query(ctx, q.input(s.table))
		if err != nil {
			return nil, fmt.Errorf("read outbox shard %d: %w", n, err)
		}
		for _, it := range out.Items {
			r, err := unmarshal[outboxRecord](it)
			if err != nil {
				return nil, fmt.Errorf("outbox item %s/%s: %w", stringAttr(it, attrPK), stringAttr(it, attrSK), err)
			}
			if r.LeaseUntil < now.UnixMilli() {
				due = append(due, r)
			}
		}
	}
	return due, nil
}

// deliverOne claims r and, when its webhook is there and ACTIVE, posts it
// and records the outcome; it reports whether it made an attempt.
func (s *Store) deliverOne(ctx context.Context, w WebhookWorker, r outboxRecord) (bool, error) {
	by := uuid.NewString()
	now := w.Now()
	claimed, err := s.claimDelivery(ctx, r, now, w.Lease, by)
	if err != nil || !claimed {
		return false, err
	}
	it, found, err := s.getItem(ctx, r.hook())
	if err != nil {
		return false, err
	}
	if !found {
		return false, s.dropDelivery(ctx, r, by, false)
	}
	hook, err := unmarshal[webhookRecord](it)
	if err != nil {
		return false, err
	}
	if hook.State == string(calendar.WebhookFailing) {
		return false, s.parkDelivery(ctx, r, by, now)
	}
	res := w.Sender.Send(ctx, hook.URL, hook.Secret, r.delivery(), now)
	entry := webhookLogRecord{DeliveryID: r.DeliveryID, At: now.UTC().Truncate(time.Millisecond), Status: res.Status, LatencyMs: res.Latency.Milliseconds()}
	if res.Err != nil {
		entry.Error = res.Err.Error()
	}
	if err := s.logAttempt(ctx, r.hook(), entry); err != nil {
		s.log.WarnContext(ctx, "writing a webhook's delivery log", "webhook", r.HookPK, "err", err)
	}
	switch {
	case res.OK():
		return true, s.finishDelivery(ctx, r, by)
	case now.Sub(r.Since) < w.RetryFor:
		return true, s.retryDelivery(ctx, r, by, now.Add(w.Backoff(r.Attempts+1)))
	}
	if err := s.markFailing(ctx, r.hook(), now); err != nil {
		if errors.Is(err, errNoWebhook) {
			return true, s.dropDelivery(ctx, r, by, false)
		}
		return true, err
	}
	return true, s.parkDelivery(ctx, r, by, now)
}
