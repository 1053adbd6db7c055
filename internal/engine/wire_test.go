package engine_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/calgraph/calgraph/internal/engine"
)

// The rule tests here speak DynamoDB's JSON protocol to the engine's
// handler directly, with the requests and answers DynamoDB Local gave for
// them (internal/ddbdiff finds such cases against DynamoDB Local itself);
// they need no DynamoDB Local and no network.

// referenceFlag runs the rule tests against DynamoDB Local instead of the
// engine, to check that what they expect is what the reference answers:
//
//	CALGRAPH_TEST_DYNAMODB=http://127.0.0.1:8000 go test ./internal/engine -reference
var referenceFlag = flag.Bool("reference", false, "run the rule tests against DynamoDB Local ($CALGRAPH_TEST_DYNAMODB)")

// wire is an engine answering raw requests: the embedded one, or DynamoDB
// Local at url with the -reference flag.
type wire struct {
	t         *testing.T
	db        *engine.DB
	url, user string
}

func openWire(t *testing.T) *wire {
	t.Helper()
	if *referenceFlag {
		return referenceWire(t)
	}
	db, err := engine.Open(filepath.Join(t.TempDir(), "e.db"), engine.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := db.Close(); err != nil {
			t.Error(err)
		}
	})
	return &wire{t: t, db: db}
}

// answer is one response: its status, its error type (the part of __type
// after '#', "" for success) and its body.
type answer struct {
	status int
	typ    string
	body   map[string]any
	raw    string
}

// call sends one operation with a JSON body.
func (w *wire) call(op, body string) answer {
	w.t.Helper()
	if !json.Valid([]byte(body)) {
		w.t.Fatalf("%s: the test's body is not JSON: %.200s", op, body)
	}
	req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(body))
	req.Header.Set("X-Amz-Target", "DynamoDB_20120810."+op)
	rec := httptest.NewRecorder()
	if w.db != nil {
		w.db.ServeUnsigned(rec, req)
	} else {
		w.send(rec, op, body)
	}
	a := answer{status: rec.Code, raw: rec.Body.String()}
	if err := json.Unmarshal(rec.Body.Bytes(), &a.body); err != nil {
		w.t.Fatalf("%s: the answer is not JSON: %.300s", op, a.raw)
	}
	if typ, ok := a.body["__type"].(string); ok {
		a.typ = typ[strings.LastIndex(typ, "#")+1:]
	}
	return a
}

// referenceWire is DynamoDB Local, with a database of the test's own (it
// keeps one per access key), whose tables go when the test ends.
func referenceWire(t *testing.T) *wire {
	t.Helper()
	endpoint := os.Getenv("CALGRAPH_TEST_DYNAMODB")
	if endpoint == "" {
		t.Fatal("-reference needs CALGRAPH_TEST_DYNAMODB")
	}
	w := &wire{t: t, url: endpoint, user: fmt.Sprintf("rules%08x", rand.Uint32())}
	t.Cleanup(func() {
		var out struct{ TableNames []string }
		_ = json.Unmarshal([]byte(w.call("ListTables", `{}`).raw), &out)
		for _, name := range out.TableNames {
			w.call("DeleteTable", `{"TableName":`+jsonString(name)+`}`)
		}
	})
	return w
}

// send sends a request to DynamoDB Local, which reads the access key from
// the signature but does not check the signature.
func (w *wire) send(rec *httptest.ResponseRecorder, op, body string) {
	req, err := http.NewRequest(http.MethodPost, w.url, bytes.NewReader([]byte(body)))
	if err != nil {
		w.t.Fatal(err)
	}
	req.Header.Set("X-Amz-Target", "DynamoDB_20120810."+op)
	req.Header.Set("Content-Type", "application/x-amz-json-1.0")
	req.Header.Set("X-Amz-Date", "20260101T000000Z")
	req.Header.Set("Authorization", "AWS4-HMAC-SHA256 Credential="+w.user+
		"/20260101/us-east-1/dynamodb/aws4_request, SignedHeaders=host;x-amz-date, Signature=0")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		w.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		w.t.Fatal(err)
	}
	rec.WriteHeader(resp.StatusCode)
	_, _ = rec.Write(b)
}

// must sends a request that has to succeed.
func (w *wire) must(op, body string) answer {
	w.t.Helper()
	a := w.call(op, body)
	if a.status != http.StatusOK {
		w.t.Fatalf("%s %.300s: got %d %.300s, want success", op, body, a.status, a.raw)
	}
	return a
}

// count is a Query's or Scan's Count.
func (a answer) count() int {
	n, _ := a.body["Count"].(float64)
	return int(n)
}

// items are a Query's or Scan's items as JSON, each with its attributes
// in name order.
func (a answer) items() []string {
	var out []string
	list, _ := a.body["Items"].([]any)
	for _, it := range list {
		b, _ := json.Marshal(it)
		out = append(out, string(b))
	}
	return out
}

// check compares an answer with what DynamoDB Local answered: an error type
// ("" for success) and, for a success, the item count when wantCount >= 0.
func (a answer) check(t *testing.T, wantType string, wantCount int) {
	t.Helper()
	if a.typ != wantType {
		t.Fatalf("got %d %s (%.300s), want %q", a.status, a.typ, a.raw, wantType)
	}
	if wantType == "" && wantCount >= 0 && a.count() != wantCount {
		t.Fatalf("got %d items (%.500s), want %d", a.count(), a.raw, wantCount)
	}
}

