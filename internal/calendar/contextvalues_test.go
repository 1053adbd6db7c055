package calendar

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// valueKind is what a context value is, as the package doc sorts them.
type valueKind int

const (
	requestState valueKind = iota
	observation
	backChannel
)

// contextValues is every value a calgraph package puts in a context, by the
// directory of the package and the type of its key, with the name the
// package doc gives it.
var contextValues = map[string]struct {
	kind  valueKind
	named string
}{
	"internal/calendar viewerKey":      {requestState, "ViewerOf"},
	"internal/loader ctxKey":           {requestState, "loader.For"},
	"graph sessionKey":                 {requestState, "sessionOf"},
	"internal/reqinfo key":             {observation, "reqinfo.From"},
	"internal/httpapi requestIDKey":    {observation, "httpapi.RequestID"},
	"internal/dynamo attemptLogKey":    {observation, "withAttemptLog"},
	"internal/telemetry sentURL":       {observation, "telemetry.TraceHTTP"},
	"internal/calendar idempotencyKey": {backChannel, "IdempotencyOf"},
	"internal/dynamo readSetKey":       {observation, "Store.Record"},
	"internal/answercache ctxKey":      {observation, "answercache.Mark"},
}

// TestContextValuesAreNamed holds the package doc's promise that it names
// every value a calgraph package puts in a context, and that one of them at
// most is a back-channel: a new context.WithValue anywhere in the repository
// fails here until the doc (and the table above) say what it is.
func TestContextValuesAreNamed(t *testing.T) {
	found := contextValueKeys(t, filepath.Join("..", ".."))
	for key, where := range found {
		if _, ok := contextValues[key]; !ok {
			t.Errorf("%s puts a value in a context with key %s, which the package doc does not name", where, key)
		}
	}
	doc, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	backChannels := 0
	for key, v := range contextValues {
		if !strings.Contains(string(doc), v.named) {
			t.Errorf("%s: the package doc does not name it (%q)", key, v.named)
		}
		if _, ok := found[key]; !ok {
			t.Errorf("%s: nothing puts it in a context any more; drop it from the doc and the table", key)
		}
		if v.kind == backChannel {
			backChannels++
		}
	}
	if backChannels != 1 {
		t.Errorf("got %d back-channels, want 1: the idempotent request", backChannels)
	}
}

// contextValueKeys returns the key of each context.WithValue call in the
// non-test Go files under root, as "directory KeyType", with where it is.
func contextValueKeys(t *testing.T, root string) map[string]string {
	t.Helper()
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("want the module root at %s: %v", root, err)
	}
	found := map[string]string{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		dir, _ := filepath.Rel(root, filepath.Dir(path))
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok || !isContextWithValue(call.Fun) || len(call.Args) != 3 {
				return true
			}
			found[filepath.ToSlash(dir)+" "+keyName(call.Args[1])] = fset.Position(call.Pos()).String()
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(found) == 0 {
		t.Fatal("found no context.WithValue call at all: is the walk looking at the repository?")
	}
	keys := make([]string, 0, len(found))
	for k := range found {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	t.Logf("context values: %s", strings.Join(keys, ", "))
	return found
}

func isContextWithValue(fun ast.Expr) bool {
	sel, ok := fun.(*ast.SelectorExpr)
	if !ok || sel.Sel.Name != "WithValue" {
		return false
	}
	pkg, ok := sel.X.(*ast.Ident)
	return ok && pkg.Name == "context"
}

// keyName names a key by its type when it is a composite literal (key{}),
// else by its expression, which no row of contextValues matches.
func keyName(e ast.Expr) string {
	if lit, ok := e.(*ast.CompositeLit); ok {
		if id, ok := lit.Type.(*ast.Ident); ok {
			return id.Name
		}
	}
	return "an expression other than T{}"
}
