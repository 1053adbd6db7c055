package dynamo

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"

	"github.com/calgraph/calgraph/internal/calendar"
	"github.com/calgraph/calgraph/internal/webhook"
)

// maxHookFilter bounds the calendars a webhook's filter names.
const maxHookFilter = 50

// calHookCountKey is the count of ownerID's calendar webhooks, kept beside
// them (its SK has no "#", so it is no webhook of the owner's prefix): the
// registration's condition that keeps them at calendar.MaxCalendarWebhooks.
func calHookCountKey(ownerID string) itemKey {
	k := calHookKey(ownerID, "")
	k.SK = ownerID
	return k
}

// RegisterCalendarWebhook implements calendar.CalendarWebhookService: one
// transaction puts the webhook, raises the owner's count (on condition
// that it stays at most calendar.MaxCalendarWebhooks), checks that the
// account still exists and, for a webhook of
// one calendar, checks that the viewer still owns it and puts its cursor
// at the log's head. A webhook of everything the viewer reads gets its
// cursors next, one per calendar (reconcileHook), each at the head of its
// log when it is put.
func (s *Store) RegisterCalendarWebhook(ctx context.Context, in calendar.NewCalendarWebhook) (*calendar.CalendarWebhook, string, error) {
	viewer, err := calendar.ViewerID(ctx)
	if err != nil {
		return nil, "", err
	}
	if err := s.checkHookInput(ctx, in); err != nil {
		return nil, "", err
	}
	r := calHookRecord{ID: s.newID(), OwnerID: viewer, CalendarID: in.CalendarID, URL: in.URL, Secret: webhook.NewSecret(),
		Calendars: in.Calendars, State: string(calendar.WebhookActive), CreatedAt: s.timestamp(), EntityType: entityCalHook}
	for _, t := range in.Types {
		r.Types = append(r.Types, int(t))
	}
	k := calHookKey(viewer, r.ID)
	r.PK, r.SK = k.PK, k.SK
	w := newWrite()
	w.Idempotent(ctx)
	w.Put(k, r, notExists(), nil)
	w.Update(calHookCountKey(viewer), expression.Set(expression.Name("entityType"), expression.Value(entityCalHookCount)).
		Add(expression.Name("hooks"), expression.Value(1)),
		expression.AttributeNotExists(expression.Name("hooks")).Or(expression.Name("hooks").LessThan(expression.Value(calendar.MaxCalendarWebhooks))),
		func(item) error {
			return calendar.Invalidf("url", "you have %d calendar webhooks, the most allowed: delete one first", calendar.MaxCalendarWebhooks)
		})
	w.Guard(opCheck(userKey(viewer), exists(), func(item) error {
		return calendar.Errorf(calendar.CodeUnauthenticated, "your account no longer exists")
	}))
	if in.CalendarID != "" {
		w.Guard(roleCheck(in.CalendarID, viewer, calendar.ActionManage))
		c, err := s.newCursor(ctx, r, in.CalendarID)
		if err != nil {
			return nil, "", err
		}
		w.Put(c.key(), c, notExists(), nil)
	}
	if err := s.commit(ctx, w); err != nil {
		return nil, "", fmt.Errorf("register a calendar webhook for %s: %w", viewer, err)
	}
	if in.CalendarID == "" {
		if err := s.reconcileHook(ctx, r); err != nil {
			return nil, "", err
		}
	}
	return r.webhook(), r.Secret, nil
}

// checkHookInput refuses what a registration may not ask for: a URL the
// policy refuses, a calendar the viewer does not own (or cannot see), a
// filter of calendars the viewer cannot read or on a webhook of one
// calendar, or an unknown type.
func (s *Store) checkHookInput(ctx context.Context, in calendar.NewCalendarWebhook) error {
	if err := s.hooks.CheckURL(in.URL); err != nil {
		return calendar.Invalidf("url", "the webhook URL is refused: %v", err)
	}
	for _, t := range in.Types {
		if t < calendar.ObjectCalendar || t > calendar.ObjectEntry {
			return calendar.Invalidf("types", "unknown change type %d", t)
		}
	}
	if in.CalendarID != "" {
		if len(in.Calendars) > 0 {
			return calendar.Invalidf("calendarIds", "a webhook of one calendar takes no calendarIds")
		}
		_, err := s.access(ctx, in.CalendarID, calendar.ActionManage)
		return err
	}
	if len(in.Calendars) > maxHookFilter {
		return calendar.Invalidf("calendarIds", "at most %d calendars", maxHookFilter)
	}
	for _, id := range in.Calendars {
		if _, err := s.access(ctx, id, calendar.ActionRead); err != nil {
			if c := calendar.ErrorCode(err); c == calendar.CodeNotFound || c == calendar.CodeForbidden || c == calendar.CodeInvalid {
				return calendar.Invalidf("calendarIds", "calendar %q is not one you can read", id)
			}
			return err
		}
	}
	return nil
}

