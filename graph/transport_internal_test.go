package graph

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/handler/transport"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"
)

// answering is a GraphExecutor whose every operation answers resp.
type answering struct{ resp *graphql.Response }

func (a answering) CreateOperationContext(context.Context, *graphql.RawParams) (*graphql.OperationContext, gqlerror.List) {
	return &graphql.OperationContext{}, nil
}

func (a answering) DispatchOperation(ctx context.Context, _ *graphql.OperationContext) (graphql.ResponseHandler, context.Context) {
	return func(context.Context) *graphql.Response { return a.resp }, ctx
}

func (a answering) DispatchError(_ context.Context, errs gqlerror.List) *graphql.Response {
	return &graphql.Response{Errors: errs}
}

// answerOf sends one POST through tr to an executor answering resp and
// returns the status, headers and body the client gets.
func answerOf(tr graphql.Transport, resp *graphql.Response, accept string) (int, http.Header, string) {
	r := httptest.NewRequest(http.MethodPost, "/query", strings.NewReader(`{"query":"{ a }"}`))
	r.Header.Set("Content-Type", "application/json")
	if accept != "" {
		r.Header.Set("Accept", accept)
	}
	w := httptest.NewRecorder()
	tr.Do(w, r, answering{resp})
	return w.Code, w.Header(), w.Body.String()
}

// TestPostTransportAnswersAsGqlgens checks that postTransport's answers are
// byte for byte gqlgen's POST transport's, whether or not it writes them
// itself: data that needs compacting or escaping, errors, extensions, no
// data, and random JSON with and without whitespace.
func TestPostTransportAnswersAsGqlgens(t *testing.T) {
	yes := true
	cases := []*graphql.Response{
		{Data: json.RawMessage(`{"viewer":{"calendars":{"edges":[{"node":{"title":"Stand-up \"daily\" \\ ok","tags":["a b"],"n":1.5e3,"x":null,"ok":true}}]}}}`)},
		{Data: json.RawMessage(`{"title":"R&D <b>review</b>"}`)},
		{Data: json.RawMessage("{\"title\":\"line\u2028separator\"}")},
		{Data: json.RawMessage("{\"title\":\"para\u2029separator\"}")},
		{Data: json.RawMessage("{\"title\":\"an ellipsis \u2026 and an en dash \u2013\"}")},
		{Data: json.RawMessage(`{"a": 1}`)},
		{Data: json.RawMessage("{\"a\":\n[1,\t2]\r}")},
		{Data: json.RawMessage(`{"a":"\\"} `)},
		{Data: json.RawMessage(`["\"", 1, "\""]`)}, // spaces outside strings, between escaped quotes
		{Data: json.RawMessage(`null`)},
		{},
		{Data: json.RawMessage(`{"a":1}`), Errors: gqlerror.List{{Message: "boom", Path: ast.Path{ast.PathName("a")}}}},
		{Data: json.RawMessage(`{"a":1}`), Extensions: map[string]any{"cost": 3}},
		{Data: json.RawMessage(`{"a":1}`), HasNext: &yes},
		{Data: json.RawMessage(`{"a":1}`), Label: "l", Path: ast.Path{ast.PathName("a")}},
	}
	rng := rand.New(rand.NewPCG(7, 11))
	for range 300 {
		cases = append(cases, &graphql.Response{Data: randomJSON(rng)})
	}
	direct := 0
	for i, resp := range cases {
		for _, accept := range []string{"", "application/graphql-response+json"} {
			wantCode, wantHeader, want := answerOf(transport.POST{}, resp, accept)
			gotCode, gotHeader, got := answerOf(postTransport{}, resp, accept)
			if got != want || gotCode != wantCode || fmt.Sprint(gotHeader) != fmt.Sprint(wantHeader) {
				t.Fatalf("case %d (Accept %q), data %q:\ngot  %d %v %q\nwant %d %v %q", i, accept, resp.Data, gotCode, gotHeader, got, wantCode, wantHeader, want)
			}
		}
		if dataOnly(resp) {
			direct++
		}
	}
	if direct < 100 {
		t.Errorf("only %d of %d answers were written directly: the comparison tests little of postTransport's own writing", direct, len(cases))
	}
}

// randomJSON renders a random value as gqlgen would (compact, HTML not
// escaped), with whitespace sometimes added between tokens.
func randomJSON(rng *rand.Rand) json.RawMessage {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(randomValue(rng, 3)); err != nil {
		panic(err)
	}
	s := strings.TrimSuffix(b.String(), "\n")
	if rng.IntN(3) == 0 { // a space after some comma outside strings, or a newline at the end
		if i := strings.Index(s, `,"`); i >= 0 {
			s = s[:i+1] + " " + s[i+1:]
		} else {
			s += "\n"
		}
	}
	return json.RawMessage(s)
}

var randomRunes = []rune("ab Z09 \"\\/<>&\u2028\u2029\u2026é😀\t\n{}[],:")

func randomValue(rng *rand.Rand, depth int) any {
	switch k := rng.IntN(6); {
	case depth > 0 && k == 0:
		m := map[string]any{}
		for range rng.IntN(4) {
			m[randomString(rng)] = randomValue(rng, depth-1)
		}
		return m
	case depth > 0 && k == 1:
		var l []any
		for range rng.IntN(4) {
			l = append(l, randomValue(rng, depth-1))
		}
		return l
	case k == 2:
		return rng.IntN(1000) - 500
	case k == 3:
		return rng.IntN(2) == 0
	case k == 4:
		return nil
	default:
		return randomString(rng)
	}
}

func randomString(rng *rand.Rand) string {
	r := make([]rune, rng.IntN(8))
	for i := range r {
		r[i] = randomRunes[rng.IntN(len(randomRunes))]
	}
	return string(r)
}

// TestRenderedAnswersAreWrittenDirectly checks that the answers postTransport
// exists for take its direct path: a view's data as gqlgen renders it
// (spaces, quotes and non-ASCII inside strings) is already compact.
func TestRenderedAnswersAreWrittenDirectly(t *testing.T) {
	data := `{"viewer":{"calendars":{"edges":[{"node":{"role":"OWNER","calendar":{"id":"Q2FsZW5kYXI6MQ==","name":"Team \"Blue\" — Zürich",` +
		`"entries":{"timeZone":"Europe/Zurich","entries":[{"__typename":"TimedEntry","id":"RW50cnk6MQ==","title":"Stand-up, daily: 15 min","color":null,` +
		`"tags":["a b","c\\d"],"start":"2026-06-15T07:00:00Z","end":"2026-06-15T07:15:00Z","timeZone":"Europe/Zurich"}]}}}}]}}}`
	if !dataOnly(&graphql.Response{Data: json.RawMessage(data)}) {
		t.Fatalf("a week view's data goes through json.Marshal: %s", data)
	}
}
