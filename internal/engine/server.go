package engine

import (
	"encoding/json"
	"errors"
	"hash/crc32"
	"io"
	"net/http"
	"strconv"
	"strings"
)

// maxRequestBytes bounds a request body (DynamoDB's own limit is 16 MB).
const maxRequestBytes = 16 << 20

// operation answers one DynamoDB call: the request body in, the response
// body out.
type operation func(db *DB, body []byte) (json.RawMessage, error)

var operations = map[string]operation{
	"CreateTable":        createTable,
	"DescribeTable":      describeTable,
	"UpdateTable":        updateTable,
	"DeleteTable":        deleteTable,
	"ListTables":         listTables,
	"DescribeTimeToLive": describeTTL,
	"UpdateTimeToLive":   updateTTL,
	"GetItem":            getItem,
	"PutItem":            putItem,
	"UpdateItem":         updateItem,
	"DeleteItem":         deleteItem,
	"Query":              query,
	"Scan":               scan,
	"BatchGetItem":       batchGetItem,
	"BatchWriteItem":     batchWriteItem,
	"TransactWriteItems": transactWriteItems,
	"TransactGetItems":   transactGetItems,
}

// serve speaks DynamoDB's JSON protocol (version 1.0) for a call whose body
// was read and whose signature was verified (Server.serveHTTP): the
// operation in the X-Amz-Target header, JSON in and out, errors as
// {"__type", "message"}, and the CRC32 checksum header the SDK verifies.
func (db *DB) serve(w http.ResponseWriter, r *http.Request, body []byte) {
	target := r.Header.Get("X-Amz-Target")
	name := target[strings.LastIndex(target, ".")+1:]
	op, ok := operations[name]
	if r.Method != http.MethodPost || !strings.HasPrefix(target, "DynamoDB_20120810.") || !ok {
		writeAnswer(w, http.StatusBadRequest, (&apiError{Type: "UnknownOperationException", Message: "unknown operation " + target}).body())
		return
	}
	out, err := db.call(name, op, body)
	if err != nil {
		var api *apiError
		if !errors.As(err, &api) {
			db.log.Error("embedded engine failed", "operation", name, "err", err)
			api = internalError("The server encountered an internal error trying to fulfill the request.")
		}
		writeAnswer(w, api.Status, api.body())
		return
	}
	writeAnswer(w, http.StatusOK, out)
}

// readBody reads a call's body, answering the call itself when it cannot.
func readBody(w http.ResponseWriter, r *http.Request) ([]byte, bool) {
	body, err := io.ReadAll(io.LimitReader(r.Body, maxRequestBytes+1))
	if err != nil {
		return nil, false // the client went away
	}
	if len(body) > maxRequestBytes {
		writeAnswer(w, http.StatusRequestEntityTooLarge, validation("Request size exceeds 16777216 bytes").body())
		return nil, false
	}
	return body, true
}

// call runs an operation, turning a panic or a fault reading the file into
// an internal error for this call alone.
func (db *DB) call(name string, op operation, body []byte) (out json.RawMessage, err error) {
	if p := guard(func() error { out, err = op(db, body); return nil }); p != nil {
		db.damage(p, "operation", name)
		return nil, internalError("The server encountered an internal error trying to fulfill the request.")
	}
	return out, err
}

func writeAnswer(w http.ResponseWriter, status int, body []byte) {
	h := w.Header()
	h.Set("Content-Type", "application/x-amz-json-1.0")
	h.Set("X-Amz-Crc32", strconv.FormatUint(uint64(crc32.ChecksumIEEE(body)), 10))
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// decodeRequest reads a request body into its struct.
func decodeRequest(body []byte, v any) error {
	if err := json.Unmarshal(body, v); err != nil {
		if errors.Is(err, errEmptyExpression) {
			return emptyExpression(body)
		}
		var typeErr *json.UnmarshalTypeError
		if errors.As(err, &typeErr) {
			return &apiError{Type: "SerializationException", Status: http.StatusBadRequest, Message: "Unexpected value type in payload: " + typeErr.Field}
		}
		return &apiError{Type: "SerializationException", Status: http.StatusBadRequest, Message: "Start of structure or map found where not expected"}
	}
	return nil
}