// newCursor is h's cursor in calendarID's log, at its head now.
func (s *Store) newCursor(ctx context.Context, h calHookRecord, calendarID string) (cursorRecord, error) {
	token, err := s.StartToken(ctx, calendarID, false)
	if err != nil {
		return cursorRecord{}, err
	}
	k := calHookCursorKey(calendarID, h.OwnerID, h.ID)
	return cursorRecord{PK: k.PK, SK: k.SK, EntityType: entityCalHookCursor, WebhookID: h.ID, OwnerID: h.OwnerID,
		CalendarID: calendarID, Token: token}, nil
}

// reconcileHook gives a webhook of everything its owner reads a cursor in
// each calendar it follows that has none (at the log's head; a calendar
// joined later is followed from when this runs: read it whole with
// Calendar.changes to have what came before). Cursors of calendars the
// owner lost are left to the worker, which tells the receiver
// (ACCESS_LOST) and deletes them.
func (s *Store) reconcileHook(ctx context.Context, h calHookRecord) error {
	if h.CalendarID != "" {
		return nil
	}
	mems, err := s.AllMembershipsOfUser(ctx, h.OwnerID, maxHookCursors)
	if err != nil {
		return err
	}
	have, err := s.cursorsIn(ctx, h, mems)
	if err != nil {
		return err
	}
	hook := h.webhook()
	for _, m := range mems {
		if !m.Role.Can(calendar.ActionRead) || !hook.Follows(m.CalendarID) || slices.Contains(have, m.CalendarID) {
			continue
		}
		c, err := s.newCursor(ctx, h, m.CalendarID)
		if err != nil {
			return err
		}
		w := newWrite()
		w.Put(c.key(), c, notExists(), explainWith(errCursorExists))
		w.Guard(opCheck(h.key(), exists(), explainWith(errNoWebhook)))
		switch err := s.commitSmall(ctx, w); {
		case errors.Is(err, errNoWebhook):
			return nil
		case err != nil && !errors.Is(err, errCursorExists):
			return fmt.Errorf("follow calendar %s for webhook %s: %w", m.CalendarID, h.ID, err)
		}
	}
	return nil
}

// errCursorExists: another worker put the cursor first.
var errCursorExists = errors.New("the webhook already follows the calendar")

// maxHookCursors bounds the calendars one webhook follows (the owner's
// memberships read by reconcileHook).
const maxHookCursors = 1000

// cursorsOfHook returns the calendars h has cursors in. The cursors are
// partitioned by calendar, so this reads the owner's memberships, then
// each one's cursor: a BatchGetItem of at most maxHookCursors keys.
func (s *Store) cursorsOfHook(ctx context.Context, h calHookRecord) ([]string, error) {
	mems, err := s.AllMembershipsOfUser(ctx, h.OwnerID, maxHookCursors)
	if err != nil {
		return nil, err
	}
	return s.cursorsIn(ctx, h, mems)
}

// cursorsIn returns the calendars of mems that h has cursors in.
func (s *Store) cursorsIn(ctx context.Context, h calHookRecord, mems []*calendar.Membership) ([]string, error) {
	keys := make([]itemKey, 0, len(mems))
	for _, m := range mems {
		keys = append(keys, calHookCursorKey(m.CalendarID, h.OwnerID, h.ID))
	}
	items, err := s.batchGet(ctx, keys)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, it := range items {
		if it != nil {
			out = append(out, stringAttr(it, "calendarId"))
		}
	}
	return out, nil
}

// hooksOf reads ownerID's calendar webhooks, oldest first.
func (s *Store) hooksOf(ctx context.Context, ownerID string) ([]calHookRecord, error) {
	k := calHookKey(ownerID, "")
	lo, hi := prefixRange(calHookOwnerPrefix(ownerID))
	items, err := s.queryBetween(ctx, "", attrSK, k.PK, lo, hi, filter{}, math.MaxInt)
	if err != nil {
		return nil, fmt.Errorf("read the calendar webhooks of %s: %w", ownerID, err)
	}
	out := make([]calHookRecord, 0, len(items))
	for _, it := range items {
		r, err := unmarshal[calHookRecord](it)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	slices.SortFunc(out, func(a, b calHookRecord) int { return a.CreatedAt.Compare(b.CreatedAt) })
	return out, nil
}
