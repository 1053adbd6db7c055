package embedded_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/calgraph/calgraph/internal/dynamo"
	"github.com/calgraph/calgraph/internal/embedded"
	"github.com/calgraph/calgraph/internal/recurrence"
)

// The crash tests run the engine in a child process (this test binary again,
// running only TestCrashChild), write to it through the real store, kill it
// with SIGKILL and reopen its data directory. They are replayed with
// CALGRAPH_CRASH_SEED (the kill moments) and run longer with
// CALGRAPH_CRASH_ROUNDS.
const (
	envCrashDir    = "CALGRAPH_CRASH_CHILD_DIR" // set only in the child
	envCrashSeed   = "CALGRAPH_CRASH_SEED"
	envCrashRounds = "CALGRAPH_CRASH_ROUNDS"
	crashWriters   = 16
	table          = "cal"
)

// TestCrashChild is the child process of the crash tests, skipped otherwise:
// it serves the engine on the directory named by CALGRAPH_CRASH_CHILD_DIR,
// with fsync on as in production, prints its URL and the credentials it
// answers (one line, for the parent only) and serves until killed
// (or until its parent goes away and closes its stdin).
func TestCrashChild(t *testing.T) {
	dir := os.Getenv(envCrashDir)
	if dir == "" {
		t.Skip("the crash tests' child process")
	}
	unlock, err := embedded.LockDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	e, err := embedded.Open(dir, slog.New(slog.NewTextHandler(os.Stderr, nil)), embedded.Options{})
	if err != nil {
		t.Fatal(err)
	}
	creds, err := e.Credentials().Retrieve(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if err := dynamo.EnsureTable(context.Background(), clientAt(t, e.URL(), creds), table); err != nil {
		t.Fatal(err)
	}
	fmt.Printf("URL %s %s %s\n", e.URL(), creds.AccessKeyID, creds.SecretAccessKey)
	_, _ = io.Copy(io.Discard, os.Stdin)
}

// child is a running TestCrashChild.
type child struct {
	cmd   *exec.Cmd
	url   string
	creds aws.Credentials // the ones the child's engine answers
	once  sync.Once
}

// startChild starts a child on dir and waits until it serves.
func startChild(t *testing.T, dir string) *child {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestCrashChild$")
	cmd.Env = append(os.Environ(), envCrashDir+"="+dir, "AWS_CA_BUNDLE=")
	cmd.Stderr = os.Stderr
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout = w
	if _, err := cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	c := &child{cmd: cmd}
	t.Cleanup(c.kill)
	urls := make(chan []string, 1)
	go func() {
		defer r.Close()
		lines := bufio.NewScanner(r)
		for lines.Scan() {
			if url, ok := strings.CutPrefix(lines.Text(), "URL "); ok {
				urls <- strings.Fields(url)
			}
		}
		close(urls)
	}()
	select {
	case f, ok := <-urls:
		if !ok || len(f) != 3 {
			t.Fatal("the child exited before serving")
		}
		c.url, c.creds = f[0], aws.Credentials{AccessKeyID: f[1], SecretAccessKey: f[2]}
	case <-time.After(30 * time.Second):
		t.Fatal("the child did not serve within 30s")
	}
	return c
}

// kill sends SIGKILL (no chance to close, sync or unlock anything) and waits
// until the child is gone.
func (c *child) kill() {
	c.once.Do(func() {
		_ = c.cmd.Process.Signal(syscall.SIGKILL)
		_ = c.cmd.Wait()
	})
}

// clientAt returns a client of the engine at url, signing with its
// credentials.
func clientAt(t *testing.T, url string, creds aws.Credentials) *dynamodb.Client {
	t.Helper()
	t.Setenv("AWS_CA_BUNDLE", "")
	db, err := dynamo.NewClient(context.Background(), dynamo.ClientConfig{Endpoint: url, Local: true,
		Credentials: credentials.StaticCredentialsProvider{Value: creds}})
	if err != nil {
		t.Fatal(err)
	}
	return db
}

func envInt(t *testing.T, name string, def uint64) uint64 {
	t.Helper()
	s := os.Getenv(name)
	if s == "" {
		return def
	}
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		t.Fatalf("%s=%q: %v", name, s, err)
	}
	return n
}

