package main

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/calgraph/calgraph/internal/calendar"
	"github.com/calgraph/calgraph/internal/httpapi"
	"github.com/calgraph/calgraph/internal/recurrence"
)

// TestDocsDocumentRefusals: refusals outside testers met without finding
// them documented are there (in the README, or in docs/design.md for the
// details of series), each checked against what the code does.
func TestDocsDocumentRefusals(t *testing.T) {
	readme, design := prose(t, "README.md"), prose(t, "docs/design.md")

	// A rule that matches no date at all, though its start alone would be
	// an occurrence.
	start := time.Date(2026, 2, 1, 9, 0, 0, 0, time.UTC)
	series := &calendar.Entry{ID: "s", Kind: calendar.KindTimed, Start: start, End: start.Add(time.Hour), TimeZone: "UTC",
		Recurrence: &calendar.Recurrence{Rule: "FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=30"}}
	err := recurrence.Engine{}.Validate(series)
	var de *calendar.Error
	if calendar.ErrorCode(err) != calendar.CodeInvalid || !errors.As(err, &de) || !strings.Contains(de.Message, "has no occurrence") {
		t.Fatalf("a rule of 30 February: got %v, want BAD_USER_INPUT saying it has no occurrence", err)
	}
	if !strings.Contains(design, "`"+de.Message+"`") {
		t.Errorf("docs/design.md does not document the refusal %q", de.Message)
	}

	// A browser fetch with credentials: 'include' needs
	// Access-Control-Allow-Credentials, which calgraph never sends: tokens
	// travel in Authorization, not in cookies.
	h := httpapi.New(httpapi.Config{AllowedOrigins: []string{"http://localhost:5173"}, SDL: []byte("schema")},
		http.NotFoundHandler(), func(context.Context) error { return nil }, slog.New(slog.NewTextHandler(io.Discard, nil)))
	req := httptest.NewRequest(http.MethodOptions, "/query", nil)
	req.Header.Set("Origin", "http://localhost:5173")
	req.Header.Set("Access-Control-Request-Method", "POST")
	req.Header.Set("Access-Control-Request-Headers", "authorization,content-type")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Header().Get("Access-Control-Allow-Origin") == "" || rec.Header().Get("Access-Control-Allow-Credentials") != "" {
		t.Fatalf("preflight: got headers %v, want the origin allowed without credentials", rec.Header())
	}
	if !strings.Contains(readme, "credentials: 'include'") {
		t.Errorf("README.md does not say that credentials: 'include' is refused")
	}
}

// prose returns a Markdown file's text with every run of white space made
// one space, as prose reads whatever the line breaks.
func prose(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Join(strings.Fields(string(b)), " ")
}
