package dynamo

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/calgraph/calgraph/internal/calendar"
	"github.com/calgraph/calgraph/internal/webhook"
)

// WithWebhookPolicy sets which addresses webhooks may be registered for
// (webhook.Policy; the default: public addresses only). The sender that
// posts to them must be given the same policy.
func WithWebhookPolicy(p webhook.Policy) Option { return func(s *Store) { s.hooks = p } }

// RegisterReminderWebhook implements calendar.ReminderWebhookService: one
// Update of the webhook item (which it creates or replaces: URL, secret,
// state and createdAt; its log and counts stay), with a check that the
// viewer's account still exists; then the deliveries that waited for it, if
// it was FAILING, are queued again.
func (s *Store) RegisterReminderWebhook(ctx context.Context, url string) (*calendar.Webhook, string, error) {
	viewer, err := calendar.ViewerID(ctx)
	if err != nil {
		return nil, "", err
	}
	if err := s.hooks.CheckURL(url); err != nil {
		return nil, "", calendar.Invalidf("url", "the webhook URL is refused: %v", err)
	}
	secret, now := webhook.NewSecret(), s.timestamp()
	k := reminderWebhookKey(viewer)
	upd := expression.Set(expression.Name("entityType"), expression.Value(entityWebhook)).
		Set(expression.Name("userId"), expression.Value(viewer)).
		Set(expression.Name("url"), expression.Value(url)).
		Set(expression.Name("secret"), expression.Value(secret)).
		Set(expression.Name("state"), expression.Value(string(calendar.WebhookActive))).
		Set(expression.Name("createdAt"), expression.Value(now)).
		Set(expression.Name("waiting"), expression.IfNotExists(expression.Name("waiting"), expression.Value(0))).
		Set(expression.Name("dropped"), expression.IfNotExists(expression.Name("dropped"), expression.Value(0))).
		Set(expression.Name("logSeq"), expression.IfNotExists(expression.Name("logSeq"), expression.Value(0))).
		Remove(expression.Name("failingSince"))
	w := newWrite()
	w.Idempotent(ctx)
	w.Guard(opCheck(userKey(viewer), exists(), func(item) error {
		return calendar.Errorf(calendar.CodeUnauthenticated, "your account no longer exists")
	}))
	w.Update(k, upd, noCondition(), nil)
	if err := s.commit(ctx, w); err != nil {
		return nil, "", fmt.Errorf("register the reminder webhook of %s: %w", viewer, err)
	}
	if err := s.requeueWaiting(ctx, k, now); err != nil {
		return nil, "", err
	}
	h, err := s.ReminderWebhook(ctx, viewer)
	if err == nil && h == nil { // deleted at once by another request
		err = calendar.Errorf(calendar.CodeNotFound, "the reminder webhook was deleted meanwhile")
	}
	return h, secret, err
}

// ReminderWebhook implements calendar.ReminderWebhookService: a strongly
// consistent read of the webhook item, without its secret.
func (s *Store) ReminderWebhook(ctx context.Context, userID string) (*calendar.Webhook, error) {
	it, found, err := s.getItem(ctx, reminderWebhookKey(userID))
	if err != nil || !found {
		return nil, err
	}
	r, err := unmarshal[webhookRecord](it)
	if err != nil {
		return nil, fmt.Errorf("the reminder webhook of %s: %w", userID, err)
	}
	return r.webhook(), nil
}

// DeleteReminderWebhook implements calendar.ReminderWebhookService: the
// deliveries waiting for the webhook go first (counted off its waiting, a
// batch per transaction), then the webhook item, on condition that none
// waits any more (a delivery parked meanwhile goes in another round), so
// that no stop halfway leaves a delivery waiting for no webhook or a count
// that is wrong. Deliveries still queued are dropped by the worker when it
// finds no webhook.
func (s *Store) DeleteReminderWebhook(ctx context.Context) (bool, error) {
	viewer, err := calendar.ViewerID(ctx)
	if err != nil {
		return false, err
	}
	k := reminderWebhookKey(viewer)
	for range maxAttempts {
		if err := s.moveWaiting(ctx, k, time.Time{}, false); err != nil {
			return false, err
		}
		none := exists().And(expression.Name("waiting").Equal(expression.Value(0)))
		w := newWrite()
		w.Idempotent(ctx)
		w.Delete(k, none, func(old item) error {
			if old == nil {
				return errNoWebhook
			}
			return errWaitingFull // some still wait: another round
		})
		switch err := s.commit(ctx, w); {
		case errors.Is(err, errNoWebhook):
			return false, nil
		case err == nil:
			return true, nil
		case !errors.Is(err, errWaitingFull):
			return false, fmt.Errorf("delete the reminder webhook of %s: %w", viewer, err)
		}
	}
	return false, calendar.Errorf(calendar.CodeUnavailable, "deliveries kept arriving for the webhook; try again")
}

