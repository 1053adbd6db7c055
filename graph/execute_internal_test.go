package graph

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"

	"github.com/calgraph/calgraph/graph/model"
	"github.com/calgraph/calgraph/internal/calendar"
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

// TestPlainScalarFieldsSkipOnlyUninterceptedResolution checks the path
// internal/graphgen writes for scalar struct fields: with plainFields the
// value is marshaled as gqlgen would, with no field middleware run and one
// allocation (the marshaler); without it (a handler with an extension that
// intercepts fields) gqlgen's resolution runs, middleware included.
func TestPlainScalarFieldsSkipOnlyUninterceptedResolution(t *testing.T) {
	if interceptsFields(nil) || !interceptsFields([]graphql.HandlerExtension{fieldCounter{}}) {
		t.Fatal("interceptsFields does not tell a field interceptor")
	}
	field := graphql.CollectedField{Field: &ast.Field{Name: "title", Alias: "title"}}
	obj, ok := model.EntryOf(&calendar.Entry{Title: `Stand-up "é"`, Kind: calendar.KindTimed, Tags: []string{"a", `"b"`},
		Start: time.Date(2026, 6, 15, 9, 0, 0, 0, time.UTC)}, &calendar.Calendar{}).(*model.TimedEntry)
	if !ok {
		t.Fatal("a timed entry is not a *model.TimedEntry")
	}
	allDay, ok := model.EntryOf(&calendar.Entry{Kind: calendar.KindAllDay, StartDate: calendar.Date{Year: 2026, Month: 6, Day: 15}}, &calendar.Calendar{}).(*model.AllDayEntry)
	if !ok {
		t.Fatal("an all-day entry is not a *model.AllDayEntry")
	}
	for _, plain := range []bool{true, false} {
		intercepted := 0
		ec, oc := countingContext(plain, &intercepted)
		ctx := graphql.WithOperationContext(context.Background(), oc)
		var b strings.Builder
		ec._TimedEntry_title(ctx, field, obj).MarshalGQL(&b)
		if want := `"Stand-up \"é\""`; b.String() != want {
			t.Errorf("plainFields %v: title marshaled as %s, want %s", plain, b.String(), want)
		}
		if wantCalls := map[bool]int{true: 0, false: 1}[plain]; intercepted != wantCalls {
			t.Errorf("plainFields %v: field middleware ran %d times, want %d", plain, intercepted, wantCalls)
		}
		if plain {
			if n := testing.AllocsPerRun(100, func() { marshalerSink = ec._TimedEntry_title(ctx, field, obj) }); n > 1 {
				t.Errorf("a plain scalar field allocates %v times, want 1", n)
			}
		}
		// A method's value (the ID), a nil pointer (a null), and a method
		// that panics (an entry without its domain entry): the last takes
		// gqlgen's path whatever plainFields says, which reports the panic.
		intercepted = 0
		b.Reset()
		ec._TimedEntry_id(ctx, field, obj).MarshalGQL(&b)
		ec._TimedEntry_description(ctx, field, obj).MarshalGQL(&b)
		if want := strconv.Quote(obj.ID()) + "null"; b.String() != want {
			t.Errorf("plainFields %v: id and description marshaled as %s, want %s", plain, b.String(), want)
		}
		if wantCalls := map[bool]int{true: 0, false: 2}[plain]; intercepted != wantCalls {
			t.Errorf("plainFields %v: field middleware ran %d times for id and description, want %d", plain, intercepted, wantCalls)
		}
		// A DateTime read from a struct field, a list of strings and a Date
		// read by methods: the same answers either way.
		intercepted = 0
		b.Reset()
		ec._TimedEntry_start(ctx, field, obj).MarshalGQL(&b)
		ec._TimedEntry_tags(ctx, field, obj).MarshalGQL(&b)
		ec._AllDayEntry_date(ctx, field, allDay).MarshalGQL(&b)
		if want := `"2026-06-15T09:00:00Z"["a","\"b\""]"2026-06-15"`; b.String() != want {
			t.Errorf("plainFields %v: start, tags and date marshaled as %s, want %s", plain, b.String(), want)
		}
		if wantCalls := map[bool]int{true: 0, false: 3}[plain]; intercepted != wantCalls {
			t.Errorf("plainFields %v: field middleware ran %d times for start, tags and date, want %d", plain, intercepted, wantCalls)
		}
		intercepted = 0
		rctx := graphql.WithResponseContext(ctx, graphql.DefaultErrorPresenter, oc.RecoverFunc)
		if m := ec._TimedEntry_id(rctx, field, &model.TimedEntry{}); m != graphql.Null || intercepted != 1 || len(graphql.GetErrors(rctx)) != 1 {
			t.Errorf("plainFields %v: a panicking id gave %v, field middleware ran %d times, errors %v; want null, once, one error",
				plain, m, intercepted, graphql.GetErrors(rctx))
		}
	}
}

