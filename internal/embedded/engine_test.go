package embedded_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/calgraph/calgraph/internal/calendar"
	"github.com/calgraph/calgraph/internal/dynamo"
	"github.com/calgraph/calgraph/internal/embedded"
	"github.com/calgraph/calgraph/internal/engine"
	"github.com/calgraph/calgraph/internal/recurrence"
)

// startEngine opens an engine on dir with calgraph's table "cal".
func startEngine(t *testing.T, dir string) (*embedded.Engine, *dynamodb.Client) {
	t.Helper()
	e, err := embedded.Open(dir, slog.New(slog.DiscardHandler), embedded.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := e.Close(context.Background()); err != nil {
			t.Errorf("close: %v", err)
		}
	})
	t.Setenv("AWS_CA_BUNDLE", "")
	db, err := dynamo.NewClient(context.Background(), dynamo.ClientConfig{Endpoint: e.URL(), Local: true, Credentials: e.Credentials()})
	if err != nil {
		t.Fatal(err)
	}
	if err := dynamo.EnsureTable(context.Background(), db, "cal"); err != nil {
		t.Fatal(err)
	}
	return e, db
}

func addUsers(t *testing.T, store *dynamo.Store, n int) {
	t.Helper()
	for i := range n {
		if _, _, err := store.ResolveIdentity(context.Background(), calendar.SignUp{
			Identity: calendar.Identity{Provider: "p", Subject: fmt.Sprint(i)}, Email: fmt.Sprintf("u%d@example.com", i),
		}); err != nil {
			t.Fatal(err)
		}
	}
}

