package main

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

const (
	// readyWait bounds the server's start: it waits up to a minute for
	// DynamoDB itself, then creates its table.
	readyWait = 2 * time.Minute
	// stopWait is how long a server may drain after SIGTERM before it is
	// killed; its own shutdown timeout is 20s.
	stopWait = 30 * time.Second
)

// server is one calgraph server running as a child process, so that its CPU
// time is its own.
type server struct {
	cmd      *exec.Cmd
	url      string // the API's base URL
	debugURL string // the debug listener's base URL; "" when the binary has none
	logPath  string // where its stdout and stderr go
	exited   chan struct{}
	err      error // how it ended, once exited is closed
}

// startServer starts bin's serve command with the store's flags and
// environment (storeArgs, env), and waits until it answers /readyz. Tokens
// signed with secret are valid on it. The caller must stop it, also when
// startServer fails.
func startServer(ctx context.Context, bin *binary, secret, logPath string, storeArgs, env []string) (*server, error) {
	addr, err := freeAddr()
	if err != nil {
		return nil, err
	}
	args := []string{"serve", "-addr", addr, "-create-table", "true",
		"-jwt-secret", secret, "-dev-tokens", "false", "-log-level", "warn"}
	args = append(args, storeArgs...)
	if bin.cold != "" {
		args = append(args, bin.cold, "0")
	}
	if bin.answers {
		args = append(args, "-answer-cache-bytes", "0")
	}
	if bin.cacheBytes != "" {
		args = append(args, "-cache-bytes", bin.cacheBytes)
	}
	args = append(args, bin.quiet...)
	s := &server{url: "http://" + addr, logPath: logPath, exited: make(chan struct{})}
	if bin.debug {
		debugAddr, err := freeAddr()
		if err != nil {
			return nil, err
		}
		args = append(args, "-debug-addr", debugAddr)
		s.debugURL = "http://" + debugAddr
	}
	log, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	s.cmd = exec.Command(bin.path, args...)
	s.cmd.Env = childEnv(env...)
	s.cmd.Stdout, s.cmd.Stderr = log, log
	// Should the benchmark itself be killed, the kernel ends the server too.
	s.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := s.cmd.Start(); err != nil {
		log.Close()
		return nil, fmt.Errorf("start %s: %w", bin.label, err)
	}
	go func() {
		s.err = s.cmd.Wait()
		log.Close()
		close(s.exited)
	}()
	return s, s.waitReady(ctx)
}

// waitReady polls /readyz until the server answers 200, exits, or readyWait
// passes.
func (s *server) waitReady(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, readyWait)
	defer cancel()
	for {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, s.url+"/readyz", nil)
		if res, err := http.DefaultClient.Do(req); err == nil {
			res.Body.Close()
			if res.StatusCode == http.StatusOK {
				return nil
			}
		}
		select {
		case <-s.exited:
			return fmt.Errorf("the server exited before it was ready (%v):\n%s", s.err, s.logTail())
		case <-ctx.Done():
			return fmt.Errorf("the server was not ready after %s: %w\n%s", readyWait, ctx.Err(), s.logTail())
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// stop ends the server with SIGTERM, killing it if it has not drained
// after stopWait, and reports how it ended.
func (s *server) stop() error {
	if s.cmd == nil || s.cmd.Process == nil {
		return nil
	}
	_ = s.cmd.Process.Signal(syscall.SIGTERM) // it may have ended already
	select {
	case <-s.exited:
	case <-time.After(stopWait):
		_ = s.cmd.Process.Kill()
		<-s.exited
		return fmt.Errorf("the server (pid %d) ignored SIGTERM for %s and was killed", s.cmd.Process.Pid, stopWait)
	}
	if s.err != nil {
		return fmt.Errorf("the server (pid %d) ended with %v:\n%s", s.cmd.Process.Pid, s.err, s.logTail())
	}
	return nil
}

// logTail is the end of the server's log, to explain a failure.
func (s *server) logTail() string {
	b, _ := os.ReadFile(s.logPath)
	const keep = 2000
	return string(b[max(0, len(b)-keep):])
}

// mintToken has bin sign a token for email with secret. calgraph's token
// command signs only with the dev key of a data directory (hex, one line),
// and the server verifies with the bytes of its -jwt-secret string: a
// directory whose dev key encodes that string makes both agree.
func mintToken(ctx context.Context, bin *binary, secret, email, dir string) (string, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	key := hex.EncodeToString([]byte(secret)) + "\n"
	if err := os.WriteFile(filepath.Join(dir, "dev-signing-key"), []byte(key), 0o600); err != nil {
		return "", err
	}
	cmd := exec.CommandContext(ctx, bin.path, "token", "-dev-tokens", "true", "-data-dir", dir, "-email", email)
	cmd.Env = childEnv()
	out, err := cmd.Output()
	if err != nil {
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			err = fmt.Errorf("%w: %s", err, exit.Stderr)
		}
		return "", fmt.Errorf("%s token -email %s: %w", bin.label, email, err)
	}
	return strings.TrimSpace(string(out)), nil
}

// serveFlags returns whether the binary at path's serve command takes a flag
// (older commits lack -debug-addr, the view cache's flag, the polls'...),
// from its usage, read once.
func serveFlags(ctx context.Context, path string) (takes func(flag string) bool) {
	cmd := exec.CommandContext(ctx, path, "serve", "-h")
	cmd.Env = childEnv()
	out, _ := cmd.CombinedOutput() // -h exits non-zero
	usage := string(out)
	return func(flag string) bool {
		return strings.Contains(usage, flag+" ") || strings.Contains(usage, flag+"\n")
	}
}

// childEnv is this process's environment for a calgraph child without any
// AWS_ or CALGRAPH_ variable, plus extra: the servers under test take their
// settings from this benchmark alone, never from the caller's shell (its
// AWS_CA_BUNDLE, for one, has no business with DynamoDB Local).
func childEnv(extra ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "AWS_") && !strings.HasPrefix(kv, "CALGRAPH_") {
			env = append(env, kv)
		}
	}
	return append(env, extra...)
}

// freeAddr returns a loopback address with a port free right now.
func freeAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", fmt.Errorf("find a free port: %w", err)
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}
