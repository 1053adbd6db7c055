package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"testing"
)

// TestGraphQLOverHTTPAudit runs graphql-http's server audits against the
// running server: all of them must pass, with no warning where the spec
// leaves the choice to the server. It needs node and graphql-http, which
// .ci/run installs and names in CALGRAPH_AUDIT_DIR; elsewhere it is skipped.
func TestGraphQLOverHTTPAudit(t *testing.T) {
	dir := os.Getenv("CALGRAPH_AUDIT_DIR")
	if dir == "" {
		t.Skip("set CALGRAPH_AUDIT_DIR to a directory with node_modules/graphql-http (.ci/run does)")
	}
	in := serve(t, settings(t, t.TempDir(), false))
	cmd := exec.Command("node", "testdata/graphql-http-audit.cjs", in.url+"/query", in.token)
	cmd.Env = append(os.Environ(), "AUDIT_DIR="+dir)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("the audit did not run: %v\n%s", err, out)
	}
	var res struct {
		OK    int      `json:"ok"`
		NotOK []string `json:"notOk"`
	}
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("audit output %q: %v", out, err)
	}
	t.Logf("%d audits passed", res.OK)
	for _, n := range res.NotOK {
		t.Error(n)
	}
	if res.OK < 61 {
		t.Errorf("%d audits passed, want all 61", res.OK)
	}
}
