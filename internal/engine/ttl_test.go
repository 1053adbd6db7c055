package engine_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/calgraph/calgraph/internal/engine"
)

// TestTimeToLiveSettingsAsDynamoDB: DescribeTimeToLive and UpdateTimeToLive
// answer as DynamoDB Local does: off at first, on for one attribute, refused
// when already so, and an expired item stays readable until it is deleted.
func TestTimeToLiveSettingsAsDynamoDB(t *testing.T) {
	w := openWire(t)
	keyTable(w, "TTL", "S")
	w.must("PutItem", `{"TableName":"TTL","Item":{"PK":{"S":"p"},"SK":{"S":"old"},"exp":{"N":"1000000000"}}}`)
	update := func(attr string, on bool) string {
		return fmt.Sprintf(`{"TableName":"TTL","TimeToLiveSpecification":{"AttributeName":%q,"Enabled":%v}}`, attr, on)
	}
	for _, c := range []struct{ name, op, body, wantType, want string }{
		{"off at first", "DescribeTimeToLive", `{"TableName":"TTL"}`, "", `{"TimeToLiveDescription":{"TimeToLiveStatus":"DISABLED"}}`},
		{"turned off when off", "UpdateTimeToLive", update("exp", false), "ValidationException", ``},
		{"turned on", "UpdateTimeToLive", update("exp", true), "", `{"TimeToLiveSpecification":{"AttributeName":"exp","Enabled":true}}`},
		{"on", "DescribeTimeToLive", `{"TableName":"TTL"}`, "", `{"TimeToLiveDescription":{"TimeToLiveStatus":"ENABLED","AttributeName":"exp"}}`},
		{"turned on again", "UpdateTimeToLive", update("exp", true), "ValidationException", ``},
		{"turned on for another attribute", "UpdateTimeToLive", update("other", true), "ValidationException", ``},
		{"without an attribute", "UpdateTimeToLive", `{"TableName":"TTL","TimeToLiveSpecification":{"Enabled":false}}`, "ValidationException", ``},
		{"of an unknown table", "DescribeTimeToLive", `{"TableName":"NOPE"}`, "ResourceNotFoundException", ``},
		{"an expired item is still read", "GetItem", `{"TableName":"TTL","Key":{"PK":{"S":"p"},"SK":{"S":"old"}}}`,
			"", `{"Item":{"PK":{"S":"p"},"SK":{"S":"old"},"exp":{"N":"1000000000"}}}`},
		{"turned off", "UpdateTimeToLive", update("exp", false), "", `{"TimeToLiveSpecification":{"AttributeName":"exp","Enabled":false}}`},
		{"off again", "DescribeTimeToLive", `{"TableName":"TTL"}`, "", `{"TimeToLiveDescription":{"TimeToLiveStatus":"DISABLED"}}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			w.call(c.op, c.body).expect(t, c.wantType, c.want)
		})
	}
}

// TestSweepFollowsTheTTLAttribute: the engine's sweep (DynamoDB Local has
// none) deletes what has expired by the attribute as it is now: items put
// before TTL was turned on, an expiry moved later or earlier by an update,
// more items than one sweep transaction holds, and nothing once TTL is off.
func TestSweepFollowsTheTTLAttribute(t *testing.T) {
	if *referenceFlag {
		t.Skip("DynamoDB Local does not delete expired items")
	}
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	db, err := engine.Open(filepath.Join(t.TempDir(), "e.db"), engine.Options{NoSync: true, Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	w := &wire{t: t, db: db}
	keyTable(w, "TTL", "S")
	past, future := now.Add(-time.Minute).Unix(), now.Add(time.Minute).Unix()
	put := func(sk string, exp int64) {
		w.must("PutItem", fmt.Sprintf(`{"TableName":"TTL","Item":{"PK":{"S":"p"},"SK":{"S":"%s"},"exp":{"N":"%d"}}}`, sk, exp))
	}
	setExp := func(sk string, exp int64) {
		w.must("UpdateItem", fmt.Sprintf(`{"TableName":"TTL","Key":{"PK":{"S":"p"},"SK":{"S":"%s"}},"UpdateExpression":"SET exp = :e",
			"ExpressionAttributeValues":{":e":{"N":"%d"}}}`, sk, exp))
	}
	sweep := func(want int) {
		t.Helper()
		if n, err := db.SweepExpired(context.Background()); err != nil || n != want {
			t.Fatalf("sweep: %d deleted, %v; want %d", n, err, want)
		}
	}
	put("before", past)
	for i := range 450 {
		put(fmt.Sprintf("many%03d", i), past)
	}
	put("later", past)
	put("sooner", future)
	sweep(0) // TTL is off
	w.must("UpdateTimeToLive", `{"TableName":"TTL","TimeToLiveSpecification":{"AttributeName":"exp","Enabled":true}}`)
	setExp("later", future)
	setExp("sooner", past)
	sweep(452)
	a := w.must("Query", `{"TableName":"TTL","KeyConditionExpression":"PK = :p","ExpressionAttributeValues":{":p":{"S":"p"}}}`)
	if got := a.sortKeys(); got != "later" {
		t.Fatalf("after the sweep: %q, want later", got)
	}
	w.must("UpdateTimeToLive", `{"TableName":"TTL","TimeToLiveSpecification":{"AttributeName":"exp","Enabled":false}}`)
	setExp("later", past)
	sweep(0)
}
