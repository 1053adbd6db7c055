package graph

import (
	"context"
	"fmt"

	"github.com/calgraph/calgraph/graph/model"
	"github.com/calgraph/calgraph/internal/calendar"
	"github.com/calgraph/calgraph/internal/loader"
)

// deleteAccount deletes the viewer's account, under the request's
// idempotency key. A replay of a deletion that went through answers as the
// first time; its own sign-in, though, found the identity without an account
// and made a new one, which goes too, so that the deletion the client asked
// for stays done, unless it is a member of a calendar already (a request
// with the same token using it meanwhile; the check reads an eventually
// consistent index, so a calendar made within about a second before can be
// missed). An account made by an earlier request is left alone.
func (r *mutationResolver) deleteAccount(ctx context.Context, input model.DeleteAccountInput) (accountDeleted, error) {
	out, err := once(ctx, r.Service, input.IdempotencyKey, func(ctx context.Context) (accountDeleted, error) {
		return r.deleteViewer(ctx, input.ConfirmEmail)
	})
	if viewer := calendar.ViewerOf(ctx); err != nil || out.UserID == viewer.ID || !viewer.SignedUp {
		return out, err
	}
	made, err := loader.For(ctx).Viewer(ctx)
	var used *calendar.MembershipPage
	if err == nil {
		used, err = loader.For(ctx).ViewerCalendars(ctx, calendar.Page{First: 1}, true)
	}
	if err == nil && len(used.Memberships) == 0 {
		_, err = r.deleteViewer(ctx, made.Email)
	}
	if err != nil {
		return accountDeleted{}, fmt.Errorf("delete the account the replay's sign-in made: %w", err)
	}
	return out, nil
}

// deleteViewer deletes the viewer's account and forgets its identity.
func (r *mutationResolver) deleteViewer(ctx context.Context, confirmEmail string) (accountDeleted, error) {
	u, cals, err := r.Service.DeleteAccount(ctx, confirmEmail)
	if err != nil {
		return accountDeleted{}, err
	}
	if r.ForgetIdentity != nil {
		r.ForgetIdentity(u.Identity)
	}
	return accountDeleted{UserID: u.ID, Calendars: cals}, nil
}
