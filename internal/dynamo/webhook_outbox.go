package dynamo

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"

	"github.com/calgraph/calgraph/internal/calendar"
	"github.com/calgraph/calgraph/internal/webhook"
)

// The outbox: a delivery is an item queued under its due time
// (webhookQueueKey) by the transaction that makes it (webhookOutboxPut), so
// that it exists exactly when what it reports was committed. A worker
// claims a due item with a lease (claimDelivery), posts it, and then deletes
// it (finishDelivery), moves it later (retryDelivery), or parks it while its
// webhook is FAILING (parkDelivery). Every step after the claim is
// conditioned on the worker still holding the lease, so that two workers
// never make the same attempt at once; a worker that stops after posting
// and before its step leaves the item to be claimed again when the lease
// runs out: the receiver gets it again with the same delivery ID, which is
// how it deduplicates (at least once, never lost).

// webhookOutboxPut is the action that queues d for userID's reminder
// webhook, due at due: the reminder firing transaction adds one per
// reminder with the WEBHOOK method (w.Add(webhookOutboxPut(...))). It
// needs no read: a user without a reminder webhook gets nothing (the worker
// drops the delivery when it finds none), and a FAILING webhook's
// deliveries wait for it. d.ID must be stable for what it reports (a
// reminder's occurrence, say), as receivers deduplicate by it; putting the
// same d and due twice queues it once.
func webhookOutboxPut(userID string, d webhook.Delivery, due time.Time) txOp {
	return outboxPut(reminderWebhookKey(userID), d, due, due, 0)
}

// QueueReminderDelivery queues d for userID's reminder webhook, due at due,
// in a write of its own (webhookOutboxPut in a transaction of the caller's
// is the way to queue it atomically with what it reports).
func (s *Store) QueueReminderDelivery(ctx context.Context, userID string, d webhook.Delivery, due time.Time) error {
	w := newWrite()
	w.Add(webhookOutboxPut(userID, d, due))
	if err := s.commitSmall(ctx, w); err != nil {
		return fmt.Errorf("queue delivery %s for %s: %w", d.ID, userID, err)
	}
	return nil
}

// outboxPut is the Put of a queued delivery for hook, due at due, first due
// at since, after attempts failed attempts.
func outboxPut(hook itemKey, d webhook.Delivery, due, since time.Time, attempts int) txOp {
	k := webhookQueueKey(hook, due, d.ID)
	r := outboxRecord{PK: k.PK, SK: k.SK, EntityType: entityWebhookQueued, HookPK: hook.PK, HookSK: hook.SK,
		DeliveryID: d.ID, Event: d.Event, Body: d.Body, Since: since.UTC(), Attempts: attempts}
	return opPut(k, r, noCondition(), nil)
}

func (r outboxRecord) delivery() webhook.Delivery {
	return webhook.Delivery{ID: r.DeliveryID, Event: r.Event, Body: r.Body}
}

// Why a worker's step did not apply.
var (
	errLeaseLost   = errors.New("the delivery's lease was lost")
	errNotFailing  = errors.New("the webhook is no longer FAILING")
	errWaitingFull = errors.New("the webhook has the most deliveries waiting")
	errNoWebhook   = errors.New("the webhook is gone")
)

func explainWith(err error) explainFunc { return func(item) error { return err } }

// leaseHeld holds while the claim by holds the item's lease (a webhook
// delivery's, a calendar webhook's cursor, a due reminder's).
func leaseHeld(by string) expression.ConditionBuilder {
	return exists().And(claimedBy(by))
}

// claimDelivery takes the lease of a queued delivery until now+lease, as
// by; false when another worker holds it or it is gone.
func (s *Store) claimDelivery(ctx context.Context, r outboxRecord, now time.Time, lease time.Duration, by string) (bool, error) {
	upd := expression.Set(expression.Name("leaseUntil"), expression.Value(now.Add(lease).UnixMilli())).
		Set(expression.Name("leaseBy"), expression.Value(by))
	w := newWrite()
	w.Update(itemKey{r.PK, r.SK}, upd, exists().And(leaseFree(now).Or(claimedBy(by))), explainWith(errLeaseLost))
	err := s.commitSmall(ctx, w)
	if errors.Is(err, errLeaseLost) {
		return false, nil
	}
	return err == nil, err
}

// leaseFree is the condition that an item's lease is free at now: none, or
// one that has run out.
func leaseFree(now time.Time) expression.ConditionBuilder {
	return expression.AttributeNotExists(expression.Name("leaseUntil")).
		Or(expression.Name("leaseUntil").LessThan(expression.Value(now.UnixMilli())))
}

// claimedBy is the condition that by holds an item's lease. by is new for
// each claim, so before the claim's update it never holds: it holds for the
// claim sent again. The SDK sends a call again when its connection fails
// before the answer, although the update may have been applied, and that
// repeat must find the lease it took rather than refuse it and leave the item
// to wait for the lease's end (a webhook delivery two minutes late, or never
// within a test's frozen clock, a reminder half a minute late): each claim's
// condition is "free, and what else it needs, or claimedBy"
// (TestWebhookClaimAppliedBeforeItsConnectionFailed and its kin for calendar
// webhooks and reminders).
func claimedBy(by string) expression.ConditionBuilder {
	return expression.Name("leaseBy").Equal(expression.Value(by))
}

