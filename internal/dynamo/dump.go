package dynamo

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/calgraph/calgraph/internal/ddbjson"
)

// Export writes every item of the table in DynamoDB's JSON export format (one
// {"Item":{...}} per line) and returns how many it wrote. It scans with
// consistent reads, a page of at most 1 MB at a time on every engine (the
// embedded one too, TestScanPagesStopAtOneMegabyte in internal/engine). In
// embedded mode the export holds the data directory's lock, so nothing writes
// between pages and it is a point-in-time snapshot; on DynamoDB it is a live
// scan, and DynamoDB's own export to S3 is the point-in-time backup.
func (s *Store) Export(ctx context.Context, w io.Writer) (int, error) {
	out := ddbjson.NewWriter(w)
	if err := s.scan(ctx, out.Write); err != nil {
		return out.Count(), fmt.Errorf("export: %w", err)
	}
	if err := out.Flush(); err != nil {
		return out.Count(), fmt.Errorf("export: %w", err)
	}
	return out.Count(), nil
}

// Import reads an export and puts every item into the table, replacing items
// with the same key. It parses the whole input before writing anything, so a
// truncated or corrupt file changes nothing; it then writes in batches of 25,
// which is not atomic as a whole.
func (s *Store) Import(ctx context.Context, r io.Reader) (int, error) {
	in := ddbjson.NewReader(r)
	var writes []types.WriteRequest
	for n := 1; ; n++ {
		it, err := in.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return 0, fmt.Errorf("import: %w", err)
		}
		if k := keyOf(it); k.PK == "" || k.SK == "" {
			return 0, fmt.Errorf("import: item %d has no string PK and SK", n)
		}
		if _, err := scheduleLegacy(it, s.timestamp()); err != nil { // remind_legacy.go
			return 0, fmt.Errorf("import: item %d: %w", n, err)
		}
		writes = append(writes, types.WriteRequest{PutRequest: &types.PutRequest{Item: it}})
	}
	if err := s.batchWrite(ctx, writes); err != nil {
		return 0, fmt.Errorf("import: %w", err)
	}
	return len(writes), nil
}