// TestAcknowledgedWritesSurviveSIGKILL holds the engine's durability
// promise under load: sixteen writers write through the store, the engine's
// process is killed at a random moment, and after a restart every write it
// acknowledged is there and the consistency checker finds nothing torn.
// Rounds share one data directory, so each also checks every earlier round's
// writes after one more crash.
func TestAcknowledgedWritesSurviveSIGKILL(t *testing.T) {
	if testing.Short() {
		t.Skip("kills child processes: seconds")
	}
	seed := envInt(t, envCrashSeed, uint64(time.Now().UnixNano()))
	rounds := int(envInt(t, envCrashRounds, 5))
	t.Logf("seed %d (replay with %s=%d)", seed, envCrashSeed, seed)
	rng := rand.New(rand.NewPCG(seed, 0))
	dir, l := t.TempDir(), newLedger()
	for round := range rounds {
		delay := 50*time.Millisecond + time.Duration(rng.Int64N(int64(750*time.Millisecond)))
		replay := fmt.Sprintf("%s=%d round %d (kill at %v)", envCrashSeed, seed, round, delay)
		began, before := time.Now(), l.count()
		c := startChild(t, dir)
		late, inFlight := writeUntilKilled(t, c, l, round, delay, replay)
		verifyAfterCrash(t, dir, l, replay)
		t.Logf("round %d: killed %v into the load; %d writes acknowledged (%d of them after the kill), %d in flight at the kill; round took %v",
			round, delay, l.count()-before, late, inFlight, time.Since(began).Round(time.Millisecond))
		if t.Failed() {
			t.FailNow()
		}
	}
}

// writeUntilKilled has crashWriters writers write to c, each recording what
// was acknowledged in l, and kills c delay after they start. It returns how
// many writes were acknowledged after the kill was sent (answers already on
// their way) and how many were in flight when it was.
func writeUntilKilled(t *testing.T, c *child, l *ledger, round int, delay time.Duration, replay string) (late, inFlight int64) {
	t.Helper()
	store := dynamo.New(clientAt(t, c.url, c.creds), table, recurrence.Engine{})
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	var writing, acked atomic.Int64
	var killed atomic.Bool
	began := time.Now()
	for i := range crashWriters {
		w := &writer{id: round*crashWriters + i, store: store, log: l}
		wg.Go(func() {
			for ctx.Err() == nil {
				writing.Add(1)
				err := w.step(ctx)
				writing.Add(-1)
				switch {
				case err != nil && killed.Load():
					return
				case err != nil: // reported, and the load goes on for the kill to find
					t.Errorf("%s: writer %d failed before the kill: %v", replay, w.id, err)
					continue
				}
				if killed.Load() {
					acked.Add(1)
				}
			}
		})
	}
	time.Sleep(delay - time.Since(began))
	inFlight = writing.Load()
	killed.Store(true)
	c.kill()
	cancel()
	wg.Wait()
	return acked.Load(), inFlight
}

// TestAcknowledgedWriteSurvivesImmediateKill holds the promise with no
// concurrency at all: one writer, the engine killed the moment each write is
// acknowledged, for every shape of write the writer makes.
func TestAcknowledgedWriteSurvivesImmediateKill(t *testing.T) {
	if testing.Short() {
		t.Skip("kills child processes: seconds")
	}
	dir, l := t.TempDir(), newLedger()
	w := &writer{id: 0, log: l}
	for step := range 9 {
		c := startChild(t, dir)
		w.store = dynamo.New(clientAt(t, c.url, c.creds), table, recurrence.Engine{})
		err := w.step(context.Background())
		c.kill()
		if err != nil {
			t.Fatalf("write %d: %v", step, err)
		}
		verifyAfterCrash(t, dir, l, fmt.Sprintf("write %d", step))
	}
}
