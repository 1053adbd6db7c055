package dynamo_test

import (
	"os"
	"testing"

	"github.com/calgraph/calgraph/internal/dynamotest"
)

// TestMain runs up to four parallel tests at once (dynamotest.Main): this
// package's parallel tests spend most of their time waiting on a store of
// their own.
func TestMain(m *testing.M) { os.Exit(dynamotest.Main(m)) }