// TestPlainValueFieldsResolveAsGqlgen checks the path internal/graphgen
// writes for the other fields without a resolver (objects, lists, enums):
// with plainFields the same answer and the same errors, at the same paths,
// as gqlgen's resolution, without field middleware; the field's own context,
// with its value as Result, is the one its children's errors descend from.
func TestPlainValueFieldsResolveAsGqlgen(t *testing.T) {
	obj, ok := model.EntryOf(&calendar.Entry{ID: "e1", Title: "Stand-up", Kind: calendar.KindTimed,
		Start: time.Date(2026, 6, 15, 9, 0, 0, 0, time.UTC)}, &calendar.Calendar{ID: "c1", Name: `Team "A"`}).(*model.TimedEntry)
	if !ok {
		t.Fatal("a timed entry is not a *model.TimedEntry")
	}
	// entry { calendar { name } calendar { viewerRole } kind }: viewerRole
	// has a resolver, which fails here (no loaders): its error's path must
	// run through calendar, and the calendar is null (viewerRole is not).
	child := func(name string) *ast.Field { return &ast.Field{Name: name, Alias: name} }
	calendarOf := func(sel ...ast.Selection) graphql.CollectedField {
		return graphql.CollectedField{Field: &ast.Field{Name: "calendar", Alias: "calendar", SelectionSet: sel}, Selections: sel}
	}
	named, role := calendarOf(child("name")), calendarOf(child("viewerRole"))
	kind := graphql.CollectedField{Field: child("kind")}
	var answers, errs [2]string
	for i, plain := range []bool{true, false} {
		intercepted := 0
		ec, oc := countingContext(plain, &intercepted)
		ctx := graphql.WithResponseContext(graphql.WithOperationContext(context.Background(), oc), graphql.DefaultErrorPresenter, oc.RecoverFunc)
		var b strings.Builder
		ec._TimedEntry_calendar(ctx, named, obj).MarshalGQL(&b)
		ec._TimedEntry_calendar(ctx, role, obj).MarshalGQL(&b)
		ec._TimedEntry_kind(ctx, kind, obj).MarshalGQL(&b)
		// A nil interface (a search hit without its entry) is gqlgen's to
		// report, whatever plainFields says.
		ec._SearchEdge_node(ctx, graphql.CollectedField{Field: child("node")}, &model.SearchEdge{}).MarshalGQL(&b)
		answers[i] = b.String()
		for _, e := range graphql.GetErrors(ctx) {
			errs[i] += fmt.Sprintf("%s at %v; ", e.Message, e.Path)
		}
		// gqlgen's path runs the middleware for calendar, name, calendar,
		// viewerRole, kind and node; the plain path for viewerRole, a
		// resolver's, and node, a nil interface.
		if want := map[bool]int{true: 2, false: 6}[plain]; intercepted != want {
			t.Errorf("plainFields %v: field middleware ran %d times, want %d", plain, intercepted, want)
		}
	}
	if want := `{"name":"Team \"A\""}null"TIMED"null`; answers[0] != want || answers[1] != want {
		t.Errorf("answers:\nplain  %s\ngqlgen %s\nwant   %s", answers[0], answers[1], want)
	}
	if errs[0] != errs[1] || !strings.Contains(errs[0], "at calendar.viewerRole") || !strings.Contains(errs[0], "must not be null at node") {
		t.Errorf("errors differ or lack calendar in their path:\nplain  %s\ngqlgen %s", errs[0], errs[1])
	}
}

// TestRecoverFieldIsGqlgens checks recoverField, which the plain path of
// fields other than scalars defers: a panic while the field is marshaled is
// an error at the field's path, and the field null.
func TestRecoverFieldIsGqlgens(t *testing.T) {
	oc := &graphql.OperationContext{RecoverFunc: func(_ context.Context, r any) error { return fmt.Errorf("panic: %v", r) }}
	ec := &executionContext{ExecutionContextState: &graphql.ExecutionContextState[ResolverRoot, DirectiveRoot, ComplexityRoot]{OperationContext: oc}}
	ctx := graphql.WithResponseContext(graphql.WithOperationContext(context.Background(), oc), graphql.DefaultErrorPresenter, oc.RecoverFunc)
	ctx = graphql.WithFieldContext(ctx, &graphql.FieldContext{Field: graphql.CollectedField{Field: &ast.Field{Alias: "calendar"}}})
	marshal := func() (ret graphql.Marshaler) {
		defer ec.recoverField(ctx, &ret)
		ret = graphql.MarshalString("not null")
		panic("boom")
	}
	if m := marshal(); m != graphql.Null {
		t.Errorf("a panicking field gave %v, want null", m)
	}
	if errs := graphql.GetErrors(ctx); len(errs) != 1 || errs[0].Message != "panic: boom" || fmt.Sprint(errs[0].Path) != "calendar" {
		t.Errorf("errors %v, want one, \"panic: boom\" at calendar", errs)
	}
}

// countingContext is an execution context with or without plainFields whose
// field middleware counts the fields it runs for in *intercepted, and whose
// recovery makes a panic the error "panic: <value>".
func countingContext(plain bool, intercepted *int) (*executionContext, *graphql.OperationContext) {
	oc := &graphql.OperationContext{
		ResolverMiddleware: func(ctx context.Context, next graphql.Resolver) (any, error) {
			*intercepted++
			return next(ctx)
		},
		RecoverFunc: func(_ context.Context, r any) error { return fmt.Errorf("panic: %v", r) },
	}
	return &executionContext{ExecutionContextState: &graphql.ExecutionContextState[ResolverRoot, DirectiveRoot, ComplexityRoot]{
		OperationContext:      oc,
		ExecutableSchemaState: &graphql.ExecutableSchemaState[ResolverRoot, DirectiveRoot, ComplexityRoot]{Resolvers: &Resolver{plainFields: plain}},
	}}, oc
}

// fieldCounter is an extension that intercepts fields.
type fieldCounter struct{}

func (fieldCounter) ExtensionName() string                   { return "fieldCounter" }
func (fieldCounter) Validate(graphql.ExecutableSchema) error { return nil }
func (fieldCounter) InterceptField(ctx context.Context, next graphql.Resolver) (any, error) {
	return next(ctx)
}

var marshalerSink graphql.Marshaler
