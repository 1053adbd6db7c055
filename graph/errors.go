package graph

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/errcode"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/calgraph/calgraph/graph/model"

	"github.com/calgraph/calgraph/internal/calendar"
	"github.com/calgraph/calgraph/internal/reqinfo"
)

// extensionCodes is the one mapping from domain error codes to the
// `extensions.code` values clients see. The README documents the list.
var extensionCodes = map[calendar.Code]string{
	calendar.CodeInternal:             "INTERNAL_SERVER_ERROR",
	calendar.CodeUnauthenticated:      "UNAUTHENTICATED",
	calendar.CodeForbidden:            "FORBIDDEN",
	calendar.CodeNotFound:             "NOT_FOUND",
	calendar.CodeInvalid:              "BAD_USER_INPUT",
	calendar.CodeVersionConflict:      "VERSION_CONFLICT",
	calendar.CodeSlotConflict:         "SLOT_CONFLICT",
	calendar.CodeAlreadyExists:        "ALREADY_EXISTS",
	calendar.CodeLastOwner:            "LAST_OWNER",
	calendar.CodeUnavailable:          "UNAVAILABLE",
	calendar.CodeOutcomeUnknown:       "OUTCOME_UNKNOWN",
	calendar.CodeTooLarge:             "REQUEST_TOO_LARGE",
	calendar.CodeSyncTokenExpired:     "SYNC_TOKEN_EXPIRED",
	calendar.CodeTooManySubscriptions: "TOO_MANY_SUBSCRIPTIONS",
	calendar.CodeTooManyOccurrences:   "TOO_MANY_OCCURRENCES",
	calendar.CodeCapacityReached:      "CAPACITY_REACHED",
	calendar.CodeBusyConflict:         "BUSY_CONFLICT",
}

// domainCode is the domain code of an `extensions.code`
// (extensionCodes read backwards); CodeInternal for one it does not list.
func domainCode(ext string) calendar.Code {
	for c, e := range extensionCodes {
		if e == ext {
			return c
		}
	}
	return calendar.CodeInternal
}

// codeBadRequest marks a request refused before GraphQL ran: malformed JSON, a
// wrong method or media type, a body over the limit.
const codeBadRequest = "BAD_REQUEST"

// refusedCodes are the codes gqlgen gives an operation it refuses before
// running it; presentError lets these, and only these, through as they are.
// COMPLEXITY_LIMIT_EXCEEDED is extension.FixedComplexityLimit's, which gqlgen
// does not export, as is PERSISTED_QUERY_NOT_FOUND.
var refusedCodes = []string{errcode.ParseFailed, errcode.ValidationFailed, "COMPLEXITY_LIMIT_EXCEEDED", codePersistedQueryNotFound}

// codePersistedQueryNotFound is extension.AutomaticPersistedQuery's answer to
// a query hash it does not hold (Apollo's protocol): the client sends the
// query along with its hash again.
const codePersistedQueryNotFound = "PERSISTED_QUERY_NOT_FOUND"

// An operation refused before it runs answers with the status of a
// validation error (400 for application/graphql-response+json, gqlgen's 422
// for application/json), whatever refused it: the complexity limit, or a
// @defer the client cannot receive (deferNeedsMultipart).
func init() {
	errcode.RegisterErrorType("COMPLEXITY_LIMIT_EXCEEDED", errcode.KindProtocol)
	errcode.RegisterErrorType(codeBadRequest, errcode.KindProtocol)
}

// ErrorCodes returns, sorted, every `extensions.code` a client can get: the
// domain codes' mapping, BAD_REQUEST and gqlgen's refusals. The README's error
// table lists the same set (a test compares them).
func ErrorCodes() []string {
	codes := append([]string{codeBadRequest}, refusedCodes...)
	for _, code := range extensionCodes {
		codes = append(codes, code)
	}
	slices.Sort(codes)
	return slices.Compact(codes)
}

// presentError shapes every error a client sees. Domain errors keep their
// message and get their code; GraphQL's own parse and validation errors pass
// through; a request gqlgen could not read gets BAD_REQUEST; anything else is an
// internal failure, logged in full and shown as a bare "internal error" so no
// AWS text, table name or stack leaks.
func presentError(logger *slog.Logger) graphql.ErrorPresenterFunc {
	present := shapeError(logger)
	return func(ctx context.Context, err error) *gqlerror.Error {
		e := present(ctx, err)
		if code, ok := e.Extensions["code"].(string); ok {
			reqinfo.From(ctx).AddCode(code) // for the access log and metrics
		}
		return e
	}
}

