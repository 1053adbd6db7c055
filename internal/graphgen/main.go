// Command graphgen generates the GraphQL code from schema.graphqls and
// gqlgen.yml: it runs gqlgen as `go tool gqlgen generate` does, then changes
// what gqlgen writes so that lists of objects need not cost a goroutine per
// element, nor objects a path each.
//
// gqlgen marshals every element of a list of objects on a goroutine of its
// own, so that fields of sibling elements that wait on a loader wait on one
// batch together. Most lists wait on nothing: a week view's 100 entries are
// all loaded already, and their goroutines (starting, growing their stacks,
// being scheduled) cost about a tenth of its CPU. And every object computes
// its path in the response, an allocation per step, for @defer, whether or
// not the operation defers anything. So graphgen:
//
//   - writes graph/concurrent_gen.go: the fields gqlgen runs concurrently
//     (those with a resolver or a method taking a context: the only ones that
//     can wait), per object and per interface;
//   - rewrites graph/generated.go's calls of graphql.MarshalSliceConcurrently
//     to graph's marshalList, which takes the elements' selection set and runs
//     them inline when it selects none of those fields that may wait (graph's
//     settledFields never do), at any depth, and as gqlgen does otherwise;
//   - rewrites the path each object hands to its deferred fragments to
//     graph's deferredPath, which computes it only when there are some;
//   - rewrites each scalar field's context to graph's scalarFieldContext,
//     which allocates the context alone: gqlgen's made an error and a closure
//     too, for every scalar field of every object (a third of a week view's
//     field contexts' allocations), to answer a call that never comes;
//   - gives each String, ID, Boolean, Int, DateTime or Date field, and each
//     list of String or DateTime, read straight from a struct field or a
//     method without a context (no resolver) a path that marshals the value
//     alone, taken when graph's plainFields says no extension intercepts
//     fields: gqlgen's path made a field context, a context, two closures and
//     two boxed copies of the value per field (about half a cold week view's
//     allocations), none of which such a field's answer can depend on (its
//     marshaler reads the context only for a null, which these never are);
//   - gives every other field read from a struct field or a method without
//     a context (an entry's calendar, a page's entries, an enum) a path that
//     makes its field context and marshals its value in it, as gqlgen does,
//     without gqlgen's five closures and two boxed copies: its own fields'
//     contexts (and the paths of their errors) descend from it;
//   - collects each object's fields once per operation and selection set
//     (graph's collect: gqlgen hashed the type's names for every object);
//   - makes each object's fields a graph objectSet, its values in the same
//     allocation, which writes them as gqlgen's FieldSet does without a map
//     per object and an allocation per field, and makes an object's set and
//     views of deferred fields only when it has one (graph's deferring).
//
// Run it from the module root: `go generate ./...` does.
package main

import (
	"bytes"
	"fmt"
	"go/format"
	"io"
	"log"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/99designs/gqlgen/api"
	"github.com/99designs/gqlgen/codegen"
	"github.com/99designs/gqlgen/codegen/config"
)

const concurrentGo = "concurrent_gen.go"

