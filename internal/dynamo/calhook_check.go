package dynamo

import (
	"fmt"

	"github.com/calgraph/calgraph/internal/calendar"
)

// calHooksSeen is what the checker found of calendar webhooks.
type calHooksSeen struct {
	hooks   map[itemKey]calHookRecord
	counts  map[string]int // the owners' counts, as their count items say
	cursors []cursorRecord
}

// addCalHookItem files a calendar webhook, count or cursor.
func (c *checker) addCalHookItem(it item) error {
	if c.calHooks == nil {
		c.calHooks = &calHooksSeen{hooks: map[itemKey]calHookRecord{}, counts: map[string]int{}}
	}
	switch stringAttr(it, "entityType") {
	case entityCalHook:
		r, err := unmarshal[calHookRecord](it)
		c.calHooks.hooks[r.key()] = r
		return err
	case entityCalHookCursor:
		r, err := unmarshal[cursorRecord](it)
		c.calHooks.cursors = append(c.calHooks.cursors, r)
		return err
	}
	n, err := unmarshal[struct {
		Hooks int `dynamodbav:"hooks"`
	}](it)
	c.calHooks.counts[stringAttr(it, attrSK)] = n.Hooks
	return err
}

// checkCalHooks reports calendar webhooks that do not read back whole (no
// URL, secret or known state; a user who does not exist), owners whose
// count is not their webhooks or more than calendar.MaxCalendarWebhooks,
// and cursors of no webhook, of a calendar their webhook does not follow,
// with a token that is not of their calendar or a delivery without body.
func (c *checker) checkCalHooks() {
	seen := c.calHooks
	if seen == nil {
		return
	}
	owned := map[string]int{}
	for k, h := range seen.hooks {
		owned[h.OwnerID]++
		switch calendar.WebhookState(h.State) {
		case calendar.WebhookActive, calendar.WebhookFailing:
		default:
			c.problem("calendar webhook %s/%s: state %q", k.PK, k.SK, h.State)
		}
		if h.URL == "" || h.Secret == "" || len(h.Log) > calendar.MaxWebhookLog || calHookKey(h.OwnerID, h.ID) != k {
			c.problem("calendar webhook %s/%s: url %q, a secret of %d bytes, %d logged, owner %q", k.PK, k.SK, h.URL, len(h.Secret), len(h.Log), h.OwnerID)
		}
		if c.users[h.OwnerID].ID == "" && !c.pending[pendingUser+"#"+h.OwnerID] {
			c.problem("calendar webhook %s/%s of user %q, who does not exist", k.PK, k.SK, h.OwnerID)
		}
	}
	for owner, n := range owned {
		if n > calendar.MaxCalendarWebhooks || seen.counts[owner] != n {
			c.problem("user %s has %d calendar webhooks, counted %d (at most %d)", owner, n, seen.counts[owner], calendar.MaxCalendarWebhooks)
		}
	}
	for _, cur := range seen.cursors {
		h, ok := seen.hooks[cur.hookKey()]
		where := fmt.Sprintf("webhook cursor %s/%s", cur.PK, cur.SK)
		switch {
		case !ok:
			c.problem("%s: its webhook %s does not exist", where, cur.WebhookID)
		case !h.webhook().Follows(cur.CalendarID):
			c.problem("%s: its webhook does not follow calendar %s", where, cur.CalendarID)
		case calHookCursorKey(cur.CalendarID, cur.OwnerID, cur.WebhookID) != cur.key():
			c.problem("%s: keyed as another cursor", where)
		case cur.Pending != nil && (cur.Pending.ID == "" || len(cur.Pending.Body) == 0):
			c.problem("%s: a delivery under way without ID or body", where)
		}
		if _, err := decodeToken(cur.Token, cur.CalendarID, false); err != nil {
			c.problem("%s: token %q is not of its calendar: %v", where, cur.Token, err)
		}
	}
}
