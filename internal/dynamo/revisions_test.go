package dynamo

import (
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
)

// TestRevisionRaises: a write to two calendars' entries raises both
// revisions, joining the check the write already makes on one calendar's
// item and adding an Update for the other; the caller's ops are left as they
// were, and the write's Size counts the one added action.
func TestRevisionRaises(t *testing.T) {
	const from, to = "0195f0a2-0000-7abc-8def-0123456789ab", "0195f0a2-0001-7abc-8def-0123456789ab"
	const entry = "0195f0a2-0002-7abc-8def-0123456789ab"
	w := newWrite()
	w.Guard(calendarStillThere(to, 0)) // the target first: its raise joins the check before anything is appended
	w.Put(entryKey(to, entry), map[string]string{"PK": "CAL#" + to, "SK": "ENTRY#" + entry}, noCondition(), nil)
	w.Delete(entryKey(from, entry), noCondition(), nil)
	w.LogEntry(to, entry)
	w.LogEntry(from, entry)
	if n := w.Size(); n != 3+1+2 {
		t.Fatalf("Size = %d, want 6 (3 actions, the source's raise, 2 change records; the target's raise joins its check)", n)
	}
	ops := w.ops
	got, err := withRevisions(ops, w.revised())
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 4 || ops[0].action.ConditionCheck == nil {
		t.Fatalf("got %d ops (want 4), or the caller's check was changed", len(got))
	}
	joined, added := got[0].action.Update, got[3].action.Update
	if joined == nil || !strings.Contains(aws.ToString(joined.UpdateExpression), "ADD") || joined.ConditionExpression == nil {
		t.Errorf("the target's check did not become a conditioned raise: %+v", got[0].action)
	}
	if added == nil || got[3].key != calendarKey(from) || !strings.Contains(aws.ToString(added.ConditionExpression), "attribute_exists") {
		t.Errorf("the source's raise is not an Update of its item on the condition that it exists: %+v", got[3].action)
	}
}
