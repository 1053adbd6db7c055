package graph

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
)

// TestScalarFieldContextIsGqlgens checks that scalarFieldContext makes the
// field context graphql.NewScalarFieldContext makes, its Child's error
// included, with one allocation (the context) instead of three.
func TestScalarFieldContextIsGqlgens(t *testing.T) {
	field := graphql.CollectedField{Field: &ast.Field{Name: "title", Alias: "title"}}
	for _, typ := range []string{"String", "DateTime", "EntryKind"} {
		for _, method := range []bool{false, true} {
			want, _ := graphql.NewScalarFieldContext("TimedEntry", field, method, false, errors.New("field of type "+typ+" does not have child fields"))
			got, err := scalarFieldContext("TimedEntry", field, method, false, typ)
			if err != nil {
				t.Fatal(err)
			}
			_, wantErr := want.Child(context.Background(), field)
			_, gotErr := got.Child(context.Background(), field)
			if got.Object != want.Object || got.Field.Field != want.Field.Field || got.IsMethod != want.IsMethod ||
				got.IsResolver != want.IsResolver || fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
				t.Errorf("%s, method %v: got %+v (Child: %v), want %+v (Child: %v)", typ, method, got, gotErr, want, wantErr)
			}
		}
	}
	if n := testing.AllocsPerRun(100, func() { fieldContextSink, _ = scalarFieldContext("TimedEntry", field, false, false, "String") }); n > 1 {
		t.Errorf("scalarFieldContext allocates %v times, want 1", n)
	}
}

// fieldContextSink keeps the contexts AllocsPerRun measures on the heap, as
// gqlgen's execution does.
var fieldContextSink *graphql.FieldContext
