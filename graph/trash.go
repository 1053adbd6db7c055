package graph

import (
	"context"

	"github.com/calgraph/calgraph/graph/model"
	"github.com/calgraph/calgraph/internal/calendar"
	"github.com/calgraph/calgraph/internal/loader"
)

// trashConnection reads a page of a calendar's trash (the store checks the
// viewer's role) as its Relay connection. Trashed entries are shown as
// they were and not primed into the request's loaders: they do not exist.
func (r *Resolver) trashConnection(ctx context.Context, cal *calendar.Calendar, p calendar.Page) (*model.TrashConnection, error) {
	page, err := r.Service.Trash(ctx, cal.ID, p)
	if err != nil {
		return nil, err
	}
	end := ""
	if n := len(page.Cursors); n > 0 {
		end = page.Cursors[n-1]
	}
	conn := &model.TrashConnection{Edges: make([]*model.TrashEdge, len(page.Entries)),
		PageInfo: pageInfo(page.Cursors, end, page.HasNextPage)}
	for i, t := range page.Entries {
		conn.Edges[i] = &model.TrashEdge{Cursor: page.Cursors[i], Node: model.TrashedEntryOf(t, cal)}
	}
	return conn, nil
}

// restoreEntry restores a trashed entry, once per idempotency key.
func (r *Resolver) restoreEntry(ctx context.Context, input model.RestoreEntryInput) (*model.RestoreEntryPayload, error) {
	key, err := model.DecodeEntryID("id", input.ID)
	if err != nil {
		return nil, err
	}
	e, err := onceOn(ctx, r.Service, input.IdempotencyKey, func(ctx context.Context) (*calendar.Entry, *calendar.Calendar, error) {
		return r.Service.RestoreEntry(ctx, key)
	})
	if err != nil {
		return nil, err
	}
	out, err := entryOut(ctx, e)
	if err != nil {
		return nil, err
	}
	return &model.RestoreEntryPayload{Entry: out}, nil
}

// deletedBy is who deleted a trashed entry: a user the viewer, who may
// read the entry whole, may see; nil when their account is gone.
func deletedBy(ctx context.Context, t *model.TrashedEntry) (*calendar.User, error) {
	return loader.For(ctx).UserOnEntry(ctx, t.DeletedByID)
}
