package graph

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/calgraph/calgraph/internal/calendar"
)

// extensionCodes is the one mapping from domain error codes to the
// `extensions.code` values clients see. The README documents the list.
var extensionCodes = map[calendar.Code]string{
	calendar.CodeInternal:        "INTERNAL_SERVER_ERROR",
	calendar.CodeUnauthenticated: "UNAUTHENTICATED",
	calendar.CodeForbidden:       "FORBIDDEN",
	calendar.CodeNotFound:        "NOT_FOUND",
	calendar.CodeInvalid:         "BAD_USER_INPUT",
	calendar.CodeVersionConflict: "VERSION_CONFLICT",
	calendar.CodeSlotConflict:    "SLOT_CONFLICT",
	calendar.CodeAlreadyExists:   "ALREADY_EXISTS",
	calendar.CodeLastOwner:       "LAST_OWNER",
}

// presentError shapes every error a client sees. Domain errors keep their
// message and get their code; GraphQL's own parse and validation errors pass
// through; anything else is an internal failure, logged in full and shown as a
// bare "internal error" so no AWS text, table name or stack leaks.
func presentError(logger *slog.Logger) graphql.ErrorPresenterFunc {
	return func(ctx context.Context, err error) *gqlerror.Error {
		gqlErr := graphql.DefaultErrorPresenter(ctx, err)
		if de, ok := errors.AsType[*calendar.Error](err); ok && de.Code != calendar.CodeInternal {
			gqlErr.Message = de.Message
			gqlErr.Extensions = map[string]any{"code": extensionCodes[de.Code]}
			if de.Field != "" {
				gqlErr.Extensions["field"] = de.Field
			}
			return gqlErr
		}
		if _, ok := gqlErr.Extensions["code"]; ok && gqlErr.Err == nil {
			return gqlErr // a parse or validation error from gqlgen itself
		}
		logger.ErrorContext(ctx, "request failed", "path", gqlErr.Path.String(), "err", err)
		gqlErr.Message = "internal error"
		gqlErr.Extensions = map[string]any{"code": extensionCodes[calendar.CodeInternal]}
		return gqlErr
	}
}

// recoverPanic turns a resolver panic into an internal error and logs its stack:
// nothing a client sends may take the process down.
func recoverPanic(logger *slog.Logger) graphql.RecoverFunc {
	return func(ctx context.Context, p any) error {
		logger.ErrorContext(ctx, "resolver panicked", "panic", p, "stack", string(debug.Stack()))
		return fmt.Errorf("panic: %v", p)
	}
}
