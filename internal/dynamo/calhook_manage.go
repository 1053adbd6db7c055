package dynamo

import (
	"context"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"

	"github.com/calgraph/calgraph/internal/calendar"
	"github.com/calgraph/calgraph/internal/webhook"
)

// CalendarWebhooks implements calendar.CalendarWebhookService.
func (s *Store) CalendarWebhooks(ctx context.Context) ([]*calendar.CalendarWebhook, error) {
	viewer, err := calendar.ViewerID(ctx)
	if err != nil {
		return nil, err
	}
	rs, err := s.hooksOf(ctx, viewer)
	if err != nil {
		return nil, err
	}
	out := make([]*calendar.CalendarWebhook, len(rs))
	for i, r := range rs {
		out[i] = r.webhook()
	}
	return out, nil
}

// WebhooksOfCalendar implements calendar.CalendarWebhookService: the
// calendar's cursors (one Query) name the webhooks that follow it; those
// registered on it alone are returned (a member's webhook of everything
// they read is theirs, not the calendar's).
func (s *Store) WebhooksOfCalendar(ctx context.Context, calendarID string) ([]*calendar.CalendarWebhook, error) {
	if _, err := s.access(ctx, calendarID, calendar.ActionManage); err != nil {
		return nil, err
	}
	cursors, err := s.cursorsOfCalendar(ctx, calendarID)
	if err != nil {
		return nil, err
	}
	keys := make([]itemKey, len(cursors))
	for i, c := range cursors {
		keys[i] = c.hookKey()
	}
	items, err := s.batchGet(ctx, keys)
	if err != nil {
		return nil, err
	}
	out := []*calendar.CalendarWebhook{}
	for _, k := range keys {
		if items[k] == nil {
			continue
		}
		r, err := unmarshal[calHookRecord](items[k])
		if err != nil {
			return nil, err
		}
		if r.CalendarID == calendarID {
			out = append(out, r.webhook())
		}
	}
	return out, nil
}

// ownHook reads the viewer's webhook id; CodeNotFound when there is none.
func (s *Store) ownHook(ctx context.Context, id string) (calHookRecord, error) {
	viewer, err := calendar.ViewerID(ctx)
	if err != nil {
		return calHookRecord{}, err
	}
	if err := calendar.ValidateID("id", id); err != nil {
		return calHookRecord{}, err
	}
	it, found, err := s.getItem(ctx, calHookKey(viewer, id))
	if err != nil {
		return calHookRecord{}, err
	}
	if !found {
		return calHookRecord{}, calendar.Errorf(calendar.CodeNotFound, "you have no calendar webhook %s", id)
	}
	return unmarshal[calHookRecord](it)
}