func export(t *testing.T, store *dynamo.Store) string {
	t.Helper()
	var buf bytes.Buffer
	if _, err := store.Export(context.Background(), &buf); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

func TestEngineSendsChecksums(t *testing.T) {
	e, _ := startEngine(t, t.TempDir())
	body := `{"TableName":"cal"}`
	req, _ := http.NewRequest(http.MethodPost, e.URL(), strings.NewReader(body))
	req.Header.Set("X-Amz-Target", "DynamoDB_20120810.DescribeTable")
	req.Header.Set("Content-Type", "application/x-amz-json-1.0")
	creds, _ := e.Credentials().Retrieve(context.Background())
	sum := sha256.Sum256([]byte(body))
	if err := v4.NewSigner().SignHTTP(context.Background(), creds, req, hex.EncodeToString(sum[:]), "dynamodb", "us-east-1", time.Now()); err != nil {
		t.Fatal(err)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 200 || res.Header.Get("X-Amz-Crc32") == "" {
		t.Fatalf("got status %d, X-Amz-Crc32 %q; want 200 with a checksum", res.StatusCode, res.Header.Get("X-Amz-Crc32"))
	}
}

func TestDataOutlivesTheEngine(t *testing.T) {
	dir := t.TempDir()
	e, db := startEngine(t, dir)
	store := dynamo.New(db, "cal", recurrence.Engine{})
	addUsers(t, store, 5)
	before := export(t, store)
	if err := e.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	_, db = startEngine(t, dir)
	if after := export(t, dynamo.New(db, "cal", recurrence.Engine{})); after != before {
		t.Fatalf("after reopening:\n%s\nwant:\n%s", after, before)
	}
}

// writeOldSnapshot writes a data directory as the snapshot-based versions
// left it: snapshot.jsonl and its manifest.
func writeOldSnapshot(t *testing.T, dir, data string, withManifest bool) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, embedded.SnapshotName), []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	if !withManifest {
		return
	}
	sum := sha256.Sum256([]byte(data))
	m := fmt.Sprintf(`{"format":"calgraph-snapshot/1","items":%d,"sha256":"%s"}`, strings.Count(data, "\n"), hex.EncodeToString(sum[:]))
	if err := os.WriteFile(filepath.Join(dir, embedded.SnapshotName+".manifest.json"), []byte(m), 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestUpgradeImportsTheOldSnapshotOnce(t *testing.T) {
	for _, withManifest := range []bool{true, false} {
		t.Run(fmt.Sprint("manifest=", withManifest), func(t *testing.T) {
			_, src := startEngine(t, t.TempDir())
			old := dynamo.New(src, "cal", recurrence.Engine{})
			addUsers(t, old, 7)
			data := export(t, old)

			dir := t.TempDir()
			writeOldSnapshot(t, dir, data, withManifest)
			_, db := startEngine(t, dir)
			store := dynamo.New(db, "cal", recurrence.Engine{})
			n, err := embedded.Upgrade(context.Background(), dir, store, slog.New(slog.DiscardHandler))
			if err != nil || n != 21 {
				t.Fatalf("upgrade: %d items, %v; want 21", n, err)
			}
			if got := export(t, store); got != data {
				t.Fatalf("after the upgrade:\n%s\nwant:\n%s", got, data)
			}
			if _, err := os.Stat(filepath.Join(dir, embedded.SnapshotName)); !os.IsNotExist(err) {
				t.Fatalf("the snapshot is still in place (%v): the next start would import it again", err)
			}
			moved, _ := filepath.Glob(filepath.Join(dir, embedded.SnapshotName+".imported-*"))
			if len(moved) != 1 {
				t.Fatalf("moved aside: %v, want the snapshot kept under a new name", moved)
			}
			if kept, _ := os.ReadFile(moved[0]); string(kept) != data {
				t.Fatal("the snapshot moved aside differs from the original")
			}
			if n, err := embedded.Upgrade(context.Background(), dir, store, slog.New(slog.DiscardHandler)); n != 0 || err != nil {
				t.Fatalf("second upgrade: %d items, %v; want nothing to do", n, err)
			}
		})
	}
}

func TestUpgradeRefusesADamagedSnapshot(t *testing.T) {
	_, src := startEngine(t, t.TempDir())
	old := dynamo.New(src, "cal", recurrence.Engine{})
	addUsers(t, old, 3)
	data := export(t, old)
	for name, write := range map[string]func(dir string){
		"cut at a line": func(dir string) {
			writeOldSnapshot(t, dir, data, true)
			cut := data[:strings.LastIndex(strings.TrimSuffix(data, "\n"), "\n")+1]
			os.WriteFile(filepath.Join(dir, embedded.SnapshotName), []byte(cut), 0o600)
		},
		"corrupt line": func(dir string) { writeOldSnapshot(t, dir, data[:len(data)/2], false) },
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			write(dir)
			before, _ := os.ReadFile(filepath.Join(dir, embedded.SnapshotName))
			_, db := startEngine(t, dir)
			_, err := embedded.Upgrade(context.Background(), dir, dynamo.New(db, "cal", recurrence.Engine{}), slog.New(slog.DiscardHandler))
			if err == nil || !strings.Contains(err.Error(), "left untouched") {
				t.Fatalf("got %v, want the damaged snapshot refused", err)
			}
			if after, _ := os.ReadFile(filepath.Join(dir, embedded.SnapshotName)); !bytes.Equal(after, before) {
				t.Fatal("the damaged snapshot was changed or moved")
			}
		})
	}
}

func TestLockDir(t *testing.T) {
	dir := t.TempDir()
	unlock, err := embedded.LockDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := embedded.LockDir(dir); err == nil || !strings.Contains(err.Error(), "in use") {
		t.Fatalf("got %v, want the directory reported in use", err)
	}
	unlock()
	again, err := embedded.LockDir(dir)
	if err != nil {
		t.Fatalf("lock after unlock: %v", err)
	}
	again()
}

// TestStartingAfresh: a first start creates the engine file and marks the
// directory; from then on a missing file is refused, not replaced by an
// empty one, until the operator removes the marker too.
func TestStartingAfresh(t *testing.T) {
	dir := t.TempDir()
	e, _ := startEngine(t, dir)
	if err := e.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, embedded.MarkerName)); err != nil {
		t.Fatalf("after a first start: %v", err)
	}
	if err := os.Remove(filepath.Join(dir, embedded.FileName)); err != nil {
		t.Fatal(err)
	}
	_, err := embedded.Open(dir, slog.New(slog.DiscardHandler), embedded.Options{})
	if d, ok := errors.AsType[*engine.DamageError](err); !ok || d.State != "missing" {
		t.Fatalf("open without the file in a used directory: got %v, want it refused as missing", err)
	}
	if err := os.Remove(filepath.Join(dir, embedded.MarkerName)); err != nil {
		t.Fatal(err)
	}
	startEngine(t, dir) // afresh, on purpose
}
