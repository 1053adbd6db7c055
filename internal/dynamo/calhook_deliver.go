package dynamo

import (
	"context"
	"errors"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/google/uuid"

	"github.com/calgraph/calgraph/internal/calendar"
	"github.com/calgraph/calgraph/internal/webhook"
)

// One delivery of a calendar webhook, from the claim of its cursor to the
// step after the POST (calhook_worker.go serves the cursors).

// claimCursor takes c's lease as by and returns the delivery to attempt:
// the one under way, when due, or a new one rendered from the token (nil
// when there is nothing to deliver; one without a body when it moved the
// token past changes the filter drops, taking no lease).
func (s *Store) claimCursor(ctx context.Context, w CalendarWebhookWorker, hook calHookRecord, c cursorRecord, now time.Time, by string) (*hookDelivery, error) {
	free := leaseFree(now)
	lease := expression.Set(expression.Name("leaseUntil"), expression.Value(now.Add(w.Lease).UnixMilli())).
		Set(expression.Name("leaseBy"), expression.Value(by))
	if p := c.Pending; p != nil {
		if p.Due > now.UnixMilli() && hook.ResumedAt <= p.Tried {
			return nil, nil
		}
		if p.Kind == calendar.HookChanges && !s.ownerReads(ctx, c) {
			lost, err := s.render(ctx, w, hook, c, calendar.HookAccessLost, c.Token, now)
			if err != nil {
				return nil, err
			}
			p = lost
			lease = lease.Set(expression.Name("pending"), expression.Value(p))
		}
		cond := exists().And(free.And(expression.Name("pending.id").Equal(expression.Value(c.Pending.ID))).Or(claimedBy(by)))
		return p, s.updateCursor(ctx, c.key(), lease, cond)
	}
	p, err := s.render(ctx, w, hook, c, calendar.HookChanges, c.Token, now)
	if err != nil || p == nil {
		return nil, err
	}
	fresh := free.And(expression.AttributeNotExists(expression.Name("pending"))).
		And(expression.Name("token").Equal(expression.Value(c.Token)))
	if p.Body == nil { // only changes the filter drops: move past them
		upd := expression.Set(expression.Name("token"), expression.Value(p.Next))
		return p, s.updateCursor(ctx, c.key(), upd, exists().And(fresh))
	}
	return p, s.updateCursor(ctx, c.key(), lease.Set(expression.Name("pending"), expression.Value(p)), exists().And(fresh.Or(claimedBy(by))))
}

// render renders a delivery of kind from token: nil when the log holds no
// change after it. A read refused for access or an expired token renders
// the notice instead.
func (s *Store) render(ctx context.Context, w CalendarWebhookWorker, hook calHookRecord, c cursorRecord, kind, token string, now time.Time) (*hookDelivery, error) {
	req := calendar.HookRequest{Kind: kind, WebhookID: hook.ID, OwnerID: hook.OwnerID, CalendarID: c.CalendarID, Token: token,
		First: w.Batch, Types: hook.webhook().Types}
	var r calendar.HookBody
	var err error
	for {
		r, err = w.Render(ctx, req)
		if err != nil || len(r.Body) <= maxDeliveryBytes || req.First == 1 {
			break
		}
		req.First /= 2
	}
	switch calendar.ErrorCode(err) {
	case calendar.CodeNotFound, calendar.CodeForbidden:
		return s.render(ctx, w, hook, c, calendar.HookAccessLost, token, now)
	case calendar.CodeSyncTokenExpired:
		return s.render(ctx, w, hook, c, calendar.HookSyncTokenExpired, s.HeadToken(c.CalendarID, false), now)
	}
	if err != nil {
		return nil, err
	}
	if kind == calendar.HookChanges && r.Count == 0 {
		// Nothing to post: the token moves on past a full page the filter
		// dropped (or nothing after it would ever come), or once a day.
		if r.Next == c.Token || !r.More && !s.tokenAging(c, now) {
			return nil, nil
		}
		return &hookDelivery{Next: r.Next}, nil
	}
	return &hookDelivery{ID: uuid.NewString(), Kind: kind, Body: r.Body, Next: r.Next, More: r.More,
		Since: now.UnixMilli(), Due: now.UnixMilli()}, nil
}

