// Package webhook is how calgraph calls its users' servers: it signs a
// delivery (sign.go), lets a receiver verify one (verify.go), refuses
// addresses a server must not reach (address.go) and posts with timeouts and
// a capped answer (sender.go); backoff.go is the retry schedule. It knows
// nothing of the table or of GraphQL: the store keeps the outbox and runs the
// attempts (internal/dynamo, webhook_*.go), and issue-specific payloads are
// built by their callers. Standard library only.
package webhook
