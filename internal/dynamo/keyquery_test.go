package dynamo

import (
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/calgraph/calgraph/internal/calendar"
)

// TestKeyQueryInput pins the QueryInput of each shape of Query the store
// sends, as the store's own functions make it where it has one. The range
// reads', the logs' and the full reads' are the very inputs their sites
// wrote out before keyQuery; the lookups on GSI2 and GSI3, the user's
// memberships and the partition clean-up name their placeholders #pk, #sk
// where the SDK's expression builder named them #0, #1; pages leave out the
// defaults (ConsistentRead false, ScanIndexForward true) they used to send.
func TestKeyQueryInput(t *testing.T) {
	s := func(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }
	from := time.Date(2026, 6, 15, 0, 0, 0, 0, time.UTC)
	cursor := item{"PK": s("CAL#c"), "SK": s("ENTRY#e"), "LSI2SK": s("TASK#DONE#x")}
	tests := []struct {
		name string
		q    keyQuery
		want dynamodb.QueryInput
	}{{
		name: "a calendar's members, a page (R4)",
		q:    membersQuery("c", calendar.Page{First: 20}).query(nil),
		want: dynamodb.QueryInput{KeyConditionExpression: aws.String("#pk = :pk AND #sk BETWEEN :lo AND :hi"),
			ExpressionAttributeNames:  map[string]string{"#pk": "PK", "#sk": "SK"},
			ExpressionAttributeValues: item{":pk": s("CAL#c"), ":lo": s("MEMBER#"), ":hi": s("MEMBER#~")},
			ConsistentRead:            aws.Bool(true)},
	}, {
		name: "a user's calendars, a page of GSI1 (R5)",
		q:    userMembershipsQuery("u", calendar.Page{First: 20}).query(nil),
		want: dynamodb.QueryInput{IndexName: aws.String("GSI1"), KeyConditionExpression: aws.String("#pk = :pk AND #sk BETWEEN :lo AND :hi"),
			ExpressionAttributeNames:  map[string]string{"#pk": "GSI1PK", "#sk": "GSI1SK"},
			ExpressionAttributeValues: item{":pk": s("USER#u"), ":lo": s("CAL#"), ":hi": s("CAL#~")}},
	}, {
		name: "completed tasks, latest first, after a cursor (R10)",
		q:    tasksQuery("c", calendar.TaskQuery{List: calendar.TasksCompleted}, calendar.Page{First: 20}).query(cursor),
		want: dynamodb.QueryInput{IndexName: aws.String("LSI2"), KeyConditionExpression: aws.String("#pk = :pk AND #sk BETWEEN :lo AND :hi"),
			ExpressionAttributeNames:  map[string]string{"#pk": "PK", "#sk": "LSI2SK"},
			ExpressionAttributeValues: item{":pk": s("CAL#c"), ":lo": s("TASK#DONE#"), ":hi": s("TASK#DONE#~")},
			ConsistentRead:            aws.Bool(true), ScanIndexForward: aws.Bool(false), ExclusiveStartKey: cursor},
	}, {
		name: "a calendar's entries reaching a range, filtered (R9)",
		q: keyQuery{index: indexLSI1, pkAttr: attrPK, partition: "CAL#c", sk: skBetween(attrLSI1SK, "SPAN#a", "SPAN#b~"),
			consistent: true, filter: reachesInto(from)},
		want: dynamodb.QueryInput{IndexName: aws.String("LSI1"), KeyConditionExpression: aws.String("#pk = :pk AND #sk BETWEEN :lo AND :hi"),
			FilterExpression:          aws.String("attribute_not_exists(#re) OR #re >= :from"),
			ExpressionAttributeNames:  map[string]string{"#pk": "PK", "#sk": "LSI1SK", "#re": "reachEnd"},
			ExpressionAttributeValues: item{":pk": s("CAL#c"), ":lo": s("SPAN#a"), ":hi": s("SPAN#b~"), ":from": s(instantKey(from))},
			ConsistentRead:            aws.Bool(true)},
	}, {
		name: "all of a user's memberships (R20)",
		q:    keyQuery{index: indexGSI1, pkAttr: attrGSI1PK, partition: "USER#u", sk: skPrefix(attrGSI1SK, prefixCalendar)},
		want: dynamodb.QueryInput{IndexName: aws.String("GSI1"), KeyConditionExpression: aws.String("#pk = :pk AND #sk BETWEEN :lo AND :hi"),
			ExpressionAttributeNames:  map[string]string{"#pk": "GSI1PK", "#sk": "GSI1SK"},
			ExpressionAttributeValues: item{":pk": s("USER#u"), ":lo": s("CAL#"), ":hi": s("CAL#~")}},
	}, {
		name: "a user by sign-in identity (R7)",
		q:    keyQuery{index: indexGSI3, pkAttr: attrGSI3PK, partition: "PROV#p#s", limit: 1},
		want: dynamodb.QueryInput{IndexName: aws.String("GSI3"), KeyConditionExpression: aws.String("#pk = :pk"),
			ExpressionAttributeNames:  map[string]string{"#pk": "GSI3PK"},
			ExpressionAttributeValues: item{":pk": s("PROV#p#s")}, Limit: aws.Int32(1)},
	}, {
		name: "an invitation by token (R15)",
		q:    keyQuery{index: indexGSI2, pkAttr: attrGSI2PK, partition: "INVITE#h", sk: skEqual(attrGSI2SK, "INVITE"), limit: 1},
		want: dynamodb.QueryInput{IndexName: aws.String("GSI2"), KeyConditionExpression: aws.String("#pk = :pk AND #sk = :sk"),
			ExpressionAttributeNames:  map[string]string{"#pk": "GSI2PK", "#sk": "GSI2SK"},
			ExpressionAttributeValues: item{":pk": s("INVITE#h"), ":sk": s("INVITE")}, Limit: aws.Int32(1)},
	}, {
		name: "a deleted calendar's items below its log (R22)",
		q:    keyQuery{pkAttr: attrPK, partition: "CAL#c", sk: skBelow(attrSK, prefixChange), consistent: true},
		want: dynamodb.QueryInput{KeyConditionExpression: aws.String("#pk = :pk AND #sk < :sk"),
			ExpressionAttributeNames:  map[string]string{"#pk": "PK", "#sk": "SK"},
			ExpressionAttributeValues: item{":pk": s("CAL#c"), ":sk": s("CHG#")}, ConsistentRead: aws.Bool(true)},
	}, {
		name: "a deleted calendar's items above its log (R22)",
		q:    keyQuery{pkAttr: attrPK, partition: "CAL#c", sk: skAbove(attrSK, prefixChange+"~"), consistent: true},
		want: dynamodb.QueryInput{KeyConditionExpression: aws.String("#pk = :pk AND #sk > :sk"),
			ExpressionAttributeNames:  map[string]string{"#pk": "PK", "#sk": "SK"},
			ExpressionAttributeValues: item{":pk": s("CAL#c"), ":sk": s("CHG#~")}, ConsistentRead: aws.Bool(true)},
	}, {
		name: "a change log after a position (R23)",
		q:    logQuery("CAL#c", 7),
		want: dynamodb.QueryInput{KeyConditionExpression: aws.String("#pk = :pk AND #sk BETWEEN :lo AND :hi"),
			ExpressionAttributeNames:  map[string]string{"#pk": "PK", "#sk": "SK"},
			ExpressionAttributeValues: item{":pk": s("CAL#c"), ":lo": s(changeSortKey(7) + "#~"), ":hi": s("CHG#~")},
			ConsistentRead:            aws.Bool(true)},
	}, {
		name: "a change log's sort keys, at most 500 (R26)",
		q:    func() keyQuery { q := logQuery("CAL#c", 7); q.projection, q.limit = []string{attrSK}, 500; return q }(),
		want: dynamodb.QueryInput{KeyConditionExpression: aws.String("#pk = :pk AND #sk BETWEEN :lo AND :hi"),
			ProjectionExpression:      aws.String("#sk"),
			ExpressionAttributeNames:  map[string]string{"#pk": "PK", "#sk": "SK"},
			ExpressionAttributeValues: item{":pk": s("CAL#c"), ":lo": s(changeSortKey(7) + "#~"), ":hi": s("CHG#~")},
			ConsistentRead:            aws.Bool(true), Limit: aws.Int32(500)},
	}, {
		name: "a shard's recent writes, their table keys (R30)",
		q:    keyQuery{index: indexGSI4, pkAttr: attrGSI4PK, partition: "RECENT#1", sk: skBetween(attrSK, "a", "b"), projection: []string{attrPK, attrSK}},
		want: dynamodb.QueryInput{IndexName: aws.String("GSI4"), KeyConditionExpression: aws.String("#pk = :pk AND #sk BETWEEN :lo AND :hi"),
			ProjectionExpression:      aws.String("#p0, #sk"),
			ExpressionAttributeNames:  map[string]string{"#pk": "GSI4PK", "#sk": "SK", "#p0": "PK"},
			ExpressionAttributeValues: item{":pk": s("RECENT#1"), ":lo": s("a"), ":hi": s("b")}},
	}, {
		name: "a full read's page of entries and series, after a key (R25)",
		q: keyQuery{pkAttr: attrPK, partition: "CAL#c", sk: skPrefix(attrSK, "ENTRY#"), consistent: true,
			filter: entityTypeIn([]string{"ENTRY", "SERIES"}), start: item{"PK": s("CAL#c"), "SK": s("ENTRY#e")}},
		want: dynamodb.QueryInput{KeyConditionExpression: aws.String("#pk = :pk AND #sk BETWEEN :lo AND :hi"),
			FilterExpression:         aws.String("#et IN (:e0, :e1)"),
			ExpressionAttributeNames: map[string]string{"#pk": "PK", "#sk": "SK", "#et": "entityType"},
			ExpressionAttributeValues: item{":pk": s("CAL#c"), ":lo": s("ENTRY#"), ":hi": s("ENTRY#~"),
				":e0": s("ENTRY"), ":e1": s("SERIES")},
			ConsistentRead: aws.Bool(true), ExclusiveStartKey: item{"PK": s("CAL#c"), "SK": s("ENTRY#e")}},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.want.TableName = aws.String("calgraph")
			got := tt.q.input("calgraph")
			if diff := cmp.Diff(&tt.want, got, cmpopts.IgnoreUnexported(dynamodb.QueryInput{}, types.AttributeValueMemberS{})); diff != "" {
				t.Errorf("QueryInput (-want +got):\n%s", diff)
			}
		})
	}
}
