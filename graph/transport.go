package graph

import (
	"context"
	"net/http"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/handler/transport"
)

// postTransport is gqlgen's POST transport, except that an answer holding
// only data is written as gqlgen rendered it instead of through json.Marshal.
//
// gqlgen's transport marshals the whole *graphql.Response with
// encoding/json, which validates and compacts the already rendered data
// (json.RawMessage) byte by byte through its scanner, and copies it: some 2%
// of a cold week view's CPU for an answer of about 40 KB. The answer's bytes
// do not change: the data is written as it is only when compacting it would
// change nothing (no whitespace outside strings, none of the characters
// json.Marshal escapes: <, >, &, U+2028, U+2029 — see alreadyCompact), and
// the envelope is the one json.Marshal writes for a response with nothing
// but data. Any other answer (errors, extensions, an incremental part) goes
// through gqlgen's transport untouched, as do content negotiation, status
// codes and the request's parsing: Do runs gqlgen's own POST.Do, and takes
// over only the final write.
type postTransport struct{ transport.POST }

func (t postTransport) Do(w http.ResponseWriter, r *http.Request, exec graphql.GraphExecutor) {
	aw := &answerWriter{ResponseWriter: w}
	t.POST.Do(aw, r, directAnswers{GraphExecutor: exec, w: aw})
}

// directAnswers writes the data-only answers of the operations it dispatches
// itself (see postTransport); gqlgen's transport then writes a placeholder,
// which answerWriter drops.
type directAnswers struct {
	graphql.GraphExecutor
	w *answerWriter
}

func (d directAnswers) DispatchOperation(ctx context.Context, rc *graphql.OperationContext) (graphql.ResponseHandler, context.Context) {
	responses, ctx := d.GraphExecutor.DispatchOperation(ctx, rc)
	return func(ctx context.Context) *graphql.Response {
		resp := responses(ctx)
		if !dataOnly(resp) {
			return resp
		}
		d.w.writeData(resp.Data)
		return placeholder
	}, ctx
}

// placeholder is what gqlgen's transport is given to write once the answer
// has been written: answerWriter drops it.
var placeholder = &graphql.Response{}

// dataOnly reports whether resp is an answer json.Marshal would write as
// {"data":<resp.Data>}: nothing but data, and data already compact, with
// nothing to escape.
func dataOnly(resp *graphql.Response) bool {
	return resp != nil && len(resp.Errors) == 0 && resp.Label == "" && resp.Path == nil && resp.HasNext == nil &&
		len(resp.Extensions) == 0 && len(resp.Data) > 0 && alreadyCompact(resp.Data)
}

// alreadyCompact reports whether json.Compact with HTML escaping (what
// json.Marshal does to a json.RawMessage) would leave the valid JSON b as it
// is: no whitespace outside strings, and no <, >, & or U+2028/U+2029 (bytes
// E2 80 A8 and E2 80 A9) anywhere. gqlgen's rendered data is valid JSON.
func alreadyCompact(b []byte) bool {
	inString := false
	for i := 0; i < len(b); i++ {
		switch c := b[i]; c {
		case '<', '>', '&':
			return false
		case 0xE2:
			if i+2 < len(b) && b[i+1] == 0x80 && b[i+2]&^1 == 0xA8 {
				return false
			}
		case '\\':
			if inString {
				i++ // the escaped byte: \" does not end the string
			}
		case '"':
			inString = !inString
		case ' ', '\t', '\n', '\r':
			if !inString {
				return false
			}
		}
	}
	return !inString
}

// answerWriter is the ResponseWriter postTransport gives gqlgen's transport:
// after writeData, it drops the transport's one write of the placeholder.
type answerWriter struct {
	http.ResponseWriter
	dropNext bool
}

var (
	dataPrefix = []byte(`{"data":`)
	dataSuffix = []byte(`}`)
)

func (w *answerWriter) writeData(data []byte) {
	// The three writes go to the compressor's buffer (internal/httpapi) or
	// the server's bufio.Writer, not to the connection one by one.
	_, _ = w.ResponseWriter.Write(dataPrefix)
	_, _ = w.ResponseWriter.Write(data)
	_, _ = w.ResponseWriter.Write(dataSuffix)
	w.dropNext = true
}

func (w *answerWriter) Write(b []byte) (int, error) {
	if w.dropNext {
		w.dropNext = false
		return len(b), nil
	}
	return w.ResponseWriter.Write(b)
}

func (w *answerWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
