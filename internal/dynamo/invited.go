package dynamo

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/calgraph/calgraph/internal/calendar"
)

// InvitedEntries implements calendar.Reader (R36): the entries a user is
// invited to and did not decline, from GSI1's `ATT#` keys of their
// partition, newest invitation first. It reads at most max invitations
// whatever their answers (the Query's Limit counts what DynamoDB
// evaluates, before the filter leaves the declined ones out), and only
// their calendar and entry IDs.
func (s *Store) InvitedEntries(ctx context.Context, userID string, max int) ([]calendar.EntryKey, error) {
	in := keyQuery{index: indexGSI1, pkAttr: attrGSI1PK, partition: userPartition(userID),
		sk: skPrefix(attrGSI1SK, prefixAttendee), descending: true, projection: []string{"calendarId", "entryId"},
		filter: filter{expr: "#response <> :declined", names: map[string]string{"#response": "response"},
			values: item{":declined": str(string(calendar.ResponseDeclined))}}}.input(s.table)
	var out []calendar.EntryKey
	seen := map[calendar.EntryKey]bool{}
	for evaluated := 0; evaluated < max; {
		in.Limit = aws.Int32(int32(max - evaluated))
		page, err := s.reads.Query(ctx, in)
		if err != nil {
			return nil, fmt.Errorf("query invitations of %s: %w", userID, err)
		}
		for _, it := range page.Items {
			k := calendar.EntryKey{CalendarID: stringAttr(it, "calendarId"), EntryID: stringAttr(it, "entryId")}
			if !seen[k] { // a series' answers per occurrence share its entry
				seen[k] = true
				out = append(out, k)
			}
		}
		evaluated += int(page.ScannedCount)
		if len(page.LastEvaluatedKey) == 0 || page.ScannedCount == 0 {
			break
		}
		in.ExclusiveStartKey = page.LastEvaluatedKey
	}
	return out, nil
}
