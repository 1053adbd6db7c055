package main

import (
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// sdlOperations use the directives calgraph supports beyond the GraphQL
// spec of October 2021: @defer on an inline fragment and on a fragment
// spread, and an input marked @oneOf.
var sdlOperations = []string{
	`{ viewer { user { email } ... @defer(label: "cals") { calendars { edges { node { calendar { name } } } } } } }`,
	`query Later { viewer { ...Cals @defer(if: true) } } fragment Cals on Viewer { calendars(first: 5) { edges { node { calendar { name } } } } }`,
	`{ viewer { agenda(range: {dates: {start: "2026-11-23", end: "2026-11-30"}}) { __typename } } }`,
}

// TestSchemaDeclaresDirectives: /schema.graphql declares the directives the
// server supports that tools do not assume (@defer, @oneOf), so a tool that
// validates operations against the SDL accepts those the server runs.
func TestSchemaDeclaresDirectives(t *testing.T) {
	in := serve(t, settings(t, t.TempDir(), false))
	sdl := get(t, in.url+"/schema.graphql")
	for _, want := range []string{"directive @defer(", "directive @oneOf on INPUT_OBJECT", "input TimeRangeInput @oneOf"} {
		if !strings.Contains(sdl, want) {
			t.Errorf("/schema.graphql lacks %q", want)
		}
	}
	for _, spec := range []string{"directive @include", "directive @skip", "directive @deprecated", "directive @specifiedBy"} {
		if strings.Contains(sdl, spec) {
			t.Errorf("/schema.graphql declares the spec's %q, which tools define themselves", spec)
		}
	}
}

// TestSchemaWithGraphQLJS builds a schema from /schema.graphql with
// graphql-js (buildSchema, as graphql-codegen and editors do) and validates
// operations that use @defer and @oneOf against it: none may be rejected.
// It needs node and graphql, which .ci/run installs and names in
// CALGRAPH_AUDIT_DIR; elsewhere it is skipped.
func TestSchemaWithGraphQLJS(t *testing.T) {
	dir := os.Getenv("CALGRAPH_AUDIT_DIR")
	if dir == "" {
		t.Skip("set CALGRAPH_AUDIT_DIR to a directory with node_modules/graphql (.ci/run does)")
	}
	in := serve(t, settings(t, t.TempDir(), false))
	cmd := exec.Command("node", append([]string{"testdata/sdl-graphql-js.cjs", in.url + "/schema.graphql"}, sdlOperations...)...)
	cmd.Env = append(os.Environ(), "AUDIT_DIR="+dir)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("graphql-js: %v\n%s", err, out)
	}
	var rejected [][]string
	if err := json.Unmarshal(out, &rejected); err != nil || len(rejected) != len(sdlOperations) {
		t.Fatalf("graphql-js printed %s, want one list of errors per operation", out)
	}
	for i, msgs := range rejected {
		if len(msgs) > 0 {
			t.Errorf("graphql-js rejects %s: %v", sdlOperations[i], msgs)
		}
	}
}

// get returns the body of a GET that answers 200.
func get(t *testing.T, url string) string {
	t.Helper()
	res, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil || res.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d %v", url, res.StatusCode, err)
	}
	return string(b)
}
