package httpapi

import (
	"expvar"
	"net/http"
	"net/http/pprof"
	"runtime/metrics"
	"sync"
)

// DebugHandler serves Go's profiler under /debug/pprof/ and the runtime's
// counters as JSON under /debug/vars: expvar's memstats (Mallocs, TotalAlloc,
// NumGC) plus goroutines_created, so that a benchmark can charge allocations
// and goroutines to the requests it sent. It is meant for a private listener
// (the debug-addr setting), never the API's: profiles reveal the code's
// internals and cost CPU while they run.
func DebugHandler() http.Handler {
	publishOnce.Do(func() { expvar.Publish("goroutines_created", expvar.Func(goroutinesCreated)) })
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	mux.Handle("/debug/vars", expvar.Handler())
	return mux
}

var publishOnce sync.Once

// goroutinesCreated is how many goroutines the process has started.
func goroutinesCreated() any {
	s := []metrics.Sample{{Name: "/sched/goroutines-created:goroutines"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return nil
	}
	return s[0].Value.Uint64()
}
