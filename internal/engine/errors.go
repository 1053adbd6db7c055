package engine

import (
	"encoding/json"
	"fmt"
	"net/http"
)

// apiError is an error DynamoDB answers with: its type (the part of __type
// after '#'), HTTP status and message, and for some types more fields.
type apiError struct {
	Type    string
	Status  int
	Message string
	// Item is the item a failed condition met, when the request asked for it.
	Item item
	// Reasons are a cancelled transaction's reasons, one per action.
	Reasons []cancelReason
}

// cancelReason is why one action of a cancelled transaction failed, or
// "None" when it did not.
type cancelReason struct {
	Code    string
	Message string
	Item    item
}

func (e *apiError) Error() string { return e.Type + ": " + e.Message }

func validation(msg string) *apiError {
	return &apiError{Type: "ValidationException", Status: http.StatusBadRequest, Message: msg}
}

func validationf(format string, args ...any) *apiError {
	return validation(fmt.Sprintf(format, args...))
}

func notFound(msg string) *apiError {
	return &apiError{Type: "ResourceNotFoundException", Status: http.StatusBadRequest, Message: msg}
}

func tableNotFound() *apiError {
	return notFound("Cannot do operations on a non-existent table")
}

func inUse(msg string) *apiError {
	return &apiError{Type: "ResourceInUseException", Status: http.StatusBadRequest, Message: msg}
}

func conditionFailed(it item) *apiError {
	return &apiError{Type: "ConditionalCheckFailedException", Status: http.StatusBadRequest,
		Message: "The conditional request failed", Item: it}
}

func internalError(msg string) *apiError {
	return &apiError{Type: "InternalServerError", Status: http.StatusInternalServerError, Message: msg}
}

// body is the error's JSON answer.
func (e *apiError) body() []byte {
	b := []byte(`{"__type":`)
	b = appendString(b, "com.amazonaws.dynamodb.v20120810#"+e.Type)
	b = append(b, `,"message":`...)
	b = appendString(b, e.Message)
	if e.Item != nil {
		b = append(b, `,"Item":`...)
		b = appendItem(b, e.Item)
	}
	if e.Reasons != nil {
		b = append(b, `,"CancellationReasons":[`...)
		for i, r := range e.Reasons {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"Code":`...)
			b = appendString(b, r.Code)
			if r.Message != "" {
				b = append(b, `,"Message":`...)
				b = appendString(b, r.Message)
			}
			if r.Item != nil {
				b = append(b, `,"Item":`...)
				b = appendItem(b, r.Item)
			}
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	return append(b, '}')
}

// rawJSON marshals plain data for answers.
func rawJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // plain data
	}
	return b
}