// rewrites are graphgen's changes to graph/generated.go: each replaces every
// occurrence of a call gqlgen's templates write, and there must be as many
// as of the call they are counted by (so that none is missed).
var rewrites = []struct{ from, to, countedBy string }{
	{"graphql.MarshalSliceConcurrently(ctx, ", "marshalList(ctx, sel, ", "MarshalSliceConcurrently"},
	{"\t\tPath:     graphql.GetPath(ctx),\n", "\t\tPath:     deferredPath(ctx, deferLabelToView),\n", "ec.ProcessDeferredGroup("},
	// A scalar field's context: scalarFieldContext(object, field, isMethod,
	// isResolver, "String") instead of graphql.NewScalarFieldContext(...,
	// errors.New("field of type String does not have child fields")).
	{"graphql.NewScalarFieldContext(", "scalarFieldContext(", "NewScalarFieldContext("},
	{`errors.New("field of type `, `"`, ` does not have child fields"))`},
	{` does not have child fields"))`, `")`, `scalarFieldContext(`},
	// An object's answer is written by graph's objectSet, not FieldSet's own
	// MarshalGQL (a map per object and an allocation per field).
	{"\n\treturn out\n}\n", "\n\treturn set\n}\n", "out := graphql.NewFieldSet(fields)"},
	// An object's deferred fields' set and views are made by its first
	// deferred field (deferring), not for every object whatever it defers.
	{"\tdeferredFieldSet := graphql.NewFieldSet(nil)\n\tdeferLabelToView := make(map[string]*graphql.FieldSetView)\n",
		"\tvar deferredFieldSet *graphql.FieldSet\n\tvar deferLabelToView map[string]*graphql.FieldSetView\n", "out := graphql.NewFieldSet(fields)"},
	{"\t\t\t\tdeferredFieldSet.AddField(field)\n",
		"\t\t\t\tdeferredFieldSet, deferLabelToView = deferring(deferredFieldSet, deferLabelToView)\n\t\t\t\tdeferredFieldSet.AddField(field)\n",
		"deferredFieldSet.AddField(field)"},
	// A string is written by graph's quoted, the string itself, not by a
	// closure around it (an allocation each).
	{"graphql.MarshalString(", "quoted(", "graphql.MarshalString("},
	{"graphql.MarshalID(", "quoted(", "graphql.MarshalID("},
	// An object's fields are collected by graph's collect, which keeps them
	// for the operation by the addresses of the selection set and the
	// implementors (collectedFields).
	{"graphql.CollectFields(ec.OperationContext, sel, ", "collect(ec.collected, ec.OperationContext, sel, ", "graphql.CollectFields(ec.OperationContext, sel, "},
	{"type executionContext struct {\n\t*graphql.ExecutionContextState[ResolverRoot, DirectiveRoot, ComplexityRoot]\n}",
		"type executionContext struct {\n\t*graphql.ExecutionContextState[ResolverRoot, DirectiveRoot, ComplexityRoot]\n\tcollected *collectedFields\n}",
		"type executionContext struct {"},
	{"\treturn &executionContext{\n\t\tExecutionContextState:", "\treturn &executionContext{\n\t\tcollected: new(collectedFields),\n\t\tExecutionContextState:", "func newExecutionContext("},
	// An object's FieldSet is graph's objectSet's, with its values: one
	// allocation where gqlgen made two, and a third to return it. (Last:
	// the rewrites above are counted by what this one replaces.)
	{"out := graphql.NewFieldSet(fields)", "set := newObjectSet(fields)\n\tout := &set.FieldSet", "out := graphql.NewFieldSet(fields)"},
}

func main() {
	log.SetOutput(io.Discard) // gqlgen's own notes, which its command hides too
	if err := generate(); err != nil {
		fmt.Fprintln(os.Stderr, "graphgen:", err)
		os.Exit(1)
	}
}

func generate() error {
	cfg, err := config.LoadConfigFromDefaultLocations()
	if err != nil {
		return err
	}
	if err := api.Generate(cfg, api.AddPlugin(concurrentFields{})); err != nil {
		return err
	}
	return rewrite(cfg.Exec.Filename)
}

// rewrite makes the rewrites in the generated executor. It fails when one
// finds nothing to replace, or misses an occurrence: a gqlgen whose
// templates changed needs graphgen looked at again.
func rewrite(file string) error {
	src, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	for _, r := range rewrites {
		n, want := bytes.Count(src, []byte(r.from)), bytes.Count(src, []byte(r.countedBy))
		if n == 0 || n != want {
			return fmt.Errorf("%s: %d of %q, but %d of %q: gqlgen's templates changed", file, n, r.from, want, r.countedBy)
		}
		src = bytes.ReplaceAll(src, []byte(r.from), []byte(r.to))
	}
	src, n := plainScalars(src)
	if n == 0 {
		return fmt.Errorf("%s: no scalar struct field's ResolveField found: gqlgen's templates changed", file)
	}
	src, n = plainValues(src)
	if n == 0 {
		return fmt.Errorf("%s: no other struct field's ResolveField found: gqlgen's templates changed", file)
	}
	return os.WriteFile(file, src, 0o644)
}

