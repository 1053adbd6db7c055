package dynamo

import (
	"cmp"
	"context"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/smithy-go/middleware"

	"github.com/calgraph/calgraph/internal/ddbread"
)

// ClientConfig says how to reach DynamoDB. The zero value uses the standard AWS
// configuration: AWS_REGION, the credential chain, and AWS_ENDPOINT_URL_DYNAMODB or
// AWS_ENDPOINT_URL when set.
type ClientConfig struct {
	// Endpoint overrides the endpoint (the embedded engine's loopback URL).
	Endpoint string
	// Local marks a local engine (embedded, DynamoDB Local): region us-east-1,
	// and, unless Credentials are given, fixed credentials. DynamoDB Local
	// accepts any, and keeps a separate database per access key and region
	// unless run with -sharedDb, so they are the same for every command.
	// Asking the default credential chain instead could also stall on EC2
	// metadata.
	Local bool
	// Credentials, when set, sign every call: the embedded engine's, which
	// it makes per process and which are the only ones it answers.
	Credentials aws.CredentialsProvider
	// AttemptTimeout bounds each attempt of a call (defaultAttemptTimeout if
	// zero); see ddbread.AttemptTimeout.
	AttemptTimeout time.Duration
	// Options are applied to the client, e.g. WithRecorder or WithLatency.
	Options []func(*dynamodb.Options)
}

// Faults: the retryer (retryer.go) retries throttling, 5xx answers, attempts
// that timed out and broken connections, with jittered exponential backoff,
// until the call's deadline; it never retries a failed condition or a
// validation error. Connections time out after dialTimeout, so that with
// DynamoDB unreachable a request fails within seconds instead of hanging.
// TransactionConflict cancellations and unprocessed batch items are retried
// on top of that (tx.go, batch.go).
const (
	dialTimeout = 3 * time.Second

	defaultAttemptTimeout = 3 * time.Second
)

// classifyFailures turns the final error of a call DynamoDB did not answer
// into a domain error (unanswered). It is the outermost middleware, so it
// sees what the caller will.
func classifyFailures(o *dynamodb.Options) {
	o.APIOptions = append(o.APIOptions, func(stack *middleware.Stack) error {
		return stack.Initialize.Add(middleware.InitializeMiddlewareFunc("calgraph.classifyFailures",
			func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
				sent := ctx.Err() == nil
				ctx, attempts := withAttemptLog(ctx)
				out, md, err := next.HandleInitialize(ctx, in)
				return out, md, unanswered(ctx, middleware.GetOperationName(ctx), sent, err, *attempts...)
			}), middleware.Before)
	})
	o.APIOptions = append(o.APIOptions, logAttempts)
}

// NewClient builds a DynamoDB client whose calls are retried until their
// deadline (retryer.go).
func NewClient(ctx context.Context, cc ClientConfig) (*dynamodb.Client, error) {
	// Many concurrent Queries in one wave must not queue for idle connections.
	httpClient := awshttp.NewBuildableClient().WithTransportOptions(func(t *http.Transport) {
		t.MaxIdleConns = 256
		t.MaxIdleConnsPerHost = 256
	}).WithDialerOptions(func(d *net.Dialer) { d.Timeout = dialTimeout })
	loaders := []func(*config.LoadOptions) error{
		config.WithHTTPClient(httpClient),
		config.WithRetryer(newRetryer),
	}
	cfg, err := config.LoadDefaultConfig(ctx, loaders...)
	if err != nil {
		return nil, fmt.Errorf("load AWS configuration: %w", err)
	}
	attemptTimeout := cmp.Or(cc.AttemptTimeout, defaultAttemptTimeout)
	opts := append([]func(*dynamodb.Options){classifyFailures, budgetCalls, func(o *dynamodb.Options) {
		o.APIOptions = append(o.APIOptions, ddbread.AttemptTimeout(attemptTimeout))
	}}, cc.Options...)
	if cc.Local {
		cfg.Region = "us-east-1"
		cfg.Credentials = credentials.NewStaticCredentialsProvider("local", "local", "")
		// DynamoDB Local sends a wrong CRC32 with some answers (its TTL
		// operations); the SDK would warn on each. A local engine's answers
		// do not cross a network that could corrupt them.
		opts = append(opts, func(o *dynamodb.Options) { o.DisableValidateResponseChecksum = true })
	}
	if cc.Credentials != nil {
		cfg.Credentials = aws.NewCredentialsCache(cc.Credentials)
	}
	if cfg.Region == "" {
		return nil, fmt.Errorf("no AWS region configured: set AWS_REGION")
	}
	if cc.Endpoint != "" {
		opts = append(opts, func(o *dynamodb.Options) { o.BaseEndpoint = aws.String(cc.Endpoint) })
	}
	return dynamodb.NewFromConfig(cfg, opts...), nil
}
