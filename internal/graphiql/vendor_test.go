package graphiql_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestVendoredAssets ties the committed third-party files to
// vendor/manifest.json: each has the SHA-256 recorded there when
// vendor/refresh.cjs took it from its npm package (whose registry integrity
// it checked), and no other file is served. Changing a bundle by hand fails
// here; refresh.cjs re-checks the manifest against the registry.
func TestVendoredAssets(t *testing.T) {
	b, err := os.ReadFile("vendor/manifest.json")
	if err != nil {
		t.Fatal(err)
	}
	var manifest []struct{ File, Package, Version, Path, Integrity, SHA256 string }
	if err := json.Unmarshal(b, &manifest); err != nil {
		t.Fatal(err)
	}
	var listed []string
	for _, m := range manifest {
		listed = append(listed, m.File)
		if m.Package == "" || m.Version == "" || m.Path == "" || !strings.HasPrefix(m.Integrity, "sha512-") {
			t.Errorf("%s: package %q, version %q, path %q, integrity %q: want all four", m.File, m.Package, m.Version, m.Path, m.Integrity)
		}
		body, err := os.ReadFile(filepath.Join("vendor", m.File))
		if err != nil {
			t.Error(err)
			continue
		}
		if sum := sha256.Sum256(body); hex.EncodeToString(sum[:]) != m.SHA256 {
			t.Errorf("vendor/%s hashes to %x, manifest.json says %s (%s@%s/%s): run node vendor/refresh.cjs",
				m.File, sum, m.SHA256, m.Package, m.Version, m.Path)
		}
	}
	served, _ := filepath.Glob("vendor/*.js")
	css, _ := filepath.Glob("vendor/*.css")
	for _, f := range append(served, css...) {
		if !slices.Contains(listed, filepath.Base(f)) {
			t.Errorf("%s is served but not in manifest.json", f)
		}
	}
}
