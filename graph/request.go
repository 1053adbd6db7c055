package graph

import (
	"bytes"
	"encoding/json"
	"io"
	"mime"
	"net/http"
	"strings"

	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/parser"

	"github.com/calgraph/calgraph/internal/reqinfo"
)

// checkRequest refuses, before any GraphQL runs, the requests the
// GraphQL-over-HTTP spec says a server must refuse, each with a BAD_REQUEST
// error and the spec's status: an unknown method (405), a GET that would run a
// mutation (405) or carries variables that are not a JSON object (400), a POST
// that is not JSON (415), is not a JSON object of the spec's parameters
// (400) or is larger than maxBody (413).
func checkRequest(maxBody int64, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.Method {
		case http.MethodGet:
			if status, msg := checkGET(r); status != 0 {
				if status == http.StatusMethodNotAllowed {
					w.Header().Set("Allow", http.MethodPost)
				}
				reqinfo.From(r.Context()).AddCode(codeBadRequest)
				writeRequestError(w, status, msg)
				return
			}
		case http.MethodPost:
			if status, msg := checkPOST(r, maxBody); status != 0 {
				reqinfo.From(r.Context()).AddCode(codeBadRequest)
				writeRequestError(w, status, msg)
				return
			}
			if msg := checkParams(r); msg != "" {
				// Read as JSON, so answered as GraphQL answers (unless the
				// client takes only application/json).
				reqinfo.From(r.Context()).AddCode(codeBadRequest)
				writeRequestErrorAs(w, http.StatusBadRequest, msg, responseMediaType(r))
				return
			}
		case http.MethodOptions:
		default:
			w.Header().Set("Allow", "GET, POST")
			reqinfo.From(r.Context()).AddCode(codeBadRequest)
			writeRequestError(w, http.StatusMethodNotAllowed, "use GET for queries or POST")
			return
		}
		next.ServeHTTP(w, r)
	})
}

func checkGET(r *http.Request) (int, string) {
	q := r.URL.Query()
	for _, name := range []string{"variables", "extensions"} {
		if v := q.Get(name); v != "" {
			var obj map[string]any
			if json.Unmarshal([]byte(v), &obj) != nil {
				return http.StatusBadRequest, name + " must be a JSON object"
			}
		}
	}
	doc, err := parser.ParseQuery(&ast.Source{Input: q.Get("query")})
	if err == nil {
		if op := doc.Operations.ForName(q.Get("operationName")); op != nil && op.Operation != ast.Query {
			return http.StatusMethodNotAllowed, "mutations must be sent with POST"
		}
	}
	return 0, ""
}

// checkPOST checks the media type and reads the body (at most maxBody+1 bytes),
// putting it back for the GraphQL handler.
func checkPOST(r *http.Request, maxBody int64) (int, string) {
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
		return http.StatusUnsupportedMediaType, "send the operation as application/json"
	}
	if r.ContentLength > maxBody {
		return http.StatusRequestEntityTooLarge, "the request body is larger than the limit"
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBody+1))
	if err != nil {
		return http.StatusBadRequest, "could not read the request body"
	}
	if int64(len(body)) > maxBody {
		return http.StatusRequestEntityTooLarge, "the request body is larger than the limit"
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	return 0, ""
}

// checkParams checks a POST body's shape (GraphQL-over-HTTP's request
// parameters), so that a wrong one is told what is expected rather than
// which Go type it could not be decoded into.
func checkParams(r *http.Request) string {
	body, _ := io.ReadAll(r.Body) // already read into memory by checkPOST
	r.Body = io.NopCloser(bytes.NewReader(body))
	var params map[string]json.RawMessage
	if err := json.Unmarshal(body, &params); err != nil {
		var v any
		if json.Unmarshal(body, &v) != nil {
			return "the body is not valid JSON"
		}
		return `the body must be a JSON object like {"query": "{ viewer { user { email } } }", "variables": {}}`
	}
	if q := params["query"]; (len(q) == 0 || string(q) == "null") && !bytes.Contains(params["extensions"], []byte(`"persistedQuery"`)) {
		return "the body has no query" // nor an automatic persisted query's hash
	}
	for name, want := range map[string]string{"query": "a string", "operationName": "a string", "variables": "an object", "extensions": "an object"} {
		raw, ok := params[name]
		if !ok || string(raw) == "null" {
			continue
		}
		if got := strings.TrimLeft(string(raw), " \t\r\n"); want == "a string" && !strings.HasPrefix(got, `"`) || want == "an object" && !strings.HasPrefix(got, "{") {
			return name + " must be " + want
		}
	}
	return ""
}

// responseMediaType is application/graphql-response+json for a client that
// accepts it, application/json otherwise, as gqlgen's transports answer.
func responseMediaType(r *http.Request) string {
	if strings.Contains(r.Header.Get("Accept"), "application/graphql-response+json") {
		return "application/graphql-response+json"
	}
	return "application/json"
}
