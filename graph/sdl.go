package graph

import (
	"bytes"
	"cmp"
	"slices"

	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/formatter"
)

// specDirectives are the directives of the GraphQL spec (October 2021
// edition), which every tool defines for itself; graphql-js's printSchema
// leaves them out of an SDL too.
var specDirectives = []string{"include", "skip", "deprecated", "specifiedBy"}

// SDL returns the schema as GET /schema.graphql serves it: source (the
// schema.graphqls the server is generated from) followed by the definitions
// of the other directives the server supports, which gqlgen adds without
// their being in source: @defer (answered as multipart/mixed) and @oneOf
// (on inputs such as TimeRangeInput). Without them, tools that build a
// schema from the SDL and validate operations against it (graphql-js's
// buildSchema and validate, under graphql-codegen and editors) reject every
// operation that uses @defer, and those older than graphql-js 16.9 the
// schema itself. Introspection lists the same directives.
func SDL(source []byte) []byte {
	schema := NewExecutableSchema(Config{}).Schema()
	var extra ast.DirectiveDefinitionList
	for name, d := range schema.Directives {
		builtIn := d.Position != nil && d.Position.Src != nil && d.Position.Src.BuiltIn
		if builtIn && !slices.Contains(specDirectives, name) {
			extra = append(extra, d)
		}
	}
	if len(extra) == 0 {
		return source
	}
	slices.SortFunc(extra, func(a, b *ast.DirectiveDefinition) int { return cmp.Compare(a.Name, b.Name) })
	var out bytes.Buffer
	out.Write(bytes.TrimRight(source, "\n"))
	out.WriteString("\n\n# The directives the server supports beyond the GraphQL spec (October 2021).\n")
	for _, d := range extra {
		out.WriteString("\n")
		formatter.NewFormatter(&out, formatter.WithIndent("  "), formatter.WithBuiltin()).
			FormatSchemaDocument(&ast.SchemaDocument{Directives: ast.DirectiveDefinitionList{d}})
	}
	return out.Bytes()
}
