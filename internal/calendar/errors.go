package calendar

import (
	"errors"
	"fmt"
)

// Code classifies an error for clients. The GraphQL layer turns each code into an
// `extensions.code` string in exactly one place; adapters turn their own failures
// into these codes. The list is documented in the README.
type Code int

// Error codes. Their zero value is CodeInternal so that an unclassified error is
// never mistaken for a client mistake.
const (
	CodeInternal             Code = iota // a bug or an infrastructure failure; details are logged, never shown
	CodeUnauthenticated                  // no valid token, or the token's user could not be established
	CodeForbidden                        // signed in and allowed to see the object, but not to do this
	CodeNotFound                         // missing, or invisible to the viewer (existence is not leaked)
	CodeInvalid                          // the input breaks a validation rule; Field names the input
	CodeVersionConflict                  // the expected version is stale: someone else changed the item
	CodeSlotConflict                     // a resource calendar already holds an overlapping entry
	CodeAlreadyExists                    // a unique thing (email, membership) exists already
	CodeLastOwner                        // the change would leave a calendar without an owner
	CodeUnavailable                      // the store did not answer in time or could not be reached; nothing was changed
	CodeOutcomeUnknown                   // a write was sent but its answer never came: it may or may not have been applied
	CodeTooLarge                         // the request reads or returns more than one request may (Budget)
	CodeSyncTokenExpired                 // a sync token older than the change log's retention: read everything again
	CodeTooManySubscriptions             // a connection or a user holds as many subscriptions as it may
	CodeTooManyOccurrences               // a calendar holds a series with more occurrences in a view's range than a view shows
	CodeCapacityReached                  // an acceptance past an entry's capacity, on an entry without a waitlist
	CodeBusyConflict                     // a calendar named in mustNotOverlap is busy then (booking.go)
)

var codeNames = map[Code]string{
	CodeInternal:             "internal",
	CodeUnauthenticated:      "unauthenticated",
	CodeForbidden:            "forbidden",
	CodeNotFound:             "not found",
	CodeInvalid:              "invalid",
	CodeVersionConflict:      "version conflict",
	CodeSlotConflict:         "slot conflict",
	CodeAlreadyExists:        "already exists",
	CodeLastOwner:            "last owner",
	CodeUnavailable:          "unavailable",
	CodeOutcomeUnknown:       "outcome unknown",
	CodeTooLarge:             "too large",
	CodeSyncTokenExpired:     "sync token expired",
	CodeTooManySubscriptions: "too many subscriptions",
	CodeTooManyOccurrences:   "too many occurrences",
	CodeCapacityReached:      "capacity reached",
	CodeBusyConflict:         "busy conflict",
}

// String returns a short lower-case name for logs.
func (c Code) String() string {
	if s, ok := codeNames[c]; ok {
		return s
	}
	return fmt.Sprintf("code(%d)", int(c))
}

// Error is a domain error: a code, a message safe to show a client, and for
// validation errors the input field at fault.
type Error struct {
	Code    Code
	Message string
	// Field is the input field a CodeInvalid error is about, in the API's spelling
	// (for example "name" or "timeZone"); empty when not about one field.
	Field string
	// Conflict names the booking a CodeSlotConflict error clashed with.
	Conflict *SlotConflict
	// Busy says when a CodeBusyConflict error's calendar is busy.
	Busy *BusyConflict
	// CalendarID names the calendar a CodeTooManyOccurrences error is about:
	// a view of several calendars leaves that one's series out.
	CalendarID string
	// Err is the failure behind a CodeUnavailable or CodeOutcomeUnknown error,
	// for logs; never shown to a client.
	Err error
}

// Unwrap returns the failure behind the error, if any.
func (e *Error) Unwrap() error { return e.Err }

// Error implements the error interface.
func (e *Error) Error() string {
	if e.Field != "" {
		return fmt.Sprintf("%s: %s: %s", e.Code, e.Field, e.Message)
	}
	if e.Err != nil {
		return fmt.Sprintf("%s: %s: %v", e.Code, e.Message, e.Err)
	}
	return fmt.Sprintf("%s: %s", e.Code, e.Message)
}

// Errorf returns an *Error with the given code and a formatted, client-safe message.
func Errorf(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// Invalidf returns a CodeInvalid error about one input field.
func Invalidf(field, format string, args ...any) *Error {
	return &Error{Code: CodeInvalid, Field: field, Message: fmt.Sprintf(format, args...)}
}

// ErrorCode returns the code of the first *Error in err's chain, CodeInternal when
// there is none, and for a nil error CodeInternal as well (callers check nil first).
func ErrorCode(err error) Code {
	if e, ok := errors.AsType[*Error](err); ok {
		return e.Code
	}
	return CodeInternal
}

// ErrorMessage returns the client-safe message of the first *Error in err's chain,
// or a generic text for anything else, so internal detail never leaks.
func ErrorMessage(err error) string {
	if e, ok := errors.AsType[*Error](err); ok {
		return e.Message
	}
	return "internal error"
}

// ErrorField returns the input field of the first *Error in err's chain, if any.
func ErrorField(err error) string {
	if e, ok := errors.AsType[*Error](err); ok {
		return e.Field
	}
	return ""
}

// ErrorCalendar returns the calendar the first *Error in err's chain is
// about, if any.
func ErrorCalendar(err error) string {
	if e, ok := errors.AsType[*Error](err); ok {
		return e.CalendarID
	}
	return ""
}

// ErrorOr returns err when it is not nil, else fallback.
func ErrorOr(err, fallback error) error {
	if err != nil {
		return err
	}
	return fallback
}