// DeleteCalendarWebhook implements calendar.CalendarWebhookService: its
// cursors go first, then the webhook with the owner's count, so that a stop
// halfway leaves no cursor of no webhook (a cursor put meanwhile by the
// worker is deleted by the worker when it finds no webhook).
func (s *Store) DeleteCalendarWebhook(ctx context.Context, id string) (bool, error) {
	h, err := s.ownHook(ctx, id)
	if calendar.ErrorCode(err) == calendar.CodeNotFound {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return s.deleteHook(ctx, h)
}

// deleteHook deletes h: its cursors first, then h with its owner's count
// (in the request's idempotent write, when ctx carries one).
func (s *Store) deleteHook(ctx context.Context, h calHookRecord) (bool, error) {
	cals := []string{h.CalendarID}
	if h.CalendarID == "" {
		var err error
		if cals, err = s.cursorsOfHook(ctx, h); err != nil {
			return false, err
		}
	}
	for _, c := range cals {
		w := newWrite()
		w.Delete(calHookCursorKey(c, h.OwnerID, h.ID), noCondition(), nil)
		if err := s.commitSmall(ctx, w); err != nil {
			return false, fmt.Errorf("delete the cursor of webhook %s in %s: %w", h.ID, c, err)
		}
	}
	w := newWrite()
	w.Idempotent(ctx)
	w.Delete(h.key(), exists(), explainWith(errNoWebhook))
	w.Update(calHookCountKey(h.OwnerID), expression.Add(expression.Name("hooks"), expression.Value(-1)), exists(), nil)
	switch err := s.commit(ctx, w); {
	case errors.Is(err, errNoWebhook):
		return false, nil
	case err != nil:
		return false, fmt.Errorf("delete calendar webhook %s: %w", h.ID, err)
	}
	return true, nil
}

// dropHooksOf deletes the calendar webhooks of a deleted account, and its
// count (deletions.go finishUserDeletion).
func (s *Store) dropHooksOf(ctx context.Context, ownerID string) error {
	hooks, err := s.hooksOf(ctx, ownerID)
	if err != nil {
		return err
	}
	for _, h := range hooks {
		if _, err := s.deleteHook(ctx, h); err != nil {
			return err
		}
	}
	w := newWrite()
	w.Delete(calHookCountKey(ownerID), noCondition(), nil)
	return s.commitSmall(ctx, w)
}

// RotateCalendarWebhookSecret implements calendar.CalendarWebhookService:
// the worker reads the secret at each attempt, so a delivery under way is
// signed with the new one from its next attempt.
func (s *Store) RotateCalendarWebhookSecret(ctx context.Context, id string) (*calendar.CalendarWebhook, string, error) {
	h, err := s.ownHook(ctx, id)
	if err != nil {
		return nil, "", err
	}
	secret := webhook.NewSecret()
	w := newWrite()
	w.Idempotent(ctx)
	w.Update(h.key(), expression.Set(expression.Name("secret"), expression.Value(secret)), exists(), explainWith(errNoWebhook))
	if err := s.commit(ctx, w); err != nil {
		return nil, "", hookGone(id, err)
	}
	return h.webhook(), secret, nil
}

// ResumeCalendarWebhook implements calendar.CalendarWebhookService: ACTIVE
// again, with resumedAt, from which the worker gives each cursor's delivery
// under way a fresh day of retries, due at once.
func (s *Store) ResumeCalendarWebhook(ctx context.Context, id string) (*calendar.CalendarWebhook, error) {
	h, err := s.ownHook(ctx, id)
	if err != nil {
		return nil, err
	}
	now := s.now()
	upd := expression.Set(expression.Name("state"), expression.Value(string(calendar.WebhookActive))).
		Set(expression.Name("resumedAt"), expression.Value(now.UnixMilli())).
		Remove(expression.Name("failingSince"))
	w := newWrite()
	w.Idempotent(ctx)
	w.Update(h.key(), upd, exists(), explainWith(errNoWebhook))
	if err := s.commit(ctx, w); err != nil {
		return nil, hookGone(id, err)
	}
	h.State, h.FailingSince, h.ResumedAt = string(calendar.WebhookActive), "", now.UnixMilli()
	return h.webhook(), nil
}

// RedeliverCalendarWebhook implements calendar.CalendarWebhookService: the
// cursor is put again at syncToken, without a delivery under way or a
// lease (a worker posting meanwhile cannot advance it: its step is
// conditioned on its lease).
func (s *Store) RedeliverCalendarWebhook(ctx context.Context, id, calendarID, syncToken string) (*calendar.CalendarWebhook, error) {
	h, err := s.ownHook(ctx, id)
	if err != nil {
		return nil, err
	}
	if !h.webhook().Follows(calendarID) {
		return nil, calendar.Invalidf("calendarId", "webhook %s does not follow calendar %s", id, calendarID)
	}
	if _, err := s.access(ctx, calendarID, calendar.ActionRead); err != nil {
		return nil, err
	}
	t, err := s.parseToken(syncToken, calendarID, false)
	if err != nil {
		return nil, err
	}
	if t.full {
		return nil, calendar.Invalidf("syncToken", "a webhook continues from a log position, not a full read: pass the last page's syncToken")
	}
	k := calHookCursorKey(calendarID, h.OwnerID, h.ID)
	w := newWrite()
	w.Idempotent(ctx)
	w.Put(k, cursorRecord{PK: k.PK, SK: k.SK, EntityType: entityCalHookCursor, WebhookID: h.ID, OwnerID: h.OwnerID,
		CalendarID: calendarID, Token: syncToken}, noCondition(), nil)
	w.Guard(opCheck(h.key(), exists(), explainWith(errNoWebhook)))
	w.Guard(roleCheck(calendarID, h.OwnerID, calendar.ActionRead))
	if err := s.commit(ctx, w); err != nil {
		return nil, hookGone(id, err)
	}
	return h.webhook(), nil
}

func hookGone(id string, err error) error {
	if errors.Is(err, errNoWebhook) {
		return calendar.Errorf(calendar.CodeNotFound, "you have no calendar webhook %s", id)
	}
	return fmt.Errorf("calendar webhook %s: %w", id, err)
}

// cursorsOfCalendar reads the cursors in calendarID's log: one Query.
func (s *Store) cursorsOfCalendar(ctx context.Context, calendarID string) ([]cursorRecord, error) {
	k := calHookCursorKey(calendarID, "", "")
	lo, hi := prefixRange(calHookCursorPrefix(calendarID))
	items, err := s.queryBetween(ctx, "", attrSK, k.PK, lo, hi, filter{}, maxCursorsPerCalendar)
	if err != nil {
		return nil, fmt.Errorf("read the webhook cursors of %s: %w", calendarID, err)
	}
	out := make([]cursorRecord, len(items))
	for i, it := range items {
		if out[i], err = unmarshal[cursorRecord](it); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// maxCursorsPerCalendar bounds the webhooks read per calendar: members ×
// calendar.MaxCalendarWebhooks could be more, but no more than this many
// follow one calendar in practice; past it some are served by the sweep.
const maxCursorsPerCalendar = 1000
