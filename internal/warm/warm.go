// Package warm runs functions on goroutines kept between requests, whose
// stacks have grown already.
//
// The goroutines a view fans out on run deep — gqlgen's execution, a loader,
// the store, ddbread's call and net/http — and a fresh goroutine's 8 KB stack
// grew by copying (runtime.newstack, copystack) two or three times on the
// way: about a twentieth of a cold week view's CPU, its 20 calendars each on
// one. A warm worker keeps its grown stack for the next function. The
// collector still shrinks the stacks of idle workers (by half, at each cycle
// in which one uses less than a quarter of its stack), so idle workers cost
// little memory, and at most MaxIdle wait for work: a worker that finds that
// many waiting ends. Go never waits: with no idle worker, it starts one.
package warm

import "sync/atomic"

// MaxIdle bounds the workers waiting for work.
const MaxIdle = 256

var shared = &workers{work: make(chan func()), maxIdle: MaxIdle}

// Go runs f on a warm worker, or on a new goroutine (which becomes one) if
// none is idle. A panic in f ends the process, as in any goroutine.
func Go(f func()) { shared.run(f) }

// workers is a set of warm workers.
type workers struct {
	work    chan func() // unbuffered: a send succeeds only to an idle worker
	idle    atomic.Int32
	maxIdle int32
}

func (w *workers) run(f func()) {
	select {
	case w.work <- f:
	default:
		go w.loop(f)
	}
}

// loop runs f, then whatever run hands it, until maxIdle workers are idle.
func (w *workers) loop(f func()) {
	for {
		f()
		if w.idle.Add(1) > w.maxIdle {
			w.idle.Add(-1)
			return
		}
		f = <-w.work
		w.idle.Add(-1)
	}
}
