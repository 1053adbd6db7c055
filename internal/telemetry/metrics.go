// Package telemetry gives operators calgraph's metrics, in Prometheus's
// format on a listener of their own (-metrics-addr): GraphQL requests by
// operation and outcome, their latency, requests in flight, DynamoDB calls
// by operation and result with their latency and retries, and Go's runtime
// and process collectors.
package telemetry

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/smithy-go"
	"github.com/aws/smithy-go/middleware"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/calgraph/calgraph/internal/ddbread"
	"github.com/calgraph/calgraph/internal/reqinfo"
)

// maxOperationNames bounds the operation label: names come from clients, so
// the first maxOperationNames seen get their own series and the rest count
// as "other".
const maxOperationNames = 100

// Metrics holds calgraph's collectors in a registry of its own.
type Metrics struct {
	reg        *prometheus.Registry
	requests   *prometheus.CounterVec
	latency    *prometheus.HistogramVec
	inFlight   prometheus.Gauge
	calls      *prometheus.CounterVec
	retries    *prometheus.CounterVec
	callTime   *prometheus.HistogramVec
	mu         sync.Mutex
	operations map[string]bool
	names      []string // of calgraph's own metrics, as registered
}

// NewMetrics registers calgraph's collectors, Go's runtime collector and
// the process collector in a new registry.
func NewMetrics() *Metrics {
	m := &Metrics{
		reg: prometheus.NewRegistry(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "calgraph_graphql_requests_total",
			Help: "GraphQL operations by operation name and outcome (ok, the first error's extensions.code, or CLIENT_CLOSED when the client hung up first).",
		}, []string{"operation", "outcome"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "calgraph_graphql_request_duration_seconds",
			Help:    "Time to answer a GraphQL operation, by operation name.",
			Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 15},
		}, []string{"operation"}),
		inFlight: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "calgraph_http_requests_in_flight",
			Help: "HTTP requests being served.",
		}),
		calls: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "calgraph_dynamodb_calls_total",
			Help: "DynamoDB calls by operation and result: ok, throttled, timeout or error (after the SDK's retries).",
		}, []string{"operation", "result"}),
		retries: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "calgraph_dynamodb_retries_total",
			Help: "Attempts of DynamoDB calls beyond the first, by operation (calls through the SDK's middleware stack: writes and the reads off a view's path).",
		}, []string{"operation"}),
		callTime: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "calgraph_dynamodb_call_duration_seconds",
			Help:    "Time of a DynamoDB call, retries included, by operation.",
			Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10},
		}, []string{"operation"}),
		operations: map[string]bool{},
	}
	m.reg.MustRegister(m.requests, m.latency, m.inFlight, m.calls, m.retries, m.callTime,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	m.names = []string{"calgraph_graphql_requests_total", "calgraph_graphql_request_duration_seconds",
		"calgraph_http_requests_in_flight", "calgraph_dynamodb_calls_total", "calgraph_dynamodb_retries_total",
		"calgraph_dynamodb_call_duration_seconds"}
	return m
}

// Names returns the names of calgraph's own metrics registered so far (not
// Go's and the process's), in the order they were: the metrics
// table of docs/operations.md lists them, and a test keeps the two equal.
func (m *Metrics) Names() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.names)
}

// named records a metric registered by name.
func (m *Metrics) named(name string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.names = append(m.names, name)
}

// GaugeFunc registers a gauge read from value when scraped.
func (m *Metrics) GaugeFunc(name, help string, value func() float64) {
	m.reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: name, Help: help}, value))
	m.named(name)
}

// CounterFunc registers a counter whose value is read from value at each
// scrape.
func (m *Metrics) CounterFunc(name, help string, value func() float64) {
	m.reg.MustRegister(prometheus.NewCounterFunc(prometheus.CounterOpts{Name: name, Help: help}, value))
	m.named(name)
}

// Handler serves the metrics in Prometheus's exposition format.
func (m *Metrics) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{Registry: m.reg}))
	return mux
}

