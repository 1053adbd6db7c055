package dynamo

import (
	"context"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"

	"github.com/calgraph/calgraph/internal/calendar"
)

// errIdentityTaken reports that another request registered the same identity
// first; the caller then reads whom it was registered to.
var errIdentityTaken = errors.New("identity already registered")

// ResolveIdentity implements calendar.UserService. The lookup goes through GSI3;
// creation is one transaction that reserves the identity and the email with
// uniqueness items, so concurrent first sign-ins create exactly one user. GSI3 is
// eventually consistent, so a user created a moment ago can be missed by the
// lookup: the identity reservation then fails and the consistent read of the
// reservation finds the user.
func (s *Store) ResolveIdentity(ctx context.Context, su calendar.SignUp) (string, bool, error) {
	if err := su.Identity.Validate(); err != nil {
		return "", false, err
	}
	id, found, err := s.userIDByIdentity(ctx, su.Identity)
	if err != nil || found {
		return id, false, err
	}
	// Only a new user needs usable claims: an existing one signs in whatever
	// their token now says about their email.
	if su, err = su.Normalize(); err != nil {
		return "", false, err
	}
	id, err = s.createUser(ctx, su)
	if errors.Is(err, errIdentityTaken) {
		id, err = s.userIDFromGuard(ctx, identityKey(su.Identity.Provider, su.Identity.Subject))
		return id, false, err
	}
	return id, err == nil, err
}

// userIDByIdentity looks the identity up in GSI3 and reports whether it found it.
func (s *Store) userIDByIdentity(ctx context.Context, ident calendar.Identity) (string, bool, error) {
	ik := identityIndexKey(ident.Provider, ident.Subject, "")
	out, err := s.reads.Query(ctx, keyQuery{index: indexGSI3, pkAttr: attrGSI3PK, partition: ik.PK, limit: 1}.input(s.table))
	if err != nil {
		return "", false, fmt.Errorf("look up identity: %w", err)
	}
	if len(out.Items) == 0 {
		return "", false, nil
	}
	return stringAttr(out.Items[0], "id"), true, nil
}

func (s *Store) createUser(ctx context.Context, su calendar.SignUp) (string, error) {
	now := s.timestamp()
	u := &calendar.User{
		ID: s.newID(), Name: su.Name, Email: su.Email, Identity: su.Identity,
		Preferences: calendar.DefaultPreferences(), Version: 1, CreatedAt: now, UpdatedAt: now,
	}
	ik, ek, uk := identityKey(su.Identity.Provider, su.Identity.Subject), emailKey(u.Email), userKey(u.ID)
	w := newWrite()
	w.Idempotent(ctx)
	w.Put(ik, newGuardRecord(ik, entityIdentity, u.ID), notExists(), func(item) error { return errIdentityTaken })
	w.Put(ek, newGuardRecord(ek, entityEmail, u.ID), notExists(),
		mustBeNew(calendar.CodeAlreadyExists, "the email %s is already registered to another account", u.Email))
	w.Put(uk, newUserRecord(u), notExists(), mustBeNew(calendar.CodeInternal, "user ID collision"))
	if err := s.commit(ctx, w); err != nil {
		return "", fmt.Errorf("create user for %s: %w", u.Email, err)
	}
	return u.ID, nil
}

func (s *Store) userIDFromGuard(ctx context.Context, k itemKey) (string, error) {
	it, found, err := s.getItem(ctx, k)
	if err != nil {
		return "", err
	}
	if !found {
		return "", fmt.Errorf("uniqueness item %s vanished", k.PK)
	}
	return stringAttr(it, "userId"), nil
}

// UpdateProfile implements calendar.UserService.
func (s *Store) UpdateProfile(ctx context.Context, upd calendar.ProfileUpdate) (*calendar.User, error) {
	return s.updateUser(ctx, upd.ExpectedVersion, upd.Apply)
}

// UpdatePreferences implements calendar.PreferencesService; preferences live on
// the user item and share its version.
func (s *Store) UpdatePreferences(ctx context.Context, upd calendar.PreferencesUpdate) (*calendar.User, error) {
	return s.changeUser(ctx, upd.ExpectedVersion, func(u calendar.User) (calendar.User, []txOp, error) {
		p, err := upd.Apply(u.Preferences)
		u.Preferences = p
		if err != nil || !upd.WorkingHours.Set {
			return u, nil, err
		}
		return u, []txOp{workingHoursWrite(u.ID, upd.WorkingHours.Value, s.timestamp())}, nil
	})
}

// updateUser reads the viewer, checks the version, applies change and writes
// the whole user item back under a version condition.
func (s *Store) updateUser(ctx context.Context, expectedVersion int, change func(calendar.User) (calendar.User, error)) (*calendar.User, error) {
	return s.changeUser(ctx, expectedVersion, func(u calendar.User) (calendar.User, []txOp, error) {
		u, err := change(u)
		return u, nil, err
	})
}

// changeUser is updateUser for changes that write other items with the user,
// in the same transaction.
func (s *Store) changeUser(ctx context.Context, expectedVersion int, change func(calendar.User) (calendar.User, []txOp, error)) (*calendar.User, error) {
	viewer, err := calendar.ViewerID(ctx)
	if err != nil {
		return nil, err
	}
	it, found, err := s.getItem(ctx, userKey(viewer))
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, calendar.Errorf(calendar.CodeNotFound, "user not found")
	}
	rec, err := unmarshal[userRecord](it)
	if err != nil {
		return nil, err
	}
	u := rec.user()
	if u.Version != expectedVersion {
		return nil, versionMismatch("user", expectedVersion)(it)
	}
	updated, extra, err := change(*u)
	if err != nil {
		return nil, err
	}
	updated.Version, updated.UpdatedAt = u.Version+1, s.timestamp()
	w := newWrite()
	w.Idempotent(ctx)
	w.Put(userKey(u.ID), newUserRecord(&updated), versionIs(u.Version), versionMismatch("user", expectedVersion))
	w.Add(extra...)
	if err := s.commitSmall(ctx, w); err != nil {
		return nil, err
	}
	return &updated, nil
}

// ChangeEmail implements calendar.UserService: one transaction writes the
// user, releases the old email's uniqueness item and takes the new one's.
func (s *Store) ChangeEmail(ctx context.Context, email string, expectedVersion int) (*calendar.User, error) {
	email, err := calendar.NormalizeEmail(email)
	if err != nil {
		return nil, err
	}
	if verified, _ := calendar.NormalizeEmail(calendar.ViewerOf(ctx).Email); verified != email {
		return nil, calendar.Invalidf("email", "sign in with a token that carries %s, verified by its issuer, to make it your email", email)
	}
	return s.changeUser(ctx, expectedVersion, func(u calendar.User) (calendar.User, []txOp, error) {
		old := u.Email
		u.Email = email
		if old == email {
			return u, nil, nil
		}
		ok, nk := emailKey(old), emailKey(email)
		owned := exists().And(expression.Name("userId").Equal(expression.Value(u.ID)))
		return u, []txOp{
			opDelete(ok, owned, mustBeNew(calendar.CodeInternal, "the email %s was not the user's", old)),
			opPut(nk, newGuardRecord(nk, entityEmail, u.ID), notExists(),
				mustBeNew(calendar.CodeAlreadyExists, "the email %s is already registered to another account", email)),
		}, nil
	})
}