// finishDelivery deletes a delivery its receiver took.
func (s *Store) finishDelivery(ctx context.Context, r outboxRecord, by string) error {
	w := newWrite()
	w.Delete(itemKey{r.PK, r.SK}, leaseHeld(by), explainWith(errLeaseLost))
	return s.commitSmall(ctx, w)
}

// retryDelivery moves a delivery whose attempt failed to due, counting the
// attempt.
func (s *Store) retryDelivery(ctx context.Context, r outboxRecord, by string, due time.Time) error {
	w := newWrite()
	w.Delete(itemKey{r.PK, r.SK}, leaseHeld(by), explainWith(errLeaseLost))
	w.Add(outboxPut(r.hook(), r.delivery(), due, r.Since, r.Attempts+1))
	return s.commit(ctx, w)
}

// dropDelivery deletes a delivery that will not be made: its webhook is
// gone (counted nowhere), or has the most deliveries waiting (counted in
// its dropped).
func (s *Store) dropDelivery(ctx context.Context, r outboxRecord, by string, count bool) error {
	w := newWrite()
	w.Delete(itemKey{r.PK, r.SK}, leaseHeld(by), explainWith(errLeaseLost))
	if count {
		w.Update(r.hook(), expression.Add(expression.Name("dropped"), expression.Value(1)), exists(), explainWith(errNoWebhook))
	}
	return s.commit(ctx, w)
}

// parkDelivery moves a delivery of a FAILING webhook to wait in the
// webhook's partition until it is resumed, counting it in the webhook's
// waiting. Past calendar.MaxWebhookWaiting it is dropped instead (and
// counted); a webhook resumed meanwhile gets it back in the queue at now.
func (s *Store) parkDelivery(ctx context.Context, r outboxRecord, by string, now time.Time) error {
	hook := r.hook()
	wk := webhookWaitingKey(hook, r.Since, r.DeliveryID)
	parked := r
	parked.PK, parked.SK, parked.EntityType, parked.LeaseUntil, parked.LeaseBy = wk.PK, wk.SK, entityWebhookWaiting, 0, ""
	failing := exists().And(expression.Name("state").Equal(expression.Value(string(calendar.WebhookFailing)))).
		And(expression.Name("waiting").LessThan(expression.Value(calendar.MaxWebhookWaiting)))
	w := newWrite()
	w.Delete(itemKey{r.PK, r.SK}, leaseHeld(by), explainWith(errLeaseLost))
	w.Put(wk, parked, noCondition(), nil)
	w.Update(hook, expression.Add(expression.Name("waiting"), expression.Value(1)), failing, func(old item) error {
		switch {
		case old == nil:
			return errNoWebhook
		case stringAttr(old, "state") != string(calendar.WebhookFailing):
			return errNotFailing
		}
		return errWaitingFull
	})
	err := s.commit(ctx, w)
	switch {
	case errors.Is(err, errNoWebhook):
		return s.dropDelivery(ctx, r, by, false)
	case errors.Is(err, errWaitingFull):
		return s.dropDelivery(ctx, r, by, true)
	case errors.Is(err, errNotFailing):
		return s.retryDelivery(ctx, r, by, now)
	}
	return err
}

// markFailing marks hook FAILING from now (unless it already is).
func (s *Store) markFailing(ctx context.Context, hook itemKey, now time.Time) error {
	upd := expression.Set(expression.Name("state"), expression.Value(string(calendar.WebhookFailing))).
		Set(expression.Name("failingSince"), expression.IfNotExists(expression.Name("failingSince"), expression.Value(instantKey(now))))
	w := newWrite()
	w.Update(hook, upd, exists(), explainWith(errNoWebhook))
	return s.commitSmall(ctx, w)
}

// logAttempt adds an attempt to hook's delivery log, keeping the newest
// calendar.MaxWebhookLog: a read, then a write conditioned on the log
// being as read, again after a backoff if another attempt's write came
// between (deliveries to one webhook are posted in parallel).
func (s *Store) logAttempt(ctx context.Context, hook itemKey, a webhookLogRecord) error {
	for attempt := 1; attempt <= maxAttempts; attempt++ {
		if attempt > 1 {
			if err := sleep(ctx, backoff(attempt)); err != nil {
				return err
			}
		}
		it, found, err := s.getItem(ctx, hook)
		if err != nil || !found {
			return err
		}
		r, err := unmarshal[webhookRecord](it)
		if err != nil {
			return err
		}
		log := append([]webhookLogRecord{a}, r.Log...)
		log = log[:min(len(log), calendar.MaxWebhookLog)]
		upd := expression.Set(expression.Name("log"), expression.Value(log)).
			Set(expression.Name("logSeq"), expression.Value(r.LogSeq+1))
		w := newWrite()
		w.Update(hook, upd, exists().And(expression.Name("logSeq").Equal(expression.Value(r.LogSeq))), explainWith(errLeaseLost))
		if err := s.commitSmall(ctx, w); !errors.Is(err, errLeaseLost) {
			return err
		}
	}
	return fmt.Errorf("the delivery log of %s/%s kept changing", hook.PK, hook.SK)
}