// InFlight counts the requests next is serving.
func (m *Metrics) InFlight(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		m.inFlight.Inc()
		defer m.inFlight.Dec()
		next.ServeHTTP(w, r)
	})
}

// OutcomeClientClosed is the outcome of a request whose client hung up
// before its answer: what failed then failed because nobody waited for it
// (its context was cancelled), and counting it as the error it produced
// (INTERNAL_SERVER_ERROR, mostly) would page an operator for a closed tab.
const OutcomeClientClosed = "CLIENT_CLOSED"

// GraphQL counts and times the GraphQL requests next serves, by the
// operation name and error codes the GraphQL layer recorded (reqinfo): the
// outcome is "ok" or the first error's code, refusals before the operation
// ran included, or OutcomeClientClosed for an answer with errors to a client
// that had gone (an answer without errors stays "ok", gone or not).
//
// A WebSocket's connection (subscriptions) is not a request to time: it
// passes uncounted (calgraph_live_subscriptions counts what it holds).
func (m *Metrics) GraphQL(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.EqualFold(r.Header.Get("Upgrade"), "websocket") {
			next.ServeHTTP(w, r)
			return
		}
		start := time.Now()
		next.ServeHTTP(w, r)
		info := reqinfo.From(r.Context())
		op := m.operation(info.Operation())
		outcome := "ok"
		if codes := info.Codes(); len(codes) > 0 {
			outcome = codes[0]
			if errors.Is(r.Context().Err(), context.Canceled) {
				outcome = OutcomeClientClosed
			}
		}
		m.latency.WithLabelValues(op).Observe(time.Since(start).Seconds())
		m.requests.WithLabelValues(op, outcome).Inc()
	})
}

func (m *Metrics) operation(name string) string {
	if name == "" {
		return "anonymous"
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.operations[name] {
		if len(m.operations) >= maxOperationNames {
			return "other"
		}
		m.operations[name] = true
	}
	return name
}

// DynamoDB is a client option that counts and times every call, on both
// the SDK's stack and ddbread's.
func (m *Metrics) DynamoDB() func(*dynamodb.Options) {
	return func(o *dynamodb.Options) {
		o.APIOptions = append(o.APIOptions, func(stack *middleware.Stack) error {
			return stack.Initialize.Add(middleware.InitializeMiddlewareFunc("calgraph.metrics",
				func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
					start := time.Now()
					out, md, err := next.HandleInitialize(ctx, in)
					op := middleware.GetOperationName(ctx)
					m.callTime.WithLabelValues(op).Observe(time.Since(start).Seconds())
					m.calls.WithLabelValues(op, callResult(err)).Inc()
					if attempts, ok := retry.GetAttemptResults(md); ok && len(attempts.Results) > 1 {
						m.retries.WithLabelValues(op).Add(float64(len(attempts.Results) - 1))
					}
					return out, md, err
				}), middleware.After)
		})
	}
}

// callResult classifies a call's final error.
func callResult(err error) string {
	var apiErr smithy.APIError
	var timeout *ddbread.AttemptTimeoutError
	switch {
	case err == nil:
		return "ok"
	case errors.As(err, &timeout), errors.Is(err, context.DeadlineExceeded):
		return "timeout"
	case errors.As(err, &apiErr) && throttle[apiErr.ErrorCode()]:
		return "throttled"
	}
	return "error"
}

var throttle = map[string]bool{"ProvisionedThroughputExceededException": true, "ThrottlingException": true, "RequestLimitExceeded": true}

// Serve serves the metrics on addr until ctx ends; it returns the address
// it listens on.
func (m *Metrics) Serve(ctx context.Context, addr string) (string, error) {
	srv := &http.Server{Addr: addr, Handler: m.Handler(), ReadHeaderTimeout: 10 * time.Second}
	ln, err := listen(addr)
	if err != nil {
		return "", err
	}
	go func() { _ = srv.Serve(ln) }()
	go func() {
		<-ctx.Done()
		_ = srv.Close()
	}()
	return ln.Addr().String(), nil
}
