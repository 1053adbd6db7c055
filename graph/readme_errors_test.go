package graph

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/calgraph/calgraph/internal/calendar"
)

// TestREADMEErrorCodes keeps the README's table of error codes equal to
// ErrorCodes: no code a client can get is undocumented, and no documented code
// is one the server never gives.
func TestREADMEErrorCodes(t *testing.T) {
	documented := readmeErrorCodes(t, "../README.md")
	codes := ErrorCodes()
	for _, code := range codes {
		if !slices.Contains(documented, code) {
			t.Errorf("%s can be returned but is not in README.md's error table", code)
		}
	}
	for _, code := range documented {
		if !slices.Contains(codes, code) {
			t.Errorf("README.md's error table lists %s, which ErrorCodes does not", code)
		}
	}
}

// TestErrorCodesAreProduced holds ErrorCodes to what the server really
// answers: each domain code comes out of the error presenter as its mapped
// code, each of the other codes comes out of a request the handler refuses,
// and together they are exactly ErrorCodes.
func TestErrorCodesAreProduced(t *testing.T) {
	present := presentError(slog.New(slog.NewTextHandler(io.Discard, nil)))
	var produced []string
	for c := calendar.CodeInternal; !strings.HasPrefix(c.String(), "code("); c++ {
		got, _ := present(context.Background(), calendar.Errorf(c, "test")).Extensions["code"].(string)
		if got == "" {
			t.Errorf("domain code %s has no extensions.code", c)
			continue
		}
		produced = append(produced, got)
	}
	if got, _ := present(context.Background(), errors.New("boom")).Extensions["code"].(string); got != "INTERNAL_SERVER_ERROR" {
		t.Errorf("a plain error: got code %q, want INTERNAL_SERVER_ERROR", got)
	}

	h := NewHandler(nil, slog.New(slog.NewTextHandler(io.Discard, nil)), Options{MaxBodyBytes: 1 << 20})
	for _, tt := range []struct {
		name, method, query, want string
	}{
		{"a wrong method", http.MethodPut, "{ __typename }", codeBadRequest},
		{"a syntax error", http.MethodPost, "{ viewer {", "GRAPHQL_PARSE_FAILED"},
		{"an unknown field", http.MethodPost, "{ nope }", "GRAPHQL_VALIDATION_FAILED"},
		{"too complex", http.MethodPost, `{ viewer { calendars(first: 1000) { edges { node { calendar {
			members(first: 1000) { edges { node { id } } } } } } } } }`, "COMPLEXITY_LIMIT_EXCEEDED"},
	} {
		got := refusalCode(t, h, tt.method, tt.query)
		if got != tt.want {
			t.Errorf("%s: got code %q, want %q", tt.name, got, tt.want)
		}
		produced = append(produced, got)
	}
	// An automatic persisted query the server has not seen: its hash alone.
	apq := `{"extensions":{"persistedQuery":{"version":1,"sha256Hash":"ecf4edb46db40b5132295c0291d62fb65d6759a9eedfa4d5d612dd5ec54a6b38"}}}`
	req := httptest.NewRequest(http.MethodPost, "/query", strings.NewReader(apq))
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	var res struct {
		Errors []struct {
			Message    string
			Extensions struct{ Code string } `json:"extensions"`
		} `json:"errors"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &res); err != nil || len(res.Errors) != 1 || res.Errors[0].Message != "PersistedQueryNotFound" {
		t.Errorf("an unknown persisted query: got %d %s, want the error PersistedQueryNotFound", rec.Code, rec.Body)
	} else {
		produced = append(produced, res.Errors[0].Extensions.Code)
	}

	slices.Sort(produced)
	produced = slices.Compact(produced)
	if want := ErrorCodes(); !slices.Equal(produced, want) {
		t.Errorf("got codes %v from the presenter and the handler, want ErrorCodes() %v", produced, want)
	}
}

// refusalCode sends one operation to the handler and returns its first error's code.
func refusalCode(t *testing.T, h http.Handler, method, query string) string {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"query": query})
	req := httptest.NewRequest(method, "/query", strings.NewReader(string(body)))
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	var res struct {
		Errors []struct {
			Extensions struct{ Code string } `json:"extensions"`
		} `json:"errors"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &res); err != nil || len(res.Errors) == 0 {
		t.Fatalf("%s %q: got %d %s, want an error", method, query, rec.Code, rec.Body)
	}
	return res.Errors[0].Extensions.Code
}

// readmeErrorCodes returns the codes in the first column of the table under
// the README's "### Error codes" heading (a cell may list several).
func readmeErrorCodes(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(b), "\n### Error codes\n")
	if !ok {
		t.Fatalf("%s has no \"### Error codes\" section", path)
	}
	if end := strings.Index(section, "\n#"); end >= 0 {
		section = section[:end]
	}
	code := regexp.MustCompile("`([A-Z_]+)`")
	var codes []string
	for _, line := range strings.Split(section, "\n") {
		cells := strings.Split(line, "|")
		if len(cells) < 3 || !strings.HasPrefix(line, "|") {
			continue
		}
		for _, m := range code.FindAllStringSubmatch(cells[1], -1) {
			codes = append(codes, m[1])
		}
	}
	if len(codes) == 0 {
		t.Fatalf("%s's error table lists no codes", path)
	}
	return codes
}