// shapeError is presentError less the record of codes.
func shapeError(logger *slog.Logger) graphql.ErrorPresenterFunc {
	return func(ctx context.Context, err error) *gqlerror.Error {
		gqlErr := graphql.DefaultErrorPresenter(ctx, err)
		if de, ok := errors.AsType[*calendar.Error](err); ok && de.Code != calendar.CodeInternal {
			gqlErr.Message = de.Message
			gqlErr.Extensions = map[string]any{"code": extensionCodes[de.Code]}
			if field := fieldOf(de, gqlErr.Path); field != "" {
				gqlErr.Extensions["field"] = field
				// A message that names the field as it was not known yet.
				gqlErr.Message = strings.ReplaceAll(gqlErr.Message, model.FieldFromPath, field)
			}
			if c := de.Conflict; c != nil {
				gqlErr.Extensions["conflict"] = conflictOf(c)
			}
			if b := de.Busy; b != nil {
				gqlErr.Extensions["conflict"] = busyConflictOf(b)
			}
			if de.CalendarID != "" {
				gqlErr.Extensions["calendarId"] = model.CalendarGID(de.CalendarID)
			}
			if de.Code == calendar.CodeOutcomeUnknown {
				_, keyed := errors.AsType[*keyedWrite](err)
				gqlErr.Extensions["retrySafe"] = keyed
			}
			if de.Err != nil {
				logger.WarnContext(ctx, "store did not answer", "path", gqlErr.Path.String(), "code", de.Code.String(), "err", de.Err)
			}
			return gqlErr
		}
		if code, _ := gqlErr.Extensions["code"].(string); slices.Contains(refusedCodes, code) && gqlErr.Err == nil {
			gqlErr.Message = plainerMessage(gqlErr)
			return gqlErr // a parse or validation error from gqlgen itself
		}
		if gqlErr.Path == nil && gqlErr.Err == nil {
			// gqlgen could not read the request (a body that is not JSON, say);
			// its message quotes the whole body, which is cut off here.
			msg, _, _ := strings.Cut(gqlErr.Message, " body:")
			logger.DebugContext(ctx, "bad request", "err", msg)
			gqlErr.Message = msg
			gqlErr.Extensions = map[string]any{"code": codeBadRequest}
			return gqlErr
		}
		if errors.Is(err, context.Canceled) && ctx.Err() != nil {
			// The client hung up: nobody reads this answer, and nothing is wrong.
			logger.InfoContext(ctx, "client went away", "path", gqlErr.Path.String())
		} else {
			logger.ErrorContext(ctx, "request failed", "path", gqlErr.Path.String(), "err", err)
		}
		gqlErr.Message = "internal error"
		gqlErr.Extensions = map[string]any{"code": extensionCodes[calendar.CodeInternal]}
		return gqlErr
	}
}

// plainerMessage rewords the validator's message about a variable that is
// not an Int, which prints a 0 where the value was ("cannot use value 0 as
// Int" for 1.5).
func plainerMessage(e *gqlerror.Error) string {
	if len(e.Path) == 2 && e.Path[0] == ast.PathName("variable") && strings.HasPrefix(e.Message, "cannot use value ") && strings.HasSuffix(e.Message, " as Int") {
		return fmt.Sprintf("variable $%v is not an Int: a whole number from -2147483648 to 2147483647", e.Path[1])
	}
	return e.Message
}

// fieldOf names the input field of a validation error; for an error raised
// while reading an input value, the last name on its path.
func fieldOf(de *calendar.Error, path ast.Path) string {
	if de.Field != model.FieldFromPath {
		return de.Field
	}
	for i := len(path) - 1; i >= 0; i-- {
		if name, ok := path[i].(ast.PathName); ok {
			return string(name)
		}
	}
	return ""
}

// recoverPanic turns a resolver panic into an internal error and logs its stack:
// nothing a client sends may take the process down.
func recoverPanic(logger *slog.Logger) graphql.RecoverFunc {
	return func(ctx context.Context, p any) error {
		logger.ErrorContext(ctx, "resolver panicked", "panic", p, "stack", string(debug.Stack()))
		return fmt.Errorf("panic: %v", p)
	}
}

// writeRequestError answers a request refused before GraphQL ran.
func writeRequestError(w http.ResponseWriter, status int, msg string) {
	writeRequestErrorAs(w, status, msg, "application/json")
}

// writeRequestErrorAs is writeRequestError in the media type given.
func writeRequestErrorAs(w http.ResponseWriter, status int, msg, mediaType string) {
	body, _ := json.Marshal(map[string]any{"errors": []map[string]any{
		{"message": msg, "extensions": map[string]any{"code": codeBadRequest}},
	}})
	w.Header().Set("Content-Type", mediaType)
	w.WriteHeader(status)
	_, _ = w.Write(append(body, '\n'))
}

// conflictOf describes the booking a SLOT_CONFLICT clashed with: the global
// ID of the entry or occurrence, and its time.
func conflictOf(c *calendar.SlotConflict) map[string]any {
	out := map[string]any{}
	if c.CalendarID != "" {
		if c.OriginalStart.IsZero() {
			out["entryId"] = model.EntryGID(calendar.EntryKey{CalendarID: c.CalendarID, EntryID: c.EntryID})
		} else {
			out["entryId"] = model.OccurrenceGID(c.CalendarID, c.Ref())
		}
	}
	if c.From.IsZero() {
		out["start"], out["end"] = c.Start.UTC().Format(time.RFC3339), c.End.UTC().Format(time.RFC3339)
	} else {
		out["startDate"], out["endDate"] = c.From.String(), c.To.String()
	}
	return out
}

// busyConflictOf describes when a BUSY_CONFLICT's calendar is busy: its
// global ID and the busy stretch, never what makes it busy.
func busyConflictOf(b *calendar.BusyConflict) map[string]any {
	return map[string]any{"calendarId": model.CalendarGID(b.CalendarID),
		"start": b.Start.UTC().Format(time.RFC3339), "end": b.End.UTC().Format(time.RFC3339)}
}
