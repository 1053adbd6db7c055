package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"
)

// TestMarkdownLinksResolve: every relative link and every repository path
// named in a code span of the repository's Markdown files exists, and every
// #anchor names a heading of its file. Files get renamed and split; a README
// naming one that is gone (graph/lists.go, once) sends its reader nowhere.
func TestMarkdownLinksResolve(t *testing.T) {
	files := markdownFiles(t, ".")
	if len(files) < 3 {
		t.Fatalf("found %d Markdown files (%v), want README.md, docs/ and more", len(files), files)
	}
	for _, file := range files {
		for _, p := range brokenReferences(t, file) {
			t.Errorf("%s: %s", file, p)
		}
	}
}

// TestBrokenReferencesAreFound keeps the checker honest: a page naming
// files, paths and headings that do not exist gets each of them reported,
// and one naming only real ones gets nothing.
func TestBrokenReferencesAreFound(t *testing.T) {
	dir := t.TempDir()
	page := filepath.Join(dir, "page.md")
	bad := "# Page\n\nSee [gone](docs/gone.md), [this](#no-such-heading), [there](" + mustAbs(t, "README.md") + "#no-such-heading),\n" +
		"`graph/lists.go`, `internal/nowhere/`, `nothing*.go` and `missing.go`.\n"
	if err := os.WriteFile(page, []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := brokenReferences(t, page); len(got) != 7 {
		t.Errorf("got %d problems, want 7:\n%s", len(got), strings.Join(got, "\n"))
	}
	good := "# Page\n\n## A part, with `code`\n\nSee [it](#a-part-with-code), [the API](https://example.com/x.md), [README](" +
		mustAbs(t, "README.md") + "), `page.md`, `go test ./...`, `calgraph.db`, `graph.MaxPendingConnections`.\n\n" +
		"```sh\ncat graph/lists.go\n```\n"
	if err := os.WriteFile(page, []byte(good), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := brokenReferences(t, page); len(got) != 0 {
		t.Errorf("got problems, want none:\n%s", strings.Join(got, "\n"))
	}
}

func mustAbs(t *testing.T, path string) string {
	t.Helper()
	abs, err := filepath.Abs(path)
	if err != nil {
		t.Fatal(err)
	}
	return abs
}

// markdownFiles lists the Markdown files under root, leaving out hidden
// directories and installed node packages.
func markdownFiles(t *testing.T, root string) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(path, ".md") {
			files = append(files, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

var (
	fence    = regexp.MustCompile("(?ms)^```.*?^```")
	link     = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	codeSpan = regexp.MustCompile("`([^`\n]+)`")
	// A code span names a repository path when it is one word that starts
	// with a top-level directory or ends in a source file's extension.
	repoPath = regexp.MustCompile(`^(?:(?:\./)?(?:graph|internal|docs|testdata|\.ci)/[\w./*-]*|[\w./*-]+\.(?:go|md|graphqls|yml|yaml|cjs|mod|sum))$`)
)

// brokenReferences returns a line for each link, path or anchor of the
// Markdown file that leads nowhere. Links resolve from the file's directory;
// a path in a code span resolves from there or from the repository's root
// (where the test runs), since prose names files either way. Fenced blocks
// are commands and examples, not references, and are skipped.
func brokenReferences(t *testing.T, file string) []string {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	text := fence.ReplaceAllString(string(b), "")
	dir := filepath.Dir(file)
	var problems []string
	for _, m := range link.FindAllStringSubmatch(text, -1) {
		target := m[1]
		if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
			continue
		}
		path, anchor, _ := strings.Cut(target, "#")
		doc := file
		if path != "" {
			doc = path
			if !filepath.IsAbs(path) {
				doc = filepath.Join(dir, path)
			}
			if _, err := os.Stat(doc); err != nil {
				problems = append(problems, "link to a missing file: "+target)
				continue
			}
		}
		if anchor != "" && strings.HasSuffix(doc, ".md") && !hasAnchor(t, doc, anchor) {
			problems = append(problems, "link to a missing heading: "+target)
		}
	}
	for _, m := range codeSpan.FindAllStringSubmatch(text, -1) {
		path := m[1]
		if !repoPath.MatchString(path) || !strings.ContainsAny(path, "/.") {
			continue
		}
		if !existsFrom(path, dir, ".") {
			problems = append(problems, "names a missing path: "+path)
		}
	}
	return problems
}

// existsFrom reports whether path (a glob when it holds *) names something
// from one of the directories.
func existsFrom(path string, dirs ...string) bool {
	for _, d := range dirs {
		matches, err := filepath.Glob(filepath.Join(d, path))
		if err == nil && len(matches) > 0 {
			return true
		}
	}
	return false
}

// hasAnchor reports whether the Markdown file has a heading whose GitHub
// anchor is anchor.
func hasAnchor(t *testing.T, file, anchor string) bool {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	text := fence.ReplaceAllString(string(b), "")
	for _, line := range strings.Split(text, "\n") {
		if title, ok := strings.CutPrefix(strings.TrimLeft(line, "#"), " "); ok && strings.HasPrefix(line, "#") && githubAnchor(title) == anchor {
			return true
		}
	}
	return false
}

// githubAnchor is the anchor GitHub gives a heading: lower case, spaces as
// hyphens, punctuation other than hyphens and underscores dropped.
func githubAnchor(title string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(title)) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}
