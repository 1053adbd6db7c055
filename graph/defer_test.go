package graph_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestDefer reads an operation with @defer as a client of the
// incremental-delivery RFC does: multipart/mixed parts, the first with the
// data not deferred and hasNext, then the deferred data at its path, the
// last part with hasNext false. Without `Accept: multipart/mixed` the
// operation is refused before it runs, not half answered.
func TestDefer(t *testing.T) {
	e := newEnv(t)
	tok := e.token("defer@example.com")
	e.must(tok, `mutation { createCalendar(input: {name: "Later"}) { calendar { id } } }`, nil)
	// Two fields of one object deferred under two labels: each part comes.
	const query = `{ viewer { user { email } ... @defer(label: "cals") { calendars { edges { node { calendar { name } } } } }
		... @defer(label: "again") { again: calendars { edges { node { calendar { name } } } } } } }`
	body, _ := json.Marshal(map[string]any{"query": query})
	send := func(accept string) *http.Response {
		req, _ := http.NewRequest(http.MethodPost, e.url+"/query", bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", accept)
		req.Header.Set("Authorization", "Bearer "+tok)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { res.Body.Close() })
		return res
	}

	res := send("multipart/mixed;deferSpec=20220824, application/json")
	mt, params, err := mime.ParseMediaType(res.Header.Get("Content-Type"))
	if err != nil || mt != "multipart/mixed" {
		t.Fatalf("got %d %q, want multipart/mixed", res.StatusCode, res.Header.Get("Content-Type"))
	}
	parts := multipart.NewReader(res.Body, params["boundary"])
	var got []map[string]any
	for {
		p, err := parts.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("part %d: %v", len(got), err)
		}
		var part map[string]any
		if err := json.NewDecoder(p).Decode(&part); err != nil {
			t.Fatalf("part %d is not JSON: %v", len(got), err)
		}
		got = append(got, part)
	}
	if len(got) < 2 {
		t.Fatalf("got %d parts, want the first and the deferred one: %v", len(got), got)
	}
	if get(got[0], "data.viewer.user.email") != "defer@example.com" || got[0]["hasNext"] != true || got[0]["errors"] != nil {
		t.Errorf("first part: %v, want the email and hasNext", got[0])
	}
	last := got[len(got)-1]
	if last["hasNext"] != false {
		t.Errorf("last part: %v, want hasNext false", last)
	}
	names := map[string][]string{} // by label
	for _, part := range got[1:] {
		incremental, _ := part["incremental"].([]any)
		for _, inc := range incremental {
			label, _ := get(inc, "label").(string)
			key := map[string]string{"cals": "calendars", "again": "again"}[label]
			if key == "" || strings.Join(pathOf(inc), ".") != "viewer" {
				t.Errorf("deferred part %v: want label cals or again at path viewer", inc)
				continue
			}
			for _, edge := range get(inc, "data."+key+".edges").([]any) {
				names[label] = append(names[label], get(edge, "node.calendar.name").(string))
			}
		}
	}
	if fmt.Sprint(names) != "map[again:[Later] cals:[Later]]" {
		t.Errorf("deferred calendars by label: %v, want Later under cals and again", names)
	}

	res = send("application/graphql-response+json")
	raw, _ := io.ReadAll(res.Body)
	if res.StatusCode < 400 || !strings.Contains(string(raw), "multipart/mixed") || !strings.Contains(string(raw), `"code":"BAD_REQUEST"`) {
		t.Errorf("@defer without multipart/mixed: got %d %s, want a refusal saying to accept multipart/mixed", res.StatusCode, raw)
	}
}

func pathOf(v any) []string {
	var out []string
	for _, p := range get(v, "path").([]any) {
		s, _ := p.(string)
		out = append(out, s)
	}
	return out
}

// TestDeferWithMeros reads the same answer with meros, the multipart parser
// Apollo Client and Relay use, in node. .ci/run installs it and names its
// directory in CALGRAPH_AUDIT_DIR; elsewhere the test is skipped.
func TestDeferWithMeros(t *testing.T) {
	dir := os.Getenv("CALGRAPH_AUDIT_DIR")
	if dir == "" {
		t.Skip("set CALGRAPH_AUDIT_DIR to a directory with node_modules/meros (.ci/run does)")
	}
	e := newEnv(t)
	tok := e.token("meros@example.com")
	e.must(tok, `mutation { createCalendar(input: {name: "Later"}) { calendar { id } } }`, nil)
	cmd := exec.Command("node", "../testdata/defer-meros.cjs", e.url+"/query", tok,
		`{ viewer { user { email } ... @defer(label: "cals") { calendars { edges { node { calendar { name } } } } } } }`)
	cmd.Env = append(os.Environ(), "AUDIT_DIR="+dir)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("meros: %v\n%s", err, out)
	}
	var parts []map[string]any
	if err := json.Unmarshal(out, &parts); err != nil || len(parts) < 2 {
		t.Fatalf("meros read %s, want at least two parts", out)
	}
	if get(parts[0], "data.viewer.user.email") != "meros@example.com" || parts[0]["hasNext"] != true {
		t.Errorf("first part: %v", parts[0])
	}
	last := parts[len(parts)-1]
	inc, _ := last["incremental"].([]any)
	if last["hasNext"] != false || len(inc) == 0 || get(inc[0], "data.calendars.edges.0.node.calendar.name") != "Later" {
		t.Errorf("last part: %v, want the deferred calendars and hasNext false", last)
	}
}
