package dynamo

import (
	"context"
	"encoding/json"

	"github.com/calgraph/calgraph/internal/calendar"
)

// ChangesBody renders a calendar webhook's delivery. Reading the changes it
// must act as req.OwnerID and fail as Calendar.changes does: CodeNotFound
// or CodeForbidden when the owner may no longer read the calendar,
// CodeSyncTokenExpired past the retention. The server's renders them with
// the GraphQL executor (graph.WebhookChanges), so that they are the very
// Change objects Calendar.changes returns.
type ChangesBody func(ctx context.Context, req calendar.HookRequest) (calendar.HookBody, error)

// PlainChangesBody renders deliveries from the store's own reads, with its
// own IDs and domain objects (a store without the GraphQL layer: tests).
// It redacts nothing: the server's renderer does.
func (s *Store) PlainChangesBody(ctx context.Context, req calendar.HookRequest) (calendar.HookBody, error) {
	type change struct {
		Type    calendar.ObjectType `json:"type"`
		ID      string              `json:"id"`
		Deleted bool                `json:"deleted"`
		Node    any                 `json:"node"`
	}
	body := map[string]any{"kind": req.Kind, "webhookId": req.WebhookID, "calendarId": req.CalendarID, "syncToken": req.Token}
	if req.Kind != calendar.HookChanges {
		b, err := json.Marshal(body)
		return calendar.HookBody{Body: b, Next: req.Token}, err
	}
	ctx = calendar.WithViewer(ctx, calendar.Viewer{ID: req.OwnerID})
	page, err := s.Changes(ctx, req.CalendarID, req.Token, req.First)
	if err != nil {
		return calendar.HookBody{}, err
	}
	changes := []change{}
	for _, c := range page.Changes {
		if len(req.Types) > 0 && !containsType(req.Types, c.Type) {
			continue
		}
		var node any
		switch {
		case c.Deleted:
		case c.Entry != nil:
			node = c.Entry
		case c.Membership != nil:
			node = c.Membership
		case c.Calendar != nil:
			node = c.Calendar
		}
		changes = append(changes, change{Type: c.Type, ID: c.ID, Deleted: c.Deleted, Node: node})
	}
	body["changes"], body["syncToken"], body["hasMore"] = changes, page.Token, page.More
	b, err := json.Marshal(body)
	return calendar.HookBody{Body: b, Count: len(changes), Next: page.Token, More: page.More}, err
}

func containsType(ts []calendar.ObjectType, t calendar.ObjectType) bool {
	for _, x := range ts {
		if x == t {
			return true
		}
	}
	return false
}
