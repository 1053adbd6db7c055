// Package model holds the GraphQL types that have no domain counterpart:
// connections, inputs and payloads, generated into models_gen.go by gqlgen, and
// the few written by hand here.
package model

// Viewer is the signed-in user's entry point; its fields are resolved lazily.
type Viewer struct{}

// Node is any object with a global ID. The domain types bound to GraphQL object
// types (calendar.User, calendar.Membership) know nothing of GraphQL, so the
// interface asks nothing of them; the resolvers compute IDs. Calendars and
// entries are wrapped here (Calendar, the Entry kinds), so that their IDs need
// no resolver.
type Node interface{}