// tokenAging reports whether c's token is more than a day old: a read that
// found nothing (or only what the filter drops) then moves it on, so that
// a quiet calendar's token never reaches the retention.
func (s *Store) tokenAging(c cursorRecord, now time.Time) bool {
	t, err := decodeToken(c.Token, c.CalendarID, false)
	return err != nil || t.low < now.Add(-24*time.Hour).UnixMicro()
}

// ownerReads reports whether c's owner may still read its calendar (false
// on a failed read too: the next attempt asks again).
func (s *Store) ownerReads(ctx context.Context, c cursorRecord) bool {
	items, err := s.batchGet(ctx, []itemKey{membershipKey(c.CalendarID, c.OwnerID)})
	if err != nil || items[membershipKey(c.CalendarID, c.OwnerID)] == nil {
		return false
	}
	m, err := decodeMembershipRecord(items[membershipKey(c.CalendarID, c.OwnerID)])
	return err == nil && m.membership().Role.Can(calendar.ActionRead)
}

// attempt posts p and records the outcome; done reports that the receiver
// took it and the cursor may go on.
func (s *Store) attempt(ctx context.Context, w CalendarWebhookWorker, hook calHookRecord, c cursorRecord, p hookDelivery, now time.Time, by string) (bool, error) {
	res := w.Sender.Send(ctx, hook.URL, hook.Secret, webhook.Delivery{ID: p.ID, Event: "calendar." + p.Kind, Body: p.Body}, now)
	entry := webhookLogRecord{DeliveryID: p.ID, At: now.UTC().Truncate(time.Millisecond), Status: res.Status, LatencyMs: res.Latency.Milliseconds()}
	if res.Err != nil {
		entry.Error = res.Err.Error()
	}
	if err := s.logAttempt(ctx, hook.key(), entry); err != nil {
		s.log.WarnContext(ctx, "writing a calendar webhook's delivery log", "webhook", hook.ID, "err", err)
	}
	if ctx.Err() != nil {
		return false, ctx.Err()
	}
	held := leaseHeld(by)
	release := expression.Remove(expression.Name("leaseUntil")).Remove(expression.Name("leaseBy"))
	if res.OK() {
		if p.Kind == calendar.HookAccessLost {
			return false, s.dropCursor(ctx, c, by)
		}
		upd := release.Set(expression.Name("token"), expression.Value(p.Next)).Remove(expression.Name("pending"))
		return true, s.updateCursor(ctx, c.key(), upd, held)
	}
	since := max(p.Since, hook.ResumedAt)
	upd := release.Set(expression.Name("pending.attempts"), expression.Value(p.Attempts+1)).
		Set(expression.Name("pending.tried"), expression.Value(now.UnixMilli())).
		Set(expression.Name("pending.due"), expression.Value(now.Add(w.Backoff(p.Attempts+1)).UnixMilli()))
	if now.Sub(time.UnixMilli(since)) >= w.RetryFor {
		if err := s.markFailing(ctx, hook.key(), now); err != nil && !errors.Is(err, errNoWebhook) {
			return false, err
		}
	}
	return false, s.updateCursor(ctx, c.key(), upd, held)
}

func (s *Store) updateCursor(ctx context.Context, k itemKey, upd expression.UpdateBuilder, cond expression.ConditionBuilder) error {
	w := newWrite()
	w.Update(k, upd, cond, explainWith(errLeaseLost))
	return s.commitSmall(ctx, w)
}

// dropCursor deletes c: as by, who holds its lease, or ("") when no lease
// is held.
func (s *Store) dropCursor(ctx context.Context, c cursorRecord, by string) error {
	cond := exists().And(expression.AttributeNotExists(expression.Name("leaseBy")).
		Or(expression.Name("leaseUntil").LessThan(expression.Value(time.Now().UnixMilli()))))
	if by != "" {
		cond = leaseHeld(by)
	}
	w := newWrite()
	w.Delete(c.key(), cond, explainWith(errLeaseLost))
	return s.commitSmall(ctx, w)
}
