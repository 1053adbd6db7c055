package embedded_test

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/calgraph/calgraph/internal/calendar"
	"github.com/calgraph/calgraph/internal/dynamo"
	"github.com/calgraph/calgraph/internal/embedded"
	"github.com/calgraph/calgraph/internal/recurrence"
)

// storeWithUsers returns a store on a fresh engine holding n users (3 items each).
func storeWithUsers(t *testing.T, n int) *dynamo.Store {
	t.Helper()
	_, db := startEngine(t)
	store := dynamo.New(db, "t", recurrence.Engine{})
	for i := range n {
		addUser(t, store, i)
	}
	return store
}

func addUser(t *testing.T, store *dynamo.Store, i int) {
	t.Helper()
	if _, _, err := store.ResolveIdentity(context.Background(), calendar.SignUp{
		Identity: calendar.Identity{Provider: "p", Subject: fmt.Sprint(i)}, Email: fmt.Sprintf("u%d@example.com", i),
	}); err != nil {
		t.Fatal(err)
	}
}

func newSnapshotter(path string, store *dynamo.Store) *embedded.Snapshotter {
	return embedded.NewSnapshotter(path, store, slog.New(slog.DiscardHandler))
}

// loaded returns a snapshotter that has loaded path (missing: a fresh start).
func loaded(t *testing.T, path string, store *dynamo.Store) *embedded.Snapshotter {
	t.Helper()
	s := newSnapshotter(path, store)
	if _, err := s.Load(context.Background()); err != nil {
		t.Fatal(err)
	}
	return s
}

func export(t *testing.T, store *dynamo.Store) string {
	t.Helper()
	var buf bytes.Buffer
	if _, err := store.Export(context.Background(), &buf); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

func TestSnapshotSaveAndLoad(t *testing.T) {
	ctx := context.Background()
	store := storeWithUsers(t, 3)
	path := filepath.Join(t.TempDir(), "data", "snapshot.jsonl")
	snaps := newSnapshotter(path, store)
	if n, err := snaps.Load(ctx); err != nil || n != 0 {
		t.Fatalf("load of a missing snapshot: got %d, %v; want a fresh start", n, err)
	}
	saved, n, err := snaps.Save(ctx)
	if err != nil || !saved || n != 9 {
		t.Fatalf("got saved %v, %d items, %v; want 9 items saved", saved, n, err)
	}
	if saved, _, err := snaps.Save(ctx); err != nil || saved {
		t.Fatalf("got saved %v, %v for unchanged data, want nothing written", saved, err)
	}
	for _, f := range []string{path, path + ".manifest.json"} {
		if info, err := os.Stat(f); err != nil || info.Mode().Perm() != 0o600 {
			t.Fatalf("%s: got %v, %v; want a 0600 file", f, info, err)
		}
	}
	if entries, _ := os.ReadDir(filepath.Dir(path)); len(entries) != 2 {
		t.Fatalf("got %d files, want the snapshot and its manifest only", len(entries))
	}
	restored := storeWithUsers(t, 0)
	if n, err := newSnapshotter(path, restored).Load(ctx); err != nil || n != 9 {
		t.Fatalf("load: got %d items, %v; want 9", n, err)
	}
	if before, after := export(t, store), export(t, restored); before != after {
		t.Fatalf("restored table differs:\nsaved:    %s\nrestored: %s", before, after)
	}
}

func TestSnapshotDamageIsRefused(t *testing.T) {
	ctx := context.Background()
	store := storeWithUsers(t, 3)
	path := filepath.Join(t.TempDir(), "snapshot.jsonl")
	if _, _, err := loaded(t, path, store).Save(ctx); err != nil {
		t.Fatal(err)
	}
	full, _ := os.ReadFile(path)
	lines := strings.SplitAfter(string(full), "\n")
	// Cut at a line boundary: every remaining line is valid, only the manifest can tell.
	cut := strings.Join(lines[:len(lines)-2], "")
	if err := os.WriteFile(path, []byte(cut), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := newSnapshotter(path, storeWithUsers(t, 0)).Load(ctx)
	if err == nil || !strings.Contains(err.Error(), "truncated or damaged") {
		t.Fatalf("got %v, want the cut snapshot refused", err)
	}
	if got, _ := os.ReadFile(path); string(got) != cut {
		t.Fatalf("the refused snapshot was changed")
	}
}

func TestSnapshotSurvivesACrashBetweenItsTwoFiles(t *testing.T) {
	ctx := context.Background()
	store := storeWithUsers(t, 2)
	dir := t.TempDir()
	path := filepath.Join(dir, "snapshot.jsonl")
	snaps := loaded(t, path, store)
	if _, _, err := snaps.Save(ctx); err != nil {
		t.Fatal(err)
	}
	old, _ := os.ReadFile(path)
	addUser(t, store, 7)
	if _, _, err := snaps.Save(ctx); err != nil {
		t.Fatal(err)
	}
	// As if the process died after writing the new manifest but before the new snapshot.
	if err := os.WriteFile(path, old, 0o600); err != nil {
		t.Fatal(err)
	}
	if n, err := newSnapshotter(path, storeWithUsers(t, 0)).Load(ctx); err != nil || n != 6 {
		t.Fatalf("got %d, %v; want the previous snapshot (6 items) accepted", n, err)
	}
}

func TestSnapshotterRunSavesPeriodically(t *testing.T) {
	store := storeWithUsers(t, 1)
	path := filepath.Join(t.TempDir(), "snapshot.jsonl")
	snaps := newSnapshotter(path, store)
	if _, err := snaps.Load(context.Background()); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { snaps.Run(ctx, 20*time.Millisecond); close(done) }()
	defer func() { cancel(); <-done }()
	addUser(t, store, 5)
	deadline := time.Now().Add(10 * time.Second)
	for {
		if b, err := os.ReadFile(path); err == nil && strings.Count(string(b), "\n") == 6 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("no periodic snapshot with both users after 10s")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestSnapshotterRefusesToSaveWithoutALoad(t *testing.T) {
	path := filepath.Join(t.TempDir(), "snapshot.jsonl")
	if err := os.WriteFile(path, []byte("damaged\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	snaps := newSnapshotter(path, storeWithUsers(t, 1))
	if _, err := snaps.Load(context.Background()); err == nil {
		t.Fatal("got no error loading a damaged snapshot")
	}
	if saved, _, err := snaps.Save(context.Background()); err == nil || saved {
		t.Fatalf("got saved %v, %v; want saving refused after a failed load", saved, err)
	}
	if got, _ := os.ReadFile(path); string(got) != "damaged\n" {
		t.Fatalf("the damaged snapshot was replaced with %q", got)
	}
}
