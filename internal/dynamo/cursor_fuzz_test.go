package dynamo

// This file is an internal test: the cursor codec is unexported. Its names
// start with "fuzz" so that they cannot clash with the package's own.

import (
	"encoding/base64"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/calgraph/calgraph/internal/calendar"
)

// IDs for the seeds.
const (
	fuzzCalendarID = "0190c7a4-5b6e-7c3d-8e9f-a0b1c2d3e4f5"
	fuzzUserID     = "0190c7a4-5b6e-7c3d-8e9f-a0b1c2d3e4f6"
)

// fuzzQueries are the listings whose cursors are fuzzed: a user's calendars
// on GSI1, built as MembershipsOfUser builds it, and a calendar's members on
// the table.
func fuzzQueries() []pageQuery {
	return []pageQuery{fuzzUserQuery(fuzzUserID), membersQuery(fuzzCalendarID, calendar.Page{First: 1})}
}

// fuzzMembershipItem returns a membership as the store writes it.
func fuzzMembershipItem(t testing.TB, calendarID, userID string) item {
	t.Helper()
	at := time.Date(2026, 1, 5, 14, 0, 0, 0, time.UTC)
	it, err := marshal(newMembershipRecord(&calendar.Membership{CalendarID: calendarID, UserID: userID,
		Role: calendar.RoleOwner, Version: 1, CreatedAt: at, UpdatedAt: at}))
	if err != nil {
		t.Fatal(err)
	}
	return it
}

// fuzzCursor encodes a JSON text as a cursor.
func fuzzCursor(json string) string { return base64.RawURLEncoding.EncodeToString([]byte(json)) }

// FuzzDecodeCursor checks that decodeCursor refuses a cursor as invalid
// input, or reads a start key of the query's own partition and prefix that
// holds exactly the key attributes of its index, none empty, and that
// encodes to a cursor that reads back the same.
func FuzzDecodeCursor(f *testing.F) {
	mine, theirs := fuzzMembershipItem(f, fuzzCalendarID, fuzzUserID), fuzzMembershipItem(f, fuzzUserID, fuzzCalendarID)
	for _, q := range fuzzQueries() {
		f.Add(q.encodeCursor(mine))
		f.Add(q.encodeCursor(theirs))
	}
	gsi := `{"GSI1PK":"USER#%s","GSI1SK":"CAL#%s","PK":"CAL#%s","SK":"MEMBER#%s"}`
	for _, s := range []string{
		fuzzCursor(fmt.Sprintf(gsi, fuzzUserID, fuzzCalendarID, fuzzUserID, fuzzUserID)),                 // PK and SK of no membership
		fuzzCursor(fmt.Sprintf(gsi, fuzzUserID, "x", "x", fuzzUserID)),                                   // a forged calendar
		fuzzCursor(`{"PK":"CAL#` + fuzzCalendarID + `","SK":"MEMBER#"}`),                                 // no user
		fuzzCursor(`{"PK":"CAL#` + fuzzCalendarID + `","SK":"ENTRY#` + fuzzUserID + `"}`),                // another prefix
		fuzzCursor(`{"PK":"CAL#` + fuzzCalendarID + `","SK":"MEMBER#a","GSI1PK":""}`),                    // an extra attribute
		fuzzCursor(`{"PK":"CAL#` + fuzzCalendarID + `","SK":"MEMBER#a","PK":"CAL#x"}`),                   // a key twice
		fuzzCursor(`{"PK":"CAL#` + fuzzCalendarID + `","SK":"MEMBER#a","sk":"MEMBER#b"}`),                // another case
		fuzzCursor(`{"PK":"CAL#` + fuzzCalendarID + `","SK":1}`),                                         // not a string
		fuzzCursor(`{"PK":"CAL#` + fuzzCalendarID + `","SK":"MEMBER#\u0000"}`),                           // a NUL
		fuzzCursor(`{"PK":"CAL#` + fuzzCalendarID + "\xff" + `","SK":"MEMBER#a"}`),                       // invalid UTF-8
		base64.URLEncoding.EncodeToString([]byte(`{"PK":"CAL#` + fuzzCalendarID + `","SK":"MEMBER#a"}`)), // padded
		fuzzCursor("null"), fuzzCursor("[]"), fuzzCursor("{}"), fuzzCursor(""), "!", "=",
		strings.Repeat("A", maxCursorLength+1),
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, cursor string) {
		for _, q := range fuzzQueries() {
			start, err := q.decodeCursor(cursor)
			if err != nil {
				if got := calendar.ErrorCode(err); got != calendar.CodeInvalid {
					t.Fatalf("%s cursor %q: got code %v (%v), want %v", q.partition, cursor, got, err, calendar.CodeInvalid)
				}
				continue
			}
			if cursor == "" {
				if start != nil {
					t.Fatalf("%s: got start key %v for no cursor, want none", q.partition, start)
				}
				continue
			}
			if got := slices.Sorted(maps.Keys(start)); !slices.Equal(got, q.keyAttrs()) {
				t.Fatalf("%s cursor %q: got attributes %q, want %q", q.partition, cursor, got, q.keyAttrs())
			}
			key := map[string]string{}
			for a, v := range start {
				s, ok := v.(*types.AttributeValueMemberS)
				if !ok || s.Value == "" {
					t.Fatalf("%s cursor %q: got %s = %#v, want a non-empty string", q.partition, cursor, a, v)
				}
				key[a] = s.Value
			}
			if key[q.pkAttr] != q.partition || !strings.HasPrefix(key[q.skAttr], q.prefix) || (q.valid != nil && !q.valid(key)) {
				t.Fatalf("%s cursor %q: got key %q, want one of partition %s with prefix %s", q.partition, cursor, key, q.partition, q.prefix)
			}
			again, err := q.decodeCursor(q.encodeCursor(start))
			if err != nil || !fuzzSameKey(again, key) {
				t.Fatalf("%s cursor %q: got %v, %v, want key %q again from its encoding", q.partition, cursor, again, err, key)
			}
		}
	})
}

