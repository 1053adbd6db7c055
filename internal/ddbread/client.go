package ddbread

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/smithy-go"
	"github.com/aws/smithy-go/middleware"
	smithyhttp "github.com/aws/smithy-go/transport/http"
)

// Client sends GetItem, BatchGetItem and Query as the SDK client it was made
// from would, minus the SDK's per-call overhead (see the package
// documentation). Safe for concurrent use.
type Client struct {
	http     dynamodb.HTTPClient
	endpoint string
	region   string
	creds    aws.CredentialsProvider
	signer   sigv4
	retryer  aws.Retryer
	hooks    []middleware.InitializeMiddleware
	bound    *attemptTimeout // each attempt's, when the SDK client has one (AttemptTimeout)
}

// New makes a Client that shares db's HTTP client, credentials, region,
// endpoint, retryer and Initialize-step middlewares.
func New(ctx context.Context, db *dynamodb.Client) (*Client, error) {
	o := db.Options()
	ep, err := o.EndpointResolverV2.ResolveEndpoint(ctx, dynamodb.EndpointParameters{
		Region:                aws.String(o.Region),
		Endpoint:              o.BaseEndpoint,
		UseDualStack:          aws.Bool(o.EndpointOptions.UseDualStackEndpoint == aws.DualStackEndpointStateEnabled),
		UseFIPS:               aws.Bool(o.EndpointOptions.UseFIPSEndpoint == aws.FIPSEndpointStateEnabled),
		AccountIdEndpointMode: aws.String(string(aws.AccountIDEndpointModeDisabled)),
	})
	if err != nil {
		return nil, fmt.Errorf("resolve the DynamoDB endpoint: %w", err)
	}
	creds := o.Credentials
	if creds == nil {
		creds = aws.AnonymousCredentials{}
	} else if _, cached := creds.(*aws.CredentialsCache); !cached {
		creds = aws.NewCredentialsCache(creds)
	}
	// The client's APIOptions were written for the SDK's full stack: those
	// that name one of its middlewares fail on this bare one and are skipped,
	// as they have nothing to act on here. What they add to the Initialize
	// step runs around every call.
	stack := middleware.NewStack("ddbread", smithyhttp.NewStackRequest)
	for _, add := range o.APIOptions {
		_ = add(stack)
	}
	var hooks []middleware.InitializeMiddleware
	for _, id := range stack.Initialize.List() {
		m, _ := stack.Initialize.Get(id)
		hooks = append(hooks, m)
	}
	endpoint := ep.URI.String()
	c := &Client{
		http: ownConns(o.HTTPClient, endpoint), endpoint: endpoint, region: o.Region, creds: creds,
		retryer: o.Retryer, hooks: hooks,
	}
	if m, ok := stack.Finalize.Get(attemptTimeout{}.ID()); ok {
		bound := m.(attemptTimeout)
		c.bound = &bound
	}
	return c, nil
}

// GetItem is dynamodb.Client.GetItem; per-call options are refused.
func (c *Client) GetItem(ctx context.Context, in *dynamodb.GetItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error) {
	return send[dynamodb.GetItemOutput](ctx, c, "GetItem", in, opts, encodeGetItem, decodeGetItem)
}

// BatchGetItem is dynamodb.Client.BatchGetItem; per-call options are refused.
func (c *Client) BatchGetItem(ctx context.Context, in *dynamodb.BatchGetItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.BatchGetItemOutput, error) {
	return send[dynamodb.BatchGetItemOutput](ctx, c, "BatchGetItem", in, opts, encodeBatchGetItem, decodeBatchGetItem)
}

// Query is dynamodb.Client.Query; per-call options are refused.
func (c *Client) Query(ctx context.Context, in *dynamodb.QueryInput, opts ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error) {
	return send[dynamodb.QueryOutput](ctx, c, "Query", in, opts, encodeQuery, decodeQuery)
}

// send makes one operation's call and types its answer.
func send[O any](ctx context.Context, c *Client, op string, in any, opts []func(*dynamodb.Options),
	encode func(any) ([]byte, error), decode func([]byte) (any, error)) (*O, error) {
	if len(opts) > 0 {
		return nil, errUnsupported(op, "per-call options")
	}
	out, err := c.call(ctx, op, in, encode, decode)
	if err != nil {
		return nil, err
	}
	return out.(*O), nil
}

