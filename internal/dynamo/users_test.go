package dynamo_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/calgraph/calgraph/internal/calendar"
)

func TestResolveIdentity(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	first, created, err := f.store.ResolveIdentity(ctx, calendar.SignUp{
		Identity: calendar.Identity{Provider: "https://issuer.example", Subject: "s1"}, Email: " Ada@Example.com ", Name: "Ada",
	})
	if err != nil || !created {
		t.Fatalf("first sign-in: created %v, %v; want the user made", created, err)
	}
	tests := []struct {
		name     string
		signUp   calendar.SignUp
		wantID   string
		wantCode calendar.Code
	}{
		{"same identity finds the user", calendar.SignUp{Identity: calendar.Identity{Provider: "https://issuer.example", Subject: "s1"}, Email: "other@example.com"}, first, -1},
		{"same identity, token without email", calendar.SignUp{Identity: calendar.Identity{Provider: "https://issuer.example", Subject: "s1"}, EmailUnverified: true}, first, -1},
		{"new identity with an unverified email", calendar.SignUp{Identity: calendar.Identity{Provider: "https://issuer.example", Subject: "s9"}, Email: "free@example.com", EmailUnverified: true}, "", calendar.CodeUnauthenticated},
		{"email of another user", calendar.SignUp{Identity: calendar.Identity{Provider: "https://issuer.example", Subject: "s2"}, Email: "ada@example.com"}, "", calendar.CodeAlreadyExists},
		{"email differs only in case", calendar.SignUp{Identity: calendar.Identity{Provider: "other", Subject: "s1"}, Email: "ADA@EXAMPLE.COM"}, "", calendar.CodeAlreadyExists},
		{"no email", calendar.SignUp{Identity: calendar.Identity{Provider: "p", Subject: "s3"}}, "", calendar.CodeUnauthenticated},
		{"bad email", calendar.SignUp{Identity: calendar.Identity{Provider: "p", Subject: "s3"}, Email: "Ada <ada@x.org>"}, "", calendar.CodeUnauthenticated},
		{"no subject", calendar.SignUp{Identity: calendar.Identity{Provider: "p"}, Email: "z@example.com"}, "", calendar.CodeUnauthenticated},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id, created, err := f.store.ResolveIdentity(ctx, tt.signUp)
			if tt.wantCode >= 0 {
				wantCode(t, err, tt.wantCode)
				return
			}
			if err != nil || id != tt.wantID || created {
				t.Fatalf("got %q (created %v), %v; want %q found", id, created, err, tt.wantID)
			}
		})
	}
	if got := f.countEntities(); got["USER"] != 1 || got["EMAIL"] != 1 || got["IDENTITY"] != 1 {
		t.Errorf("got entities %v, want one user with its two uniqueness items", got)
	}
}

func TestResolveIdentityIsEscaped(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	a, _, err := f.store.ResolveIdentity(ctx, calendar.SignUp{Identity: calendar.Identity{Provider: "a#b", Subject: "c"}, Email: "one@example.com"})
	if err != nil {
		t.Fatal(err)
	}
	b, _, err := f.store.ResolveIdentity(ctx, calendar.SignUp{Identity: calendar.Identity{Provider: "a", Subject: "b#c"}, Email: "two@example.com"})
	if err != nil {
		t.Fatal(err)
	}
	if a == b {
		t.Fatalf("identities (a#b, c) and (a, b#c) resolved to the same user %s", a)
	}
}

func TestConcurrentSignUps(t *testing.T) {
	const n = 20
	t.Run("same identity creates one user", func(t *testing.T) {
		f := newFixture(t)
		ids := make([]string, n)
		errs := make([]error, n)
		var made atomic.Int32
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() {
				var created bool
				defer func() {
					if created {
						made.Add(1)
					}
				}()
				ids[i], created, errs[i] = f.store.ResolveIdentity(context.Background(), calendar.SignUp{
					Identity: calendar.Identity{Provider: "p", Subject: "same"}, Email: "same@example.com",
				})
			})
		}
		wg.Wait()
		for i := range n {
			if errs[i] != nil || ids[i] != ids[0] {
				t.Fatalf("sign-in %d: got %q, %v; want %q", i, ids[i], errs[i], ids[0])
			}
		}
		if got := f.countEntities()["USER"]; got != 1 || made.Load() != 1 {
			t.Fatalf("got %d users, %d sign-ins that made one; want 1 and 1", got, made.Load())
		}
	})
	t.Run("same email, different identities: exactly one user", func(t *testing.T) {
		f := newFixture(t)
		errs := make([]error, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() {
				_, _, errs[i] = f.store.ResolveIdentity(context.Background(), calendar.SignUp{
					Identity: calendar.Identity{Provider: "p", Subject: fmt.Sprint("subject-", i)}, Email: "shared@example.com",
				})
			})
		}
		wg.Wait()
		ok := 0
		for _, err := range errs {
			if err == nil {
				ok++
			} else if calendar.ErrorCode(err) != calendar.CodeAlreadyExists {
				t.Errorf("got %v, want success or ALREADY_EXISTS", err)
			}
		}
		if ok != 1 {
			t.Errorf("got %d successful sign-ups, want 1", ok)
		}
		if got := f.countEntities(); got["USER"] != 1 || got["EMAIL"] != 1 || got["IDENTITY"] != 1 {
			t.Errorf("got entities %v, want exactly one user, email and identity item", got)
		}
	})
}

func TestUpdateProfile(t *testing.T) {
	f := newFixture(t)
	ada := f.user("ada@example.com")
	tests := []struct {
		name     string
		ctx      context.Context
		update   calendar.ProfileUpdate
		wantName string
		wantCode calendar.Code
	}{
		{"rename", ada, calendar.ProfileUpdate{ExpectedVersion: 1, Name: calendar.Set(" Ada Lovelace ")}, "Ada Lovelace", -1},
		{"stale version", ada, calendar.ProfileUpdate{ExpectedVersion: 1, Name: calendar.Set("X")}, "", calendar.CodeVersionConflict},
		{"empty name", ada, calendar.ProfileUpdate{ExpectedVersion: 2, Name: calendar.Set("  ")}, "", calendar.CodeInvalid},
		{"omitted name keeps it", ada, calendar.ProfileUpdate{ExpectedVersion: 2}, "Ada Lovelace", -1},
		{"anonymous", context.Background(), calendar.ProfileUpdate{ExpectedVersion: 3}, "", calendar.CodeUnauthenticated},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u, err := f.store.UpdateProfile(tt.ctx, tt.update)
			if tt.wantCode >= 0 {
				wantCode(t, err, tt.wantCode)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if u.Name != tt.wantName || u.Version != tt.update.ExpectedVersion+1 {
				t.Fatalf("got %q version %d, want %q version %d", u.Name, u.Version, tt.wantName, tt.update.ExpectedVersion+1)
			}
		})
	}
}
