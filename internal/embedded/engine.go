// Package embedded runs calgraph's default DynamoDB engine in-process: minidyn's
// DynamoDB-compatible HTTP handler on a loopback port, behind a guard, plus the
// snapshot file that makes its in-memory data survive restarts.
//
// The server talks to it through the same aws-sdk-go-v2 client and store code as
// to DynamoDB Local or AWS; only the endpoint differs.
package embedded

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"log/slog"
	"net"
	"net/http"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"time"

	miniserver "github.com/truora/minidyn/server"
)

// Engine is a running embedded DynamoDB engine.
type Engine struct {
	mini *miniserver.Server
	srv  *http.Server
	url  string
	log  *slog.Logger
	done chan error

	// admin serialises table administration against item operations: minidyn
	// races when a table is created or deleted while items are being read or
	// written.
	admin sync.RWMutex
}

// tableOps are the operations that change or describe tables.
var tableOps = map[string]bool{
	"CreateTable": true, "DeleteTable": true, "UpdateTable": true, "DescribeTable": true,
}

// Start serves a fresh, empty engine on 127.0.0.1 at a free port.
func Start(logger *slog.Logger) (*Engine, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("listen for the embedded engine: %w", err)
	}
	e := &Engine{
		mini: miniserver.NewServer(),
		url:  "http://" + ln.Addr().String(),
		log:  logger,
		done: make(chan error, 1),
	}
	e.srv = &http.Server{Handler: e, ReadHeaderTimeout: 10 * time.Second}
	go func() { e.done <- e.srv.Serve(ln) }()
	return e, nil
}

// URL is the endpoint to give the SDK.
func (e *Engine) URL() string { return e.url }

// Faults exposes minidyn's failure knobs (failed tables or indexes, unprocessed
// batch items) to fault-injection tests.
func (e *Engine) Faults() *miniserver.Server { return e.mini }

// Close stops serving, waiting for in-flight calls until ctx ends.
func (e *Engine) Close(ctx context.Context) error {
	err := e.srv.Shutdown(ctx)
	if serveErr := <-e.done; !errors.Is(serveErr, http.ErrServerClosed) && err == nil {
		err = serveErr
	}
	if err != nil {
		return fmt.Errorf("stop the embedded engine: %w", err)
	}
	return nil
}

// ServeHTTP is the guard: it takes the admin lock exclusively for table operations
// and shared for item operations, and turns an engine panic into a DynamoDB
// InternalServerError response instead of a dropped connection.
func (e *Engine) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	target := r.Header.Get("X-Amz-Target")
	op := target[strings.LastIndex(target, ".")+1:]
	if tableOps[op] {
		e.admin.Lock()
		defer e.admin.Unlock()
	} else {
		e.admin.RLock()
		defer e.admin.RUnlock()
	}
	rw := &bufferedWriter{header: http.Header{}, status: http.StatusOK}
	func() {
		defer func() {
			if p := recover(); p != nil {
				e.log.Error("embedded engine panicked", "operation", op, "panic", p, "stack", string(debug.Stack()))
				rw = &bufferedWriter{header: http.Header{}}
				writeEngineError(rw, op)
			}
		}()
		e.mini.ServeHTTP(rw, r)
	}()
	if rw.status >= 400 && !bytes.HasPrefix(bytes.TrimSpace(rw.body.Bytes()), []byte("{")) {
		// minidyn answers operations it lacks (TTL, say) in plain text; the
		// SDK understands DynamoDB's JSON error.
		msg := strings.TrimSpace(rw.body.String())
		rw = &bufferedWriter{header: http.Header{}}
		writeError(rw, http.StatusBadRequest, "UnknownOperationException", msg)
	}
	rw.flush(w)
}

func writeEngineError(w http.ResponseWriter, op string) {
	writeError(w, http.StatusInternalServerError, "InternalServerError", "the embedded engine failed on "+op)
}

func writeError(w http.ResponseWriter, status int, code, msg string) {
	w.Header().Set("Content-Type", "application/x-amz-json-1.0")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]string{"__type": "com.amazonaws.dynamodb.v20120810#" + code, "message": msg})
}

// bufferedWriter holds the engine's response so that the guard can answer a
// panic cleanly and add the CRC32 checksum header DynamoDB sends, which the SDK
// verifies.
type bufferedWriter struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (b *bufferedWriter) Header() http.Header         { return b.header }
func (b *bufferedWriter) WriteHeader(code int)        { b.status = code }
func (b *bufferedWriter) Write(p []byte) (int, error) { return b.body.Write(p) }

func (b *bufferedWriter) flush(w http.ResponseWriter) {
	for k, v := range b.header {
		w.Header()[k] = v
	}
	w.Header().Set("X-Amz-Crc32", strconv.FormatUint(uint64(crc32.ChecksumIEEE(b.body.Bytes())), 10))
	w.Header().Set("Content-Length", strconv.Itoa(b.body.Len()))
	w.WriteHeader(b.status)
	_, _ = w.Write(b.body.Bytes())
}