// call runs the hooks around the attempts of one operation; errors are
// wrapped as the SDK wraps them ("operation error DynamoDB: Query, ...").
func (c *Client) call(ctx context.Context, op string, in any, encode func(any) ([]byte, error), decode func([]byte) (any, error)) (any, error) {
	ctx = middleware.WithServiceID(middleware.WithOperationName(ctx, op), "DynamoDB")
	var h middleware.InitializeHandler = middleware.InitializeHandlerFunc(func(ctx context.Context, in middleware.InitializeInput) (middleware.InitializeOutput, middleware.Metadata, error) {
		body, err := encode(in.Parameters)
		if err != nil {
			return middleware.InitializeOutput{}, middleware.Metadata{}, err
		}
		out, err := c.retry(ctx, op, body, decode)
		return middleware.InitializeOutput{Result: out}, middleware.Metadata{}, err
	})
	for i := len(c.hooks) - 1; i >= 0; i-- {
		h = hooked{c.hooks[i], h}
	}
	out, _, err := h.HandleInitialize(ctx, middleware.InitializeInput{Parameters: in})
	if err != nil {
		return nil, &smithy.OperationError{ServiceID: "DynamoDB", OperationName: op, Err: err}
	}
	return out.Result, nil
}

// bodies holds the buffers answers are read into: a view reads tens of
// answers of up to 1 MB each, and growing a fresh slice for each was the
// largest allocation of a view. maxPresize caps what a Content-Length can make
// a buffer reserve before any byte arrives.
var bodies = sync.Pool{New: func() any { return new(bytes.Buffer) }}

const maxPresize = 16 << 20

// hooked runs one of the client's Initialize middlewares before next. The
// chain is built per call: an InitializeStep links its middlewares in place
// and so cannot run calls concurrently.
type hooked struct {
	m    middleware.InitializeMiddleware
	next middleware.InitializeHandler
}

func (h hooked) HandleInitialize(ctx context.Context, in middleware.InitializeInput) (middleware.InitializeOutput, middleware.Metadata, error) {
	return h.m.HandleInitialize(ctx, in, h.next)
}

// retry makes attempts as the SDK's retry middleware does: the retryer says
// which errors are worth another attempt, how long to wait and whether its
// quota allows one.
func (c *Client) retry(ctx context.Context, op string, body []byte, decode func([]byte) (any, error)) (any, error) {
	releaseInitial := c.retryer.GetInitialToken()
	releaseRetry := func(error) error { return nil }
	for attempt := 1; ; attempt++ {
		out, err := c.boundedAttempt(ctx, op, body, decode)
		if err == nil {
			_, _ = releaseInitial(nil), releaseRetry(nil) // a success refills the retry quota
			return out, nil
		}
		limit := c.retryer.MaxAttempts() // 0: no limit but the context's
		if ctx.Err() != nil || (limit > 0 && attempt >= limit) || !c.retryer.IsErrorRetryable(err) {
			return nil, err
		}
		delay, derr := c.retryer.RetryDelay(attempt, err)
		if derr != nil {
			return nil, err
		}
		if releaseRetry, derr = c.retryer.GetRetryToken(ctx, err); derr != nil {
			return nil, err // the retry quota is spent: DynamoDB is struggling
		}
		t := time.NewTimer(delay)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return nil, err
		}
	}
}

// boundedAttempt is attempt within the attempt timeout, if there is one.
func (c *Client) boundedAttempt(ctx context.Context, op string, body []byte, decode func([]byte) (any, error)) (any, error) {
	if c.bound == nil {
		return c.attempt(ctx, op, body, decode)
	}
	actx, cancel := context.WithTimeout(ctx, c.bound.d)
	defer cancel()
	out, err := c.attempt(actx, op, body, decode)
	return out, c.bound.check(ctx, actx, err)
}

// attempt sends one signed request and decodes its answer.
func (c *Client) attempt(ctx context.Context, op string, body []byte, decode func([]byte) (any, error)) (any, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.endpoint, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/x-amz-json-1.0")
	req.Header.Set("X-Amz-Target", "DynamoDB_20120810."+op)
	creds, err := c.creds.Retrieve(ctx)
	if err != nil {
		return nil, fmt.Errorf("retrieve credentials: %w", err)
	}
	if err := c.signer.sign(req, body, creds, c.region, time.Now()); err != nil {
		return nil, fmt.Errorf("sign the request: %w", err)
	}
	// After signing, as it is not sent: it only tells net/http that the request
	// may be sent again when a kept-alive connection proves closed.
	req.Header["X-Idempotency-Key"] = nil
	res, err := c.http.Do(req)
	if err != nil {
		return nil, &smithyhttp.RequestSendError{Err: err}
	}
	defer res.Body.Close()
	buf := bodies.Get().(*bytes.Buffer)
	defer bodies.Put(buf)
	buf.Reset()
	if res.ContentLength > 0 {
		buf.Grow(int(min(res.ContentLength, maxPresize)))
	}
	if _, err := buf.ReadFrom(res.Body); err != nil {
		return nil, &smithyhttp.RequestSendError{Err: fmt.Errorf("read the answer: %w", err)}
	}
	data := buf.Bytes()
	if res.StatusCode != http.StatusOK {
		return nil, responseError(res, data)
	}
	out, err := decode(data) // copies what it keeps: the buffer goes back to the pool
	if err != nil {
		return nil, fmt.Errorf("decode the answer: %w", err)
	}
	return out, nil
}
