package config_test

import (
	"flag"
	"os"
	"strings"
	"testing"

	"github.com/calgraph/calgraph/internal/config"
)

var update = flag.Bool("update", false, "rewrite the README's configuration table")

const (
	tableBegin = "<!-- config table: generated from internal/config; go test ./internal/config -update -->\n"
	tableEnd   = "<!-- end of config table -->"
)

// TestREADMEConfigTable keeps the README's configuration table identical to the
// settings the code reads.
func TestREADMEConfigTable(t *testing.T) {
	const path = "../../README.md"
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	start, end := strings.Index(readme, tableBegin), strings.Index(readme, tableEnd)
	if start < 0 || end < start {
		t.Fatalf("README.md lacks the configuration table markers")
	}
	want := config.MarkdownTable()
	if got := readme[start+len(tableBegin) : end]; got != want {
		if !*update {
			t.Fatalf("README.md's configuration table is out of date: run go test ./internal/config -update")
		}
		readme = readme[:start+len(tableBegin)] + want + readme[end:]
		if err := os.WriteFile(path, []byte(readme), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
