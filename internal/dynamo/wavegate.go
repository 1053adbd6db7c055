package dynamo

import (
	"bytes"
	"context"
	"runtime"
	"runtime/metrics"
	"slices"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/smithy-go/middleware"
)

// WithWaveGate returns a client option that holds each call until the process
// is quiescent, then sends every call held at once: calls a request makes
// together so form one wave (Waves) however a loaded machine schedules the
// goroutines that make them, and a call that waits for another's answer
// falls in the next, so that tests count round trips by causality, not by
// timing. For tests and benchmarks only.
//
// Quiescent means that no goroutine but the gate's own is running, runnable
// or in a system call, and that none is in a function named (as in a stack
// trace) by one of pending: work that a timer will start without any call
// being answered, such as a dataloader's batch window. A goroutine that would
// make a call of this wave is one of those until it has made it; once none
// is left, nothing can happen until an answer arrives. The condition must
// hold in settleChecks checks in a row, settle apart, so that timers due and
// network events already delivered have been turned into runnable goroutines.
//
// An earlier gate released the calls after a quiet time without new calls
// (50 ms); on a starved CPU a goroutine could wait longer than that to run,
// and a wave was counted as two.
func WithWaveGate(pending ...string) func(*dynamodb.Options) {
	g := &waveGate{pending: pending}
	return addInitialize("calgraph.wavegate", func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
		if err := g.wait(ctx); err != nil {
			return middleware.InitializeOutput{}, middleware.Metadata{}, err
		}
		return next.HandleInitialize(ctx, in)
	})
}

const (
	settle       = 2 * time.Millisecond
	settleChecks = 3
)

// waveGate holds calls until the process is quiescent.
type waveGate struct {
	pending  []string
	mu       sync.Mutex
	held     []chan struct{}
	watching bool // a goroutine is watching for quiescence
}

func (g *waveGate) wait(ctx context.Context) error {
	sent := make(chan struct{})
	g.mu.Lock()
	g.held = append(g.held, sent)
	if !g.watching {
		g.watching = true
		go g.watch()
	}
	g.mu.Unlock()
	select {
	case <-sent:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// watch releases the held calls once the process is quiescent: the
// scheduler's counts say so settleChecks times in a row, settle apart, and
// then a dump of every goroutine agrees.
func (g *waveGate) watch() {
	var buf []byte
	for calm := 0; calm < settleChecks; {
		time.Sleep(settle)
		switch {
		case !idle():
			calm = 0
		case calm < settleChecks-1:
			calm++
		default:
			var quiet bool
			if buf, quiet = g.quiescent(buf); quiet {
				calm++
			} else {
				calm = 0
			}
		}
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, sent := range g.held {
		close(sent)
	}
	g.held, g.watching = nil, false
}

// schedulerStates are the runtime's counts of goroutines that are not blocked.
var schedulerStates = []metrics.Sample{
	{Name: "/sched/goroutines/running:goroutines"},
	{Name: "/sched/goroutines/runnable:goroutines"},
	{Name: "/sched/goroutines/not-in-go:goroutines"},
}

// idle reports whether the scheduler counts no goroutine at work but the
// caller: an approximate answer, but cheap, unlike the dump quiescent takes,
// which stops the world for a time that grows with the goroutines (thousands,
// with the idle connections of a test binary's clients).
func idle() bool {
	s := slices.Clone(schedulerStates)
	metrics.Read(s)
	for i, want := range []uint64{1, 0, 0} {
		if s[i].Value.Kind() == metrics.KindUint64 && s[i].Value.Uint64() > want {
			return false
		}
	}
	return true
}

// quiescent reports whether every other goroutine is blocked outside the
// pending functions, from a dump of all goroutines (which stops the world,
// so that the states are one moment's, for a time that grows with their
// number). It returns the buffer for the next dump.
func (g *waveGate) quiescent(buf []byte) ([]byte, bool) {
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf)+64<<10)
	}
	// The dump starts with the calling goroutine (this one), then one
	// paragraph per goroutine: "goroutine 7 [chan receive, 2 minutes]:".
	traces := bytes.Split(buf, []byte("\n\n"))
	for _, tr := range traces[1:] {
		state, _, _ := bytes.Cut(tr[bytes.IndexByte(tr, '[')+1:], []byte("]"))
		state, _, _ = bytes.Cut(state, []byte(","))
		switch string(state) {
		case "running", "runnable", "syscall", "preempted", "GC assist wait", "GC assist marking", "copystack":
			return buf[:cap(buf)], false
		}
		for _, fn := range g.pending {
			if bytes.Contains(tr, []byte(fn)) {
				return buf[:cap(buf)], false
			}
		}
	}
	return buf[:cap(buf)], true
}
