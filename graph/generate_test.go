package graph_test

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// generated are the files `go generate ./...` writes (gqlgen, run by
// internal/graphgen); they must match schema.graphqls and gqlgen.yml exactly,
// and nobody edits them by hand.
var generated = []string{"graph/generated.go", "graph/model/models_gen.go", "graph/concurrent_gen.go"}

// TestGeneratedCodeIsFresh regenerates the GraphQL code in a copy of the module
// and fails if it differs from what is committed: run `go generate ./...`.
func TestGeneratedCodeIsFresh(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the code generator")
	}
	t.Parallel() // a child process, in a copy of the module: it compiles beside the tests that wait
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	work := t.TempDir()
	copyModule(t, root, work)
	cmd := exec.Command("go", "run", "./internal/graphgen")
	cmd.Dir = work
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go run ./internal/graphgen: %v\n%s", err, out)
	}
	for _, f := range generated {
		want, err := os.ReadFile(filepath.Join(work, f))
		if err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(want) {
			t.Errorf("%s is stale or was edited by hand: run `go generate ./...` and commit the result", f)
		}
	}
}

// copyModule copies the module's Go sources, the files they embed and the
// generator's inputs: the generator builds the module.
func copyModule(t *testing.T, from, to string) {
	t.Helper()
	err := filepath.WalkDir(from, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, path)
		if d.IsDir() {
			if strings.HasPrefix(d.Name(), ".") && rel != "." || d.Name() == "calgraph-data" || d.Name() == "testdata" {
				return filepath.SkipDir
			}
			return os.MkdirAll(filepath.Join(to, rel), 0o755)
		}
		embedded := slices.Contains([]string{".html", ".js", ".css"}, filepath.Ext(rel)) // GraphiQL's, which the module embeds
		if !strings.HasSuffix(rel, ".go") && !embedded && rel != "go.mod" && rel != "go.sum" && rel != "gqlgen.yml" && rel != "schema.graphqls" {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(to, rel), b, 0o644)
	})
	if err != nil {
		t.Fatalf("copy module: %v", err)
	}
}