// jsonString quotes s for a request body.
func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// The table the rule tests use, with local and global indexes of every
// projection, and its two items.
const (
	ruleTable = `{"TableName":"TTT","BillingMode":"PAY_PER_REQUEST",
		"KeySchema":[{"AttributeName":"PK","KeyType":"HASH"},{"AttributeName":"SK","KeyType":"RANGE"}],
		"AttributeDefinitions":[{"AttributeName":"PK","AttributeType":"S"},{"AttributeName":"SK","AttributeType":"S"},
			{"AttributeName":"L1","AttributeType":"S"},{"AttributeName":"L2","AttributeType":"S"},{"AttributeName":"G1","AttributeType":"S"}],
		"LocalSecondaryIndexes":[
			{"IndexName":"LKO","KeySchema":[{"AttributeName":"PK","KeyType":"HASH"},{"AttributeName":"L1","KeyType":"RANGE"}],"Projection":{"ProjectionType":"KEYS_ONLY"}},
			{"IndexName":"LIN","KeySchema":[{"AttributeName":"PK","KeyType":"HASH"},{"AttributeName":"L2","KeyType":"RANGE"}],"Projection":{"ProjectionType":"INCLUDE","NonKeyAttributes":["a","m"]}}],
		"GlobalSecondaryIndexes":[
			{"IndexName":"GKO","KeySchema":[{"AttributeName":"G1","KeyType":"HASH"}],"Projection":{"ProjectionType":"KEYS_ONLY"}},
			{"IndexName":"GIN","KeySchema":[{"AttributeName":"G1","KeyType":"HASH"},{"AttributeName":"L1","KeyType":"RANGE"}],"Projection":{"ProjectionType":"INCLUDE","NonKeyAttributes":["a"]}}]}`
	ruleItem1 = `{"TableName":"TTT","Item":{"PK":{"S":"p"},"SK":{"S":"1"},"L1":{"S":"x"},"L2":{"S":"y"},"G1":{"S":"g"},"a":{"S":"A"},"b":{"N":"5"},
		"m":{"M":{"x":{"N":"3"},"y":{"S":"q"}}},"l":{"L":[{"N":"1"},{"S":"s"}]},"f":{"BOOL":true}}}`
	ruleItem2 = `{"TableName":"TTT","Item":{"PK":{"S":"p"},"SK":{"S":"2"},"L1":{"S":"x2"},"L2":{"S":"y2"},"G1":{"S":"g"},"b":{"N":"7"}}}`
)

// ruleWire is an engine holding the rule table and its two items.
func ruleWire(t *testing.T) *wire {
	t.Helper()
	w := openWire(t)
	w.must("CreateTable", ruleTable)
	w.must("PutItem", ruleItem1)
	w.must("PutItem", ruleItem2)
	return w
}

// mustJSON marshals v for a request body.
func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// scanAll returns the items of every page of a Scan of the rule table.
func (w *wire) scanAll(params string) []string {
	w.t.Helper()
	var items []string
	start := ""
	for {
		a := w.must("Scan", `{"TableName":"TTT",`+params+start+`}`)
		items = append(items, a.items()...)
		lek, ok := a.body["LastEvaluatedKey"]
		if !ok {
			return items
		}
		start = `,"ExclusiveStartKey":` + mustJSON(w.t, lek)
	}
}

// expect compares an answer with what DynamoDB Local answered: the error
// type wantType ("" for success) and, for a success, each field of want (a
// JSON object, "" for none) equal to the answer's field of that name; a
// field wanted as null must be absent.
func (a answer) expect(t *testing.T, wantType, want string) {
	t.Helper()
	if a.typ != wantType {
		t.Fatalf("got %d %s (%.300s), want %q", a.status, a.typ, a.raw, wantType)
	}
	if want == "" {
		return
	}
	var fields map[string]any
	if err := json.Unmarshal([]byte(want), &fields); err != nil {
		t.Fatalf("the test's want is not a JSON object: %v: %s", err, want)
	}
	for name, w := range fields {
		if d := cmp.Diff(w, a.body[name]); d != "" {
			t.Errorf("%s: (-want +got)\n%s\nanswer: %.600s", name, d, a.raw)
		}
	}
}

// expectAttrs compares the attributes of a GetItem's item named in want (a
// JSON object) with want's; an attribute wanted as null must be absent.
func (a answer) expectAttrs(t *testing.T, want string) {
	t.Helper()
	a.expect(t, "", "")
	var attrs map[string]any
	if err := json.Unmarshal([]byte(want), &attrs); err != nil {
		t.Fatalf("the test's want is not a JSON object: %v: %s", err, want)
	}
	item, _ := a.body["Item"].(map[string]any)
	for name, w := range attrs {
		if d := cmp.Diff(w, item[name]); d != "" {
			t.Errorf("%s: (-want +got)\n%s\nitem: %.600s", name, d, a.raw)
		}
	}
}

// expectReasons compares a TransactionCanceledException's
// CancellationReasons with want (a JSON array).
func (a answer) expectReasons(t *testing.T, want string) {
	t.Helper()
	var reasons any
	if err := json.Unmarshal([]byte(want), &reasons); err != nil {
		t.Fatalf("the test's reasons are not JSON: %v: %s", err, want)
	}
	if d := cmp.Diff(reasons, a.body["CancellationReasons"]); d != "" {
		t.Errorf("CancellationReasons: (-want +got)\n%s\nanswer: %.600s", d, a.raw)
	}
}
