package telemetry

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/99designs/gqlgen/graphql"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/smithy-go/middleware"
	"go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.37.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/calgraph/calgraph/internal/reqinfo"
)

// Tracing: OpenTelemetry spans for each HTTP request (otelhttp, continuing
// the caller's W3C traceparent), each GraphQL operation, each loader batch
// (package loader) and each DynamoDB call, exported over OTLP/HTTP when an
// endpoint is configured. Without one the global tracer provider stays
// OpenTelemetry's no-op, and spans cost next to nothing.

const tracerName = "github.com/calgraph/calgraph"

// StartTracing exports spans to the OTLP/HTTP endpoint (a base URL like
// http://collector:4318, or a full URL ending in /v1/traces) as service
// name, and makes W3C trace context and baggage the propagators. The
// returned function flushes and stops the exporter.
func StartTracing(ctx context.Context, endpoint, name string) (shutdown func(context.Context) error, err error) {
	otel.SetTextMapPropagator(propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{}))
	if endpoint == "" {
		return func(context.Context) error { return nil }, nil
	}
	url := endpoint
	if !strings.HasSuffix(url, "/v1/traces") {
		url = strings.TrimSuffix(url, "/") + "/v1/traces"
	}
	exp, err := otlptracehttp.New(ctx, otlptracehttp.WithEndpointURL(url))
	if err != nil {
		return nil, fmt.Errorf("OTLP exporter for %s: %w", url, err)
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp),
		sdktrace.WithResource(resource.NewSchemaless(semconv.ServiceName(name))))
	otel.SetTracerProvider(tp)
	return tp.Shutdown, nil
}

// TraceHTTP gives each request a span, a child of the caller's when it sent
// a traceparent. The span sees the request's public path
// (reqinfo.PublicPath): otelhttp records the path in the span's name and in
// url.path, and a feed's path is its secret; the query string is dropped
// from what it sees for the same reason. The handler gets the request as
// sent.
func TraceHTTP(next http.Handler) http.Handler {
	restore := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if u, ok := r.Context().Value(sentURL{}).(*url.URL); ok {
			r.URL = u
		}
		next.ServeHTTP(w, r)
	})
	traced := otelhttp.NewHandler(restore, "http", otelhttp.WithSpanNameFormatter(func(_ string, r *http.Request) string {
		return r.Method + " " + r.URL.Path
	}))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		public := reqinfo.PublicPath(r.URL.Path)
		if public == r.URL.Path {
			traced.ServeHTTP(w, r)
			return
		}
		shown := *r.URL
		shown.Path, shown.RawPath, shown.RawQuery, shown.ForceQuery = public, "", "", false
		r2 := r.WithContext(context.WithValue(r.Context(), sentURL{}, r.URL))
		r2.URL = &shown
		r2.RequestURI = public
		traced.ServeHTTP(w, r2)
	})
}

// sentURL keys the URL a request was sent with, while the tracing
// middleware shows it its public path.
type sentURL struct{}

// TraceGraphQL is the gqlgen extension that gives each operation a span
// named after it, with its type and its errors' codes.
func TraceGraphQL() graphql.HandlerExtension { return graphqlTracing{} }

type graphqlTracing struct{}

func (graphqlTracing) ExtensionName() string                   { return "Tracing" }
func (graphqlTracing) Validate(graphql.ExecutableSchema) error { return nil }

func (graphqlTracing) InterceptOperation(ctx context.Context, next graphql.OperationHandler) graphql.ResponseHandler {
	oc := graphql.GetOperationContext(ctx)
	name, kind := "anonymous", "query"
	if op := oc.Operation; op != nil {
		kind = string(op.Operation)
		if op.Name != "" {
			name = op.Name
		}
	}
	ctx, span := otel.Tracer(tracerName).Start(ctx, "graphql "+name, trace.WithAttributes(
		attribute.String("graphql.operation.name", name), attribute.String("graphql.operation.type", kind)))
	handler := next(ctx)
	return func(ctx context.Context) *graphql.Response {
		resp := handler(ctx)
		if resp == nil || resp.Path == nil { // the whole answer, or the end of a stream
			if errCodes := reqinfo.From(ctx).Codes(); len(errCodes) > 0 {
				span.SetAttributes(attribute.StringSlice("graphql.error.codes", errCodes))
				span.SetStatus(codes.Error, errCodes[0])
			}
			span.End()
		}
		return resp
	}
}

// TraceDynamoDB is a client option giving each DynamoDB call a span, on
// both the SDK's stack and ddbread's.
func TraceDynamoDB() func(*dynamodb.Options) {
	return func(o *dynamodb.Options) {
		o.APIOptions = append(o.APIOptions, func(stack *middleware.Stack) error {
			return stack.Initialize.Add(middleware.InitializeMiddlewareFunc("calgraph.tracing",
				func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
					op := middleware.GetOperationName(ctx)
					ctx, span := otel.Tracer(tracerName).Start(ctx, "DynamoDB."+op, trace.WithSpanKind(trace.SpanKindClient),
						trace.WithAttributes(append(callAttributes(in.Parameters), attribute.String("db.system.name", "aws.dynamodb"),
							attribute.String("db.operation.name", op))...))
					defer span.End()
					out, md, err := next.HandleInitialize(ctx, in)
					if err != nil {
						span.RecordError(err)
						span.SetStatus(codes.Error, callResult(err))
					}
					return out, md, err
				}), middleware.After)
		})
	}
}

func callAttributes(params any) []attribute.KeyValue {
	switch in := params.(type) {
	case *dynamodb.QueryInput:
		return []attribute.KeyValue{attribute.String("aws.dynamodb.table_names", aws.ToString(in.TableName)),
			attribute.String("aws.dynamodb.index_name", aws.ToString(in.IndexName))}
	case *dynamodb.GetItemInput:
		return []attribute.KeyValue{attribute.String("aws.dynamodb.table_names", aws.ToString(in.TableName))}
	case *dynamodb.BatchGetItemInput:
		n := 0
		for _, ka := range in.RequestItems {
			n += len(ka.Keys)
		}
		return []attribute.KeyValue{attribute.Int("calgraph.keys", n)}
	case *dynamodb.TransactWriteItemsInput:
		return []attribute.KeyValue{attribute.Int("calgraph.actions", len(in.TransactItems))}
	}
	return nil
}
