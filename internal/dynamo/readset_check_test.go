package dynamo_test

import (
	"context"
	"testing"

	"github.com/calgraph/calgraph/internal/dynamo"
	"github.com/calgraph/calgraph/internal/dynamotest"
)

// TestReadSetCountsItsCheck: once a read set is found cacheable (its
// request ended), it counts the check a hit sends (the encoded BatchGetItem)
// in its bytes, which bound the answer cache, and records nothing more: a
// read after that made no part of the answer.
func TestReadSetCountsItsCheck(t *testing.T) {
	s, _ := dynamotest.Store(t)
	ctx, rs := s.Record(context.Background())
	if err := dynamo.ReadUsers(ctx, s, "user-a", "user-b", "user-c"); err != nil {
		t.Fatal(err)
	}
	before := rs.Bytes()
	if why := rs.Uncacheable(); why != "" {
		t.Fatalf("a set of 3 items is uncacheable: %s", why)
	}
	after := rs.Bytes()
	if after < before+3*40 { // each key encoded is some 60 bytes
		t.Errorf("the set counts %d bytes once cacheable, %d before: want its encoded check counted too", after, before)
	}
	if err := dynamo.ReadUsers(ctx, s, "user-d"); err != nil {
		t.Fatal(err)
	}
	if got := rs.Bytes(); got != after {
		t.Errorf("a read after the set was found cacheable changed it: %d bytes, was %d", got, after)
	}
	if same, err := s.Unchanged(context.Background(), rs); err != nil || !same {
		t.Errorf("Unchanged: %v, %v; want the same", same, err)
	}
}
