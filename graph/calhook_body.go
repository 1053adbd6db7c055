package graph

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"

	"github.com/calgraph/calgraph/graph/model"
	"github.com/calgraph/calgraph/internal/calendar"
)

// WebhookChangesQuery is the query a calendar webhook's changes are read
// with, as its owner: each delivery's "changes" are this selection of
// Calendar.changes, exactly as the API answers it to the owner (private
// entries of others redacted, ids global). A calendar's color and time zone come as
// calendarColor and calendarTimeZone: GraphQL refuses two fields of one name and
// different nullability (Calendar's and an entry's) in one selection.
const WebhookChangesQuery = `query CalgraphWebhookChanges($id: ID!, $token: String, $first: Int) {
  calendar(id: $id) {
    changes(syncToken: $token, first: $first) {
      changes {
        type id deleted
        node {
          __typename id
          ... on Calendar { name calendarColor: color description calendarTimeZone: timeZone isResource version updatedAt }
          ... on Membership { role version updatedAt user { id } }
          ... on Entry { ...WebhookEntry }
        }
        exceptions { ...WebhookEntry }
      }
      hasMore syncToken
    }
  }
}
fragment WebhookEntry on Entry {
  id kind title description location color tags transparency visibility redacted
  icalUid sequence version createdAt updatedAt status originalStart isException previousSeriesId
  recurrence { rule rdates exdates }
  ... on TimedEntry { start end timeZone }
  ... on AllDayEntry { date originalDate }
  ... on MultiDayEntry { startDate endDate }
  ... on Task { dueDate due timeZone completed completedAt }
}`

// WebhookChanges renders calendar webhooks' deliveries
// (dynamo.CalendarWebhookWorker.Render) by running WebhookChangesQuery
// through gql, the GraphQL handler (inside authentication), as the
// webhook's owner: so a delivery holds what Calendar.changes would answer
// them, and fails as it would (NOT_FOUND, FORBIDDEN, SYNC_TOKEN_EXPIRED).
// The body is {"kind", "webhookId", "calendarId", "changes", "hasMore",
// "syncToken"}; the notices (ACCESS_LOST, SYNC_TOKEN_EXPIRED) have no
// changes.
func WebhookChanges(gql http.Handler) func(context.Context, calendar.HookRequest) (calendar.HookBody, error) {
	return func(ctx context.Context, req calendar.HookRequest) (calendar.HookBody, error) {
		env := map[string]any{"kind": req.Kind, "webhookId": req.WebhookID, "calendarId": model.CalendarGID(req.CalendarID), "syncToken": req.Token}
		if req.Kind != calendar.HookChanges {
			b, err := json.Marshal(env)
			return calendar.HookBody{Body: b, Next: req.Token}, err
		}
		page, err := runChangesQuery(ctx, gql, req)
		if err != nil {
			return calendar.HookBody{}, err
		}
		kept := []json.RawMessage{}
		for _, c := range page.Changes {
			var head struct{ Type model.ChangeType }
			if err := json.Unmarshal(c, &head); err != nil {
				return calendar.HookBody{}, err
			}
			if len(req.Types) == 0 || slices.Contains(req.Types, changeTypes[head.Type]) {
				kept = append(kept, c)
			}
		}
		env["changes"], env["hasMore"], env["syncToken"] = kept, page.HasMore, page.SyncToken
		b, err := json.Marshal(env)
		return calendar.HookBody{Body: b, Count: len(kept), Next: page.SyncToken, More: page.HasMore}, err
	}
}

// changesPage is Calendar.changes as WebhookChangesQuery reads it.
type changesPage struct {
	Changes   []json.RawMessage `json:"changes"`
	HasMore   bool              `json:"hasMore"`
	SyncToken string            `json:"syncToken"`
}

// runChangesQuery runs WebhookChangesQuery for req as its owner. An error
// of the answer comes back with its domain code (domainCode), so that the
// worker tells lost access and expired tokens apart.
func runChangesQuery(ctx context.Context, gql http.Handler, req calendar.HookRequest) (changesPage, error) {
	vars := map[string]any{"id": model.CalendarGID(req.CalendarID), "first": req.First}
	if req.Token != "" {
		vars["token"] = req.Token
	}
	in, err := json.Marshal(map[string]any{"query": WebhookChangesQuery, "variables": vars})
	if err != nil {
		return changesPage{}, err
	}
	ctx = calendar.WithViewer(ctx, calendar.Viewer{ID: req.OwnerID})
	r, err := http.NewRequestWithContext(ctx, http.MethodPost, "/graphql", bytes.NewReader(in))
	if err != nil {
		return changesPage{}, err
	}
	r.Header.Set("Content-Type", "application/json")
	w := &answer{header: http.Header{}}
	gql.ServeHTTP(w, r)
	var out struct {
		Data *struct {
			Calendar *struct {
				Changes changesPage `json:"changes"`
			} `json:"calendar"`
		} `json:"data"`
		Errors []struct {
			Message    string `json:"message"`
			Extensions struct {
				Code string `json:"code"`
			} `json:"extensions"`
		} `json:"errors"`
	}
	if err := json.Unmarshal(w.body.Bytes(), &out); err != nil {
		return changesPage{}, fmt.Errorf("read the webhook's changes: status %d: %w", w.status, err)
	}
	if len(out.Errors) > 0 {
		return changesPage{}, calendar.Errorf(domainCode(out.Errors[0].Extensions.Code), "read the webhook's changes: %s", out.Errors[0].Message)
	}
	if out.Data == nil || out.Data.Calendar == nil {
		return changesPage{}, fmt.Errorf("read the webhook's changes: no data (status %d)", w.status)
	}
	return out.Data.Calendar.Changes, nil
}

// answer is the http.ResponseWriter of an in-process query.
type answer struct {
	header http.Header
	body   bytes.Buffer
	status int
}

func (a *answer) Header() http.Header { return a.header }
func (a *answer) Write(b []byte) (int, error) {
	if a.status == 0 {
		a.status = http.StatusOK
	}
	return a.body.Write(b)
}
func (a *answer) WriteHeader(status int) { a.status = status }
