package graph

import (
	"bytes"
	"encoding/json"
	"mime"
	"net/http"
	"strconv"
)

// specStatuses brings gqlgen's answers to an operation refused before it ran
// (parse, validation, variable coercion, complexity) in line with the
// GraphQL-over-HTTP spec: with application/json the status is 200, as for
// every well-formed request (gqlgen answers 422), and with
// application/graphql-response+json the body has no data entry (gqlgen
// writes "data": null). Other answers pass through untouched, streamed ones
// included.
func specStatuses(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sw := &refusalWriter{ResponseWriter: w}
		next.ServeHTTP(sw, r)
		sw.finish()
	})
}

// refusalWriter holds back an answer with a 4xx status, to rewrite it.
type refusalWriter struct {
	http.ResponseWriter
	status int
	held   *bytes.Buffer
}

func (w *refusalWriter) WriteHeader(status int) {
	if w.status != 0 {
		return
	}
	w.status = status
	if status >= 400 && status < 500 {
		w.held = &bytes.Buffer{}
		return
	}
	w.ResponseWriter.WriteHeader(status)
}

func (w *refusalWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.WriteHeader(http.StatusOK)
	}
	if w.held != nil {
		return w.held.Write(b)
	}
	return w.ResponseWriter.Write(b)
}

func (w *refusalWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok && w.held == nil {
		f.Flush()
	}
}

func (w *refusalWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func (w *refusalWriter) finish() {
	if w.held == nil {
		return
	}
	body, status := w.held.Bytes(), w.status
	mt, _, _ := mime.ParseMediaType(w.Header().Get("Content-Type"))
	var answer map[string]json.RawMessage
	if json.Unmarshal(body, &answer) == nil && answer["errors"] != nil {
		switch mt {
		case "application/json":
			status = http.StatusOK
		case "application/graphql-response+json":
			if string(answer["data"]) == "null" {
				delete(answer, "data")
				body, _ = json.Marshal(answer)
			}
		}
	}
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.ResponseWriter.WriteHeader(status)
	_, _ = w.ResponseWriter.Write(body)
}
