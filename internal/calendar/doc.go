// Package calendar is calgraph's domain: users, calendars and memberships, their
// validation rules, who may do what, the error codes every layer speaks, and the
// service interfaces the adapters implement.
//
// It imports only the standard library. The DynamoDB store, the dataloaders, the
// GraphQL layer and auth all import it; it imports none of them.
package calendar