// plainScalar is gqlgen's resolution of a String, ID, Boolean, Int,
// DateTime or Date field, or a list of String or DateTime, read from a
// struct field or a method without a context: no resolver, no middleware,
// and a marshaler that reads its context only for a non-null field's null,
// which these values (not pointers) cannot be (model.MarshalDateTime and
// MarshalDate, as MarshalString, never make one; a nil list is an empty
// one); nullable ones are pointers, marshaled as null when nil, without a
// context.
var plainScalar = resolveFieldOf(`^`,
	`\*?(?:string|bool|int|time\.Time|calendar\.Date)|\[\](?:string|time\.Time)`,
	`marshal(?:N(?:String2string|ID2string|Boolean2bool|Int2int|`+plainTimes+`|String2ᚕstringᚄ)|O(?:String2ᚖstring|ID2ᚖstring|Boolean2ᚖbool|Int2ᚖint|String2string|DateTime2ᚖtimeᚐTime|Date2ᚖ`+datePkg+`))`)

// resolveFieldOf matches gqlgen's graphql.ResolveField call for a field
// read from a struct field or a method without a context (no middleware,
// recovering panics), after prefix, with the value's type (typ) and its
// marshaler's name (marshal) as these patterns say. Its groups: the field context's name, the value (obj.X), "()" for a
// method, the type, the marshaler.
func resolveFieldOf(prefix, typ, marshal string) *regexp.Regexp {
	return regexp.MustCompile(`(?m)` + prefix + `\treturn graphql\.ResolveField\(
\t\tctx,
\t\tec\.OperationContext,
\t\tfield,
\t\tfunc\(ctx context\.Context, field graphql\.CollectedField\) \(\*graphql\.FieldContext, error\) \{
\t\t\treturn ec\.(fieldContext_\w+)\(ctx, field\)
\t\t\},
\t\tfunc\(ctx context\.Context\) \(any, error\) \{
\t\t\treturn (obj\.\w+)(\(\))?, nil
\t\t\},
\t\tnil,
\t\tfunc\(ctx context\.Context, selections ast\.SelectionSet, v (` + typ + `)\) graphql\.Marshaler \{
\t\t\treturn ec\.(` + marshal + `)\(ctx, selections, v\)
\t\t\},
\t\ttrue,
\t\t(?:true|false),
\t\)
`)
}

// The marshalers of DateTime and Date values and lists, as gqlgen names them.
const (
	datePkg    = `githubᚗcomᚋcalgraphᚋcalgraphᚋinternalᚋcalendarᚐDate`
	plainTimes = `DateTime2timeᚐTime|DateTime2ᚕtimeᚐTimeᚄ|Date2` + datePkg
)

// plainScalars puts a fast path before every plainScalar: when graph's
// plainFields holds, the field's value is marshaled as it is, without a field
// context (see the package comment). It returns how many it changed.
func plainScalars(src []byte) ([]byte, int) {
	n := 0
	out := plainScalar.ReplaceAllFunc(src, func(m []byte) []byte {
		n++
		sub := plainScalar.FindSubmatch(m)
		value, call, typ, marshal := sub[2], len(sub[3]) > 0, sub[4], sub[5]
		// A list of strings is written by graph's stringList, without an
		// array and a marshaler per element.
		ret := fmt.Sprintf("ec.%s(ctx, field.Selections, %%s)", marshal)
		if string(marshal) == "marshalNString2ᚕstringᚄ" {
			ret = "stringList(%s)"
		}
		if !call {
			return append([]byte(fmt.Sprintf("\tif ec.plainFields() {\n\t\treturn "+ret+"\n\t}\n", value)), m...)
		}
		// A method may panic: plainCall says so, and gqlgen's path then
		// calls it again and reports the panic on the field, as before.
		// The call is made inside plainCall's function, so that any panic on
		// the way (a nil embedded pointer) is plainCall's to catch.
		return append([]byte(fmt.Sprintf("\tif ec.plainFields() {\n\t\tif v, ok := plainCall(func() %s { return %s() }); ok {\n\t\t\treturn "+fmt.Sprintf(ret, "v")+"\n\t\t}\n\t}\n",
			typ, value)), m...)
	})
	return out, n
}

