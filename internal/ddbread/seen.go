package ddbread

import (
	"context"
	"crypto/sha256"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/smithy-go"
	"github.com/aws/smithy-go/middleware"
)

// Answers seen before. A caller that sends the same request again and again
// and only needs to know whether its answer changed (the answer cache
// validating a read set, internal/dynamo's readset_check.go) passes the Seen
// of the last answer it checked. When the new answer's bytes have the same
// SHA-256, it is not decoded at all: the output holds no items, and the call
// costs the round trip and one hash. Otherwise the answer is decoded as
// usual, and its sum comes back for the caller to keep once it has checked
// the items. Equal bytes are the same answer; different bytes may still be
// (DynamoDB promises no order of attributes or of a batch's items), which
// costs a decode, never a wrong "same".
type Seen struct {
	Sum   [sha256.Size]byte // of the answer's bytes; zero: nothing seen
	Items int               // items DynamoDB read for it, for the client's hooks
}

type seenKey struct{}

// SeenOf says whether out (an output's ResultMetadata) is an answer that was
// not decoded because it was seen before, and that answer's Seen.
func SeenOf(md middleware.Metadata) (Seen, bool) {
	s, ok := md.Get(seenKey{}).(Seen)
	return s, ok
}

// Prepared is a read encoded once, to be sent again and again (the answer
// cache's checks send the same reads on every hit): its body is not encoded
// again for each call. Its input must not change once prepared.
type Prepared struct {
	op   string
	in   any
	body []byte
}

// Size is the bytes p holds beyond its input: its encoded body.
func (p *Prepared) Size() int { return len(p.body) }

// Input is the read's input: a *dynamodb.BatchGetItemInput or a
// *dynamodb.QueryInput.
func (p *Prepared) Input() any { return p.in }

// PrepareBatchGetItem encodes in once, for BatchGetItemSeen.
func PrepareBatchGetItem(in *dynamodb.BatchGetItemInput) (*Prepared, error) {
	return prepare("BatchGetItem", in, encodeBatchGetItem)
}

// PrepareQuery encodes in once, for QuerySeen.
func PrepareQuery(in *dynamodb.QueryInput) (*Prepared, error) {
	return prepare("Query", in, encodeQuery)
}

func prepare(op string, in any, encode func(any) ([]byte, error)) (*Prepared, error) {
	body, err := encode(in)
	if err != nil {
		return nil, &smithy.OperationError{ServiceID: "DynamoDB", OperationName: op, Err: err}
	}
	return &Prepared{op: op, in: in, body: body}, nil
}

// BatchGetItemSeen sends a prepared BatchGetItem for a caller that checked
// an answer to it before (seen; zero: none). When this answer's bytes are
// those, out has no items and SeenOf(out.ResultMetadata) is true; otherwise
// out is decoded. sum is this answer's SHA-256 either way.
func (c *Client) BatchGetItemSeen(ctx context.Context, p *Prepared, seen Seen) (out *dynamodb.BatchGetItemOutput, sum [sha256.Size]byte, err error) {
	return sendSeen[dynamodb.BatchGetItemOutput](ctx, c, p, "BatchGetItem", seen, decodeBatchGetItem,
		func(md middleware.Metadata) any { return &dynamodb.BatchGetItemOutput{ResultMetadata: md} })
}

// QuerySeen is a prepared Query as BatchGetItemSeen is a BatchGetItem. An
// answer seen before has no items; its ScannedCount is seen.Items.
func (c *Client) QuerySeen(ctx context.Context, p *Prepared, seen Seen) (out *dynamodb.QueryOutput, sum [sha256.Size]byte, err error) {
	return sendSeen[dynamodb.QueryOutput](ctx, c, p, "Query", seen, decodeQuery,
		func(md middleware.Metadata) any {
			return &dynamodb.QueryOutput{ScannedCount: int32(seen.Items), ResultMetadata: md}
		})
}

func sendSeen[O any](ctx context.Context, c *Client, p *Prepared, op string, seen Seen,
	decode func([]byte) (any, error), undecoded func(middleware.Metadata) any) (*O, [sha256.Size]byte, error) {
	var sum [sha256.Size]byte
	if p.op != op {
		return nil, sum, &smithy.OperationError{ServiceID: "DynamoDB", OperationName: op, Err: errUnsupported(op, "a read prepared for "+p.op)}
	}
	out, err := c.call(ctx, op, p.in, func(any) ([]byte, error) { return p.body, nil }, func(data []byte) (any, error) {
		sum = sha256.Sum256(data)
		if seen.Sum != ([sha256.Size]byte{}) && sum == seen.Sum {
			var md middleware.Metadata
			md.Set(seenKey{}, seen)
			return undecoded(md), nil
		}
		return decode(data)
	})
	if err != nil {
		return nil, sum, err
	}
	return out.(*O), sum, nil
}