// ResumeReminderWebhook implements calendar.ReminderWebhookService: the
// webhook is made ACTIVE, then what waited for it is queued again, due now.
func (s *Store) ResumeReminderWebhook(ctx context.Context) (*calendar.Webhook, error) {
	viewer, err := calendar.ViewerID(ctx)
	if err != nil {
		return nil, err
	}
	k := reminderWebhookKey(viewer)
	upd := expression.Set(expression.Name("state"), expression.Value(string(calendar.WebhookActive))).
		Remove(expression.Name("failingSince"))
	w := newWrite()
	w.Idempotent(ctx)
	w.Update(k, upd, exists(), func(item) error {
		return calendar.Errorf(calendar.CodeNotFound, "you have registered no reminder webhook")
	})
	if err := s.commit(ctx, w); err != nil {
		return nil, fmt.Errorf("resume the reminder webhook of %s: %w", viewer, err)
	}
	if err := s.requeueWaiting(ctx, k, s.timestamp()); err != nil {
		return nil, err
	}
	h, err := s.ReminderWebhook(ctx, viewer)
	if err == nil && h == nil {
		err = calendar.Errorf(calendar.CodeNotFound, "you have registered no reminder webhook")
	}
	return h, err
}

// waitingBatch is how many waiting deliveries one transaction moves (two
// actions each, and the webhook's count).
const waitingBatch = 40

// requeueWaiting moves the deliveries waiting for hook back to the queue,
// due at now, with a fresh day of retries.
func (s *Store) requeueWaiting(ctx context.Context, hook itemKey, now time.Time) error {
	return s.moveWaiting(ctx, hook, now, true)
}

// moveWaiting takes the deliveries waiting for hook off its waiting count,
// a batch per transaction, and queues them again at now (requeue) or drops
// them. A batch whose items another request moved first fails its
// condition and ends the move (that request finishes it); one cut off by a
// stop is finished by the next resume, registration or deletion.
func (s *Store) moveWaiting(ctx context.Context, hook itemKey, now time.Time, requeue bool) error {
	waiting, err := s.waitingFor(ctx, hook)
	if err != nil {
		return err
	}
	for len(waiting) > 0 {
		batch := waiting[:min(len(waiting), waitingBatch)]
		waiting = waiting[len(batch):]
		w := newWrite()
		for _, r := range batch {
			w.Delete(itemKey{r.PK, r.SK}, exists(), explainWith(errLeaseLost))
			if requeue {
				w.Add(outboxPut(hook, r.delivery(), now, now, 0))
			}
		}
		w.Update(hook, expression.Add(expression.Name("waiting"), expression.Value(-len(batch))), exists(), explainWith(errNoWebhook))
		err := s.commit(ctx, w)
		if errors.Is(err, errLeaseLost) || errors.Is(err, errNoWebhook) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("move the deliveries waiting for %s/%s: %w", hook.PK, hook.SK, err)
		}
	}
	return nil
}

// dropWaiting deletes the deliveries waiting for a webhook already deleted
// (with its account: deletions.go).
func (s *Store) dropWaiting(ctx context.Context, hook itemKey) error {
	waiting, err := s.waitingFor(ctx, hook)
	if err != nil {
		return err
	}
	writes := make([]types.WriteRequest, len(waiting))
	for i, r := range waiting {
		writes[i] = types.WriteRequest{DeleteRequest: &types.DeleteRequest{Key: itemKey{r.PK, r.SK}.av()}}
	}
	return s.batchWrite(ctx, writes)
}

// waitingFor reads the deliveries waiting for hook (at most
// calendar.MaxWebhookWaiting, as parkDelivery keeps them).
func (s *Store) waitingFor(ctx context.Context, hook itemKey) ([]outboxRecord, error) {
	lo, hi := prefixRange(webhookWaitingPrefix(hook))
	items, err := s.queryBetween(ctx, "", attrSK, hook.PK, lo, hi, filter{}, math.MaxInt)
	if err != nil {
		return nil, fmt.Errorf("read the deliveries waiting for %s/%s: %w", hook.PK, hook.SK, err)
	}
	out := make([]outboxRecord, len(items))
	for i, it := range items {
		if out[i], err = unmarshal[outboxRecord](it); err != nil {
			return nil, err
		}
	}
	return out, nil
}