// plainValue is gqlgen's resolution of any other field read from a struct
// field or a method without a context (an object, a list, an enum, a custom
// scalar: an entry's calendar, a page's entries, a membership's role), as the
// first thing its function does: plainScalars has not put its path before it.
var plainValue = resolveFieldOf(`\(ret graphql\.Marshaler\) \{\n`, `[\w.*\[\]]+`, `marshal[^(]+`)

// plainValues puts a path before every plainValue that does what gqlgen's
// does for a field without a resolver when no extension intercepts fields
// (graph's plainFields), without its two boxed copies of the value and its
// five closures: the field's context, with the value as its Result, in the
// context its value is marshaled in (its children's paths and errors
// descend from it), and gqlgen's recovery of a panic (graph's recoverField).
// A method that panics, and a nil interface (which gqlgen reports as a null
// of its own), take gqlgen's path. It returns how many it changed.
func plainValues(src []byte) ([]byte, int) {
	n := 0
	out := plainValue.ReplaceAllFunc(src, func(m []byte) []byte {
		n++
		sub := plainValue.FindSubmatch(m)
		fieldContext, value, call, typ, marshal := sub[1], sub[2], len(sub[3]) > 0, sub[4], sub[5]
		get := fmt.Sprintf("v, ok := %s, true", value)
		if call {
			get = fmt.Sprintf("v, ok := plainCall(func() %s { return %s() })", typ, value)
		}
		return append([]byte(fmt.Sprintf(`(ret graphql.Marshaler) {
	if ec.plainFields() {
		if %s; ok && !nilInterface(v) {
			fc, err := ec.%s(ctx, field)
			if err != nil {
				return graphql.Null
			}
			fc.Result = v
			ctx := graphql.WithFieldContext(ctx, fc)
			defer ec.recoverField(ctx, &ret)
			return ec.%s(ctx, field.Selections, v)
		}
	}
`, get, fieldContext, marshal)), m[len("(ret graphql.Marshaler) {\n"):]...)
	})
	return out, n
}

// concurrentFields is a gqlgen plugin that writes graph/concurrent_gen.go
// from the generator's own model of the fields.
type concurrentFields struct{}

func (concurrentFields) Name() string { return "calgraph-concurrent-fields" }

// GenerateCode writes the file; gqlgen calls it before writing its own code.
func (concurrentFields) GenerateCode(data *codegen.Data) error {
	byType := map[string][]string{}
	add := func(typ, field string) {
		if !slices.Contains(byType[typ], field) {
			byType[typ] = append(byType[typ], field)
		}
	}
	for _, o := range data.Objects {
		for _, f := range o.Fields {
			if f.IsConcurrent() {
				add(o.Name, f.Name)
			}
		}
	}
	// A field selected on an interface may run concurrently if it does on any
	// of the interface's types.
	for name, i := range data.Interfaces {
		for _, impl := range i.Implementors {
			o := data.Objects.ByName(impl.Name)
			if o == nil {
				return fmt.Errorf("interface %s: no object %s", name, impl.Name)
			}
			for _, f := range o.Fields {
				if f.IsConcurrent() {
					add(name, f.Name)
				}
			}
		}
	}
	src, err := source(data.Config.Exec.Package, byType)
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(filepath.Dir(data.Config.Exec.Filename), concurrentGo), src, 0o644)
}

// source is graph/concurrent_gen.go.
func source(pkg string, byType map[string][]string) ([]byte, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "// Code generated by internal/graphgen, DO NOT EDIT.\n\npackage %s\n\n", pkg)
	b.WriteString("// concurrentFields are the fields gqlgen runs on goroutines of their own,\n")
	b.WriteString("// by the type they are selected on: the only fields that can wait.\n")
	b.WriteString("var concurrentFields = map[string]map[string]bool{\n")
	types := make([]string, 0, len(byType))
	for t := range byType {
		types = append(types, t)
	}
	slices.Sort(types)
	for _, t := range types {
		fields := slices.Sorted(slices.Values(byType[t]))
		fmt.Fprintf(&b, "\t%q: {", t)
		for i, f := range fields {
			if i > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "%q: true", f)
		}
		b.WriteString("},\n")
	}
	b.WriteString("}\n")
	return format.Source([]byte(b.String()))
}