// FuzzCursorRoundTrip checks that the cursor of any membership item reads
// back as that item's key, in the listings it belongs to.
func FuzzCursorRoundTrip(f *testing.F) {
	f.Add([]byte{0x01, 0x90, 0xc7, 0xa4, 0x5b, 0x6e, 0x7c, 0x3d, 0x8e, 0x9f, 0xa0, 0xb1, 0xc2, 0xd3, 0xe4, 0xf5}, []byte{0xff})
	f.Add([]byte{}, []byte{})
	f.Fuzz(func(t *testing.T, cal, user []byte) {
		calendarID, userID := fuzzUUID(cal), fuzzUUID(user)
		it := fuzzMembershipItem(t, calendarID, userID)
		for _, q := range []pageQuery{fuzzUserQuery(userID), membersQuery(calendarID, calendar.Page{First: 1})} {
			cursor := q.encodeCursor(it)
			start, err := q.decodeCursor(cursor)
			if err != nil {
				t.Fatalf("%s: decodeCursor(%q): got %v, want the key of membership %s/%s", q.partition, cursor, err, calendarID, userID)
			}
			want := map[string]string{}
			for _, a := range q.keyAttrs() {
				want[a] = stringAttr(it, a)
			}
			if !fuzzSameKey(start, want) {
				t.Fatalf("%s: decodeCursor(%q): got %v, want %q", q.partition, cursor, start, want)
			}
		}
	})
}

// fuzzUserQuery is a user's calendars, as MembershipsOfUser queries them
// (it builds its pageQuery inline, so this copies it).
func fuzzUserQuery(userID string) pageQuery {
	return pageQuery{
		index: indexGSI1, pkAttr: attrGSI1PK, skAttr: attrGSI1SK,
		partition: userPartition(userID), prefix: prefixCalendar, page: calendar.Page{First: 1},
		valid: func(key map[string]string) bool {
			k := membershipKey(strings.TrimPrefix(key[attrGSI1SK], prefixCalendar), userID)
			return key[attrPK] == k.PK && key[attrSK] == k.SK
		},
	}
}

// fuzzUUID formats up to 16 bytes, zero-padded, as an ID in calgraph's form.
func fuzzUUID(b []byte) string {
	var u [16]byte
	copy(u[:], b)
	return fmt.Sprintf("%x-%x-%x-%x-%x", u[0:4], u[4:6], u[6:8], u[8:10], u[10:16])
}

// fuzzSameKey reports whether a start key holds exactly the given strings.
func fuzzSameKey(start item, want map[string]string) bool {
	if len(start) != len(want) {
		return false
	}
	for a, w := range want {
		if s, ok := start[a].(*types.AttributeValueMemberS); !ok || s.Value != w {
			return false
		}
	}
	return true
}
