// Package reqinfo carries what the GraphQL layer learns about a request —
// its operation's name, the codes of its errors, the signed-in user — out to
// the HTTP edge, which logs it and counts it in metrics.
package reqinfo

import (
	"context"
	"slices"
	"strings"
	"sync"
)

// Info is one request's record. Its methods are safe for concurrent use and
// do nothing on a nil Info (a request outside the edge, as in unit tests).
type Info struct {
	mu        sync.Mutex
	operation string
	codes     []string
	user      string
}

type key struct{}

// With returns ctx carrying a new Info.
func With(ctx context.Context) (context.Context, *Info) {
	i := &Info{}
	return context.WithValue(ctx, key{}, i), i
}

// From returns the Info ctx carries, or nil.
func From(ctx context.Context) *Info {
	i, _ := ctx.Value(key{}).(*Info)
	return i
}

// SetOperation records the operation's name.
func (i *Info) SetOperation(name string) {
	if i == nil {
		return
	}
	i.mu.Lock()
	defer i.mu.Unlock()
	i.operation = name
}

// AddCode records the extensions.code of an error the answer carries.
func (i *Info) AddCode(code string) {
	if i == nil {
		return
	}
	i.mu.Lock()
	defer i.mu.Unlock()
	if !slices.Contains(i.codes, code) {
		i.codes = append(i.codes, code)
	}
}

// SetUser records the signed-in user's ID.
func (i *Info) SetUser(id string) {
	if i == nil {
		return
	}
	i.mu.Lock()
	defer i.mu.Unlock()
	i.user = id
}

// Operation is the operation's name, "" when none was read.
func (i *Info) Operation() string {
	if i == nil {
		return ""
	}
	i.mu.Lock()
	defer i.mu.Unlock()
	return i.operation
}

// Codes are the error codes recorded, first first.
func (i *Info) Codes() []string {
	if i == nil {
		return nil
	}
	i.mu.Lock()
	defer i.mu.Unlock()
	return slices.Clone(i.codes)
}

// User is the signed-in user's ID, "" when none.
func (i *Info) User() string {
	if i == nil {
		return ""
	}
	i.mu.Lock()
	defer i.mu.Unlock()
	return i.user
}

// PublicPath is a request's path as it may be recorded in logs and traces: a
// feed's URL is its secret (only its hash is stored), so its path becomes
// "/feeds/<secret>" and reading a log or a trace gives no working feed URL.
func PublicPath(path string) string {
	if strings.HasPrefix(path, "/feeds/") {
		return "/feeds/<secret>"
	}
	return path
}
