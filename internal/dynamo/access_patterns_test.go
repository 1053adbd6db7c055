package dynamo_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

// TestAccessPatternsNameRealCode keeps ACCESS_PATTERNS.md's references to the
// code true: every "`file.go` Name" names a function or method declared in that
// file of the package, every file written in backticks exists, and every other
// identifier in backticks is a function or method of the package, a stored
// attribute (a dynamodbav tag) or a name of DynamoDB's API.
func TestAccessPatternsNameRealCode(t *testing.T) {
	b, err := os.ReadFile("ACCESS_PATTERNS.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	funcs, attrs := declarations(t)

	refs := regexp.MustCompile("`([a-z_]+\\.go)` ([A-Za-z]\\w*)").FindAllStringSubmatch(doc, -1)
	if len(refs) < 20 {
		t.Fatalf("got %d code references like \"`reads.go` Read\", want the reads table's", len(refs))
	}
	for _, ref := range refs {
		file, name := ref[1], ref[2]
		switch got := funcs[name]; {
		case got == "":
			t.Errorf("%s (said to be in %s) is no function or method of the package", name, file)
		case !strings.Contains(got, " "+file+" "):
			t.Errorf("%s is declared in%s, not in %s", name, got, file)
		}
	}

	for _, m := range regexp.MustCompile("`([^`\n]+)`").FindAllStringSubmatch(doc, -1) {
		word := m[1]
		switch {
		case strings.HasSuffix(word, ".go"):
			path := word
			if strings.Contains(word, "/") {
				path = filepath.Join("..", "..", word) // relative to the repository
			}
			if _, err := os.Stat(path); err != nil {
				t.Errorf("`%s` names no file: %v", word, err)
			}
		case goName.MatchString(word):
			if funcs[word] == "" && !attrs[word] && !dynamoDBName(word) {
				t.Errorf("`%s` is neither a function of the package, a stored attribute, nor a DynamoDB API name", word)
			}
		}
	}
}

// goName matches identifiers that mix cases (EnsureTable, entityType): the
// ones that can name code. KEY_PARTS and plain words cannot.
var goName = regexp.MustCompile(`^[A-Za-z][a-z0-9]+[A-Z]\w*$`)

// declarations parses the package's non-test sources and returns, by name, the
// files declaring each function or method (" a.go b.go "), and the attribute
// names in dynamodbav tags.
func declarations(t *testing.T) (funcs map[string]string, attrs map[string]bool) {
	t.Helper()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	funcs, attrs = map[string]string{}, map[string]bool{}
	fset := token.NewFileSet()
	for _, file := range files {
		if strings.HasSuffix(file, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, file, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.FuncDecl:
				if funcs[n.Name.Name] == "" {
					funcs[n.Name.Name] = " "
				}
				funcs[n.Name.Name] += file + " "
			case *ast.Field:
				if n.Tag != nil {
					tag := reflect.StructTag(strings.Trim(n.Tag.Value, "`")).Get("dynamodbav")
					if name, _, _ := strings.Cut(tag, ","); name != "" {
						attrs[name] = true
					}
				}
			}
			return true
		})
	}
	if len(funcs) == 0 {
		t.Fatal("found no functions in the package")
	}
	return funcs, attrs
}

// dynamoDBName reports whether word is an operation of DynamoDB's API or a
// field of a Query's or Scan's input or output (LastEvaluatedKey).
func dynamoDBName(word string) bool {
	if _, ok := reflect.TypeFor[*dynamodb.Client]().MethodByName(word); ok {
		return true
	}
	for _, typ := range []reflect.Type{
		reflect.TypeFor[dynamodb.QueryInput](), reflect.TypeFor[dynamodb.QueryOutput](),
		reflect.TypeFor[dynamodb.ScanInput](), reflect.TypeFor[dynamodb.ScanOutput](),
	} {
		if _, ok := typ.FieldByName(word); ok {
			return true
		}
	}
	return false
}
