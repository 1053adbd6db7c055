package atomicfile_test

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/calgraph/calgraph/internal/atomicfile"
)

func TestWrite(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "file")
	write := func(content string, fail error) error {
		return atomicfile.Write(path, func(w io.Writer) error {
			if _, err := io.WriteString(w, content); err != nil {
				return err
			}
			return fail
		})
	}
	if err := write("first", nil); err != nil {
		t.Fatal(err)
	}
	if err := write("second, half done", errors.New("export failed")); err == nil {
		t.Fatal("got no error from a failing writer")
	}
	got, err := os.ReadFile(path)
	if err != nil || string(got) != "first" {
		t.Fatalf("got %q, %v; want the first content kept after a failed write", got, err)
	}
	info, _ := os.Stat(path)
	if info.Mode().Perm() != 0o600 {
		t.Errorf("got mode %v, want 0600", info.Mode().Perm())
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Errorf("got %d files, want no temporary file left behind", len(entries))
	}
}
