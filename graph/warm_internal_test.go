package graph

import (
	"context"
	"fmt"
	"testing"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/gqlerror"
)

// TestMarshalConcurrentlyAsGqlgen checks that marshalConcurrently answers as
// graphql.MarshalSliceConcurrently does: the elements in order, each with its
// index in its field context, and a list that panics null with the panic
// recorded once as an error.
func TestMarshalConcurrentlyAsGqlgen(t *testing.T) {
	for _, tc := range []struct {
		name   string
		length int
		panics int // the element that panics, or -1
	}{{"two", 2, -1}, {"hundred", 100, -1}, {"one panics", 20, 7}} {
		t.Run(tc.name, func(t *testing.T) {
			marshal := func(ctx context.Context, i int) graphql.Marshaler {
				if i == tc.panics {
					panic(fmt.Sprint("element ", i))
				}
				return graphql.MarshalString(fmt.Sprint(i, "@", *graphql.GetFieldContext(ctx).Index))
			}
			render := func(list func(context.Context) graphql.Array) (string, gqlerror.List) {
				ctx := graphql.WithResponseContext(context.Background(), graphql.DefaultErrorPresenter,
					func(_ context.Context, r any) error { return fmt.Errorf("recovered: %v", r) })
				ctx = graphql.WithFieldContext(ctx, &graphql.FieldContext{Field: graphql.CollectedField{}})
				arr := list(ctx)
				var out string
				if arr == nil {
					out = "null"
				} else {
					var b stringsBuilder
					arr.MarshalGQL(&b)
					out = b.String()
				}
				return out, graphql.GetErrors(ctx)
			}
			want, wantErrs := render(func(ctx context.Context) graphql.Array {
				return graphql.MarshalSliceConcurrently(ctx, tc.length, 0, false, marshal)
			})
			got, gotErrs := render(func(ctx context.Context) graphql.Array {
				return marshalConcurrently(ctx, tc.length, 0, false, marshal)
			})
			if got != want || fmt.Sprint(gotErrs) != fmt.Sprint(wantErrs) {
				t.Errorf("got %s %v\nwant %s %v", got, gotErrs, want, wantErrs)
			}
		})
	}
}

// stringsBuilder is a strings.Builder as an io.Writer for MarshalGQL.
type stringsBuilder struct{ b []byte }

func (s *stringsBuilder) Write(p []byte) (int, error) { s.b = append(s.b, p...); return len(p), nil }
func (s *stringsBuilder) String() string              { return string(s.b) }
