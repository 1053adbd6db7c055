// Package demo loads a small demo data set through the domain services, so
// that a new user of calgraph has something to look at in GraphiQL.
package demo

import (
	"context"
	"fmt"

	"github.com/calgraph/calgraph/internal/calendar"
)

// Users are the demo users; dev tokens minted for these emails sign in as them.
var Users = []struct{ Email, Name string }{
	{"dev@example.com", "Dev Eloper"},
	{"alice@example.com", "Alice Liddell"},
	{"bob@example.com", "Bob Marley"},
}

// Seed creates the demo users (signed in with identity provider, the dev-token
// issuer, and their email as subject) and three calendars shared among them.
// It does nothing when the first demo user already has calendars, so running
// it twice is harmless. It returns whether it created anything.
func Seed(ctx context.Context, svc calendar.Service, provider string) (bool, error) {
	ctxs := make([]context.Context, len(Users))
	for i, u := range Users {
		id, err := svc.ResolveIdentity(ctx, calendar.SignUp{
			Identity: calendar.Identity{Provider: provider, Subject: u.Email}, Email: u.Email, Name: u.Name,
		})
		if err != nil {
			return false, fmt.Errorf("seed user %s: %w", u.Email, err)
		}
		ctxs[i] = calendar.WithViewer(ctx, id)
	}
	dev, alice := ctxs[0], ctxs[1]
	devID, _ := calendar.ViewerID(dev)
	existing, err := svc.MembershipsOfUser(dev, devID, calendar.Page{First: 1})
	if err != nil {
		return false, fmt.Errorf("seed: %w", err)
	}
	if len(existing.Memberships) > 0 {
		return false, nil
	}
	type share struct {
		email string
		role  calendar.Role
	}
	calendars := []struct {
		owner  context.Context
		cal    calendar.NewCalendar
		shares []share
	}{
		{dev, calendar.NewCalendar{Name: "Team", Color: "#22C55E", Description: "Shared team calendar", TimeZone: "Europe/Paris"},
			[]share{{"alice@example.com", calendar.RoleWriter}, {"bob@example.com", calendar.RoleReader}}},
		{dev, calendar.NewCalendar{Name: "Personal", Color: "#8B5CF6", TimeZone: "America/New_York"}, nil},
		{alice, calendar.NewCalendar{Name: "Room 101", Color: "#F97316", Description: "Meeting room, bookable", TimeZone: "Europe/Paris", IsResource: true},
			[]share{{"dev@example.com", calendar.RoleWriter}, {"bob@example.com", calendar.RoleWriter}}},
	}
	for _, c := range calendars {
		created, _, err := svc.CreateCalendar(c.owner, c.cal)
		if err != nil {
			return false, fmt.Errorf("seed calendar %s: %w", c.cal.Name, err)
		}
		for _, s := range c.shares {
			if _, err := svc.AddMember(c.owner, created.ID, s.email, s.role); err != nil {
				return false, fmt.Errorf("seed calendar %s: share with %s: %w", c.cal.Name, s.email, err)
			}
		}
	}
	return true, nil
}
