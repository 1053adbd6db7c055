package dynamo

import (
	"context"
	"encoding/json"

	"github.com/calgraph/calgraph/internal/calendar"
)

// ChangesRequest is what a calendar webhook's delivery is rendered from:
// for calendar.HookChanges, the changes of CalendarID after Token, at most
// First, as OwnerID may read them and of Types (all when empty); for the
// other kinds, the notice alone (Token is then the one to go on from).
type ChangesRequest struct {
	Kind       string
	WebhookID  string
	OwnerID    string
	CalendarID string
	Token      string
	First      int
	Types      []calendar.ObjectType
}

// RenderedChanges is a rendered delivery: its JSON body, how many changes
// it carries (those the filter kept), and the sync token after them (Next),
// with More when the log holds more after it.
type RenderedChanges struct {
	Body  []byte
	Count int
	Next  string
	More  bool
}

// ChangesBody renders a calendar webhook's delivery. Reading the changes it
// must act as req.OwnerID and fail as Calendar.changes does: CodeNotFound
// or CodeForbidden when the owner may no longer read the calendar,
// CodeSyncTokenExpired past the retention. The server's renders them with
// the GraphQL executor (graph.WebhookChanges), so that they are the very
// Change objects Calendar.changes returns.
type ChangesBody func(ctx context.Context, req ChangesRequest) (RenderedChanges, error)

// PlainChangesBody renders deliveries from the store's own reads, with its
// own IDs and domain objects (a store without the GraphQL layer: tests).
// It redacts nothing: the server's renderer does.
func (s *Store) PlainChangesBody(ctx context.Context, req ChangesRequest) (RenderedChanges, error) {
	type change struct {
		Type    calendar.ObjectType `json:"type"`
		ID      string              `json:"id"`
		Deleted bool                `json:"deleted"`
		Node    any                 `json:"node"`
	}
	body := map[string]any{"kind": req.Kind, "webhookId": req.WebhookID, "calendarId": req.CalendarID, "syncToken": req.Token}
	if req.Kind != calendar.HookChanges {
		b, err := json.Marshal(body)
		return RenderedChanges{Body: b, Next: req.Token}, err
	}
	ctx = calendar.WithViewer(ctx, calendar.Viewer{ID: req.OwnerID})
	page, err := s.Changes(ctx, req.CalendarID, req.Token, req.First)
	if err != nil {
		return RenderedChanges{}, err
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
	return RenderedChanges{Body: b, Count: len(changes), Next: page.Token, More: page.More}, err
}

func containsType(ts []calendar.ObjectType, t calendar.ObjectType) bool {
	for _, x := range ts {
		if x == t {
			return true
		}
	}
	return false
}
