package dynamo

// This file is an internal test: the cursor codec and the listings' query
// builders are unexported. Its names start with "fuzz" so that they cannot
// clash with the package's own.

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/calgraph/calgraph/internal/calendar"
)

// IDs for the seeds: the owner of the listings' partitions, and another.
const (
	fuzzOwnerID = "0190c7a4-5b6e-7c3d-8e9f-a0b1c2d3e4f5"
	fuzzOtherID = "0190c7a4-5b6e-7c3d-8e9f-a0b1c2d3e4f6"
)

// fuzzAt is when the seeds' items were made.
var fuzzAt = time.Date(2026, 1, 5, 14, 0, 0, 0, time.UTC)

// fuzzListing is one of the store's paginated listings: its query, built by
// the function the store builds it with, an item it lists, and what a start
// key of it may be, stated here rather than taken from the query's own checks.
type fuzzListing struct {
	name  string
	attrs []string // the key attributes of its index, sorted
	query func(owner string) pageQuery
	item  func(t testing.TB, owner, id string) item
	legit func(owner string, key map[string]string) bool
}

// fuzzListings are every listing the store pages with cursors.
func fuzzListings() []fuzzListing {
	first := calendar.Page{First: 1}
	tableKey := []string{attrPK, attrSK}
	return []fuzzListing{
		{"a user's calendars", []string{attrGSI1PK, attrGSI1SK, attrPK, attrSK},
			func(u string) pageQuery { return userMembershipsQuery(u, first) },
			func(t testing.TB, u, c string) item { return fuzzItem(t, newMembershipRecord(fuzzMembership(c, u))) },
			func(u string, key map[string]string) bool { // the membership its index key names
				c, ok := strings.CutPrefix(key[attrGSI1SK], prefixCalendar)
				ik, k := membershipIndexKey(c, u), membershipKey(c, u)
				return ok && key[attrGSI1PK] == ik.PK && key[attrGSI1SK] == ik.SK && key[attrPK] == k.PK && key[attrSK] == k.SK
			}},
		{"a calendar's members", tableKey,
			func(c string) pageQuery { return membersQuery(c, first) },
			func(t testing.TB, c, u string) item { return fuzzItem(t, newMembershipRecord(fuzzMembership(c, u))) },
			fuzzInCalendar(attrSK, prefixMember)},
		{"a calendar's invitations", tableKey,
			func(c string) pageQuery { return invitationsQuery(c, first) },
			func(t testing.TB, c, id string) item {
				inv := &calendar.Invitation{ID: id, CalendarID: c, Role: calendar.RoleReader, ValidUntil: fuzzAt, CreatedAt: fuzzAt}
				return fuzzItem(t, newInvitationRecord(inv, "hash-of-"+id))
			},
			fuzzInCalendar(attrSK, prefixInvite)},
		{"a calendar's open tasks", []string{attrLSI2SK, attrPK, attrSK},
			func(c string) pageQuery { return tasksQuery(c, calendar.TaskQuery{List: calendar.TasksOpen}, first) },
			fuzzTask(false), fuzzInCalendar(attrLSI2SK, prefixOpenTasks)},
		{"a calendar's completed tasks", []string{attrLSI2SK, attrPK, attrSK},
			func(c string) pageQuery {
				return tasksQuery(c, calendar.TaskQuery{List: calendar.TasksCompleted}, first)
			},
			fuzzTask(true), fuzzInCalendar(attrLSI2SK, prefixDoneTasks)},
	}
}

// fuzzInCalendar accepts a key in the calendar's partition whose sort key in
// the index starts with prefix.
func fuzzInCalendar(skAttr, prefix string) func(string, map[string]string) bool {
	return func(c string, key map[string]string) bool {
		return key[attrPK] == calendarPartition(c) && strings.HasPrefix(key[skAttr], prefix)
	}
}

func fuzzMembership(calendarID, userID string) *calendar.Membership {
	return &calendar.Membership{CalendarID: calendarID, UserID: userID, Role: calendar.RoleOwner, Version: 1, CreatedAt: fuzzAt, UpdatedAt: fuzzAt}
}

// fuzzTask returns the entry item of a task, open or completed, as the store writes it.
func fuzzTask(completed bool) func(testing.TB, string, string) item {
	return func(t testing.TB, c, id string) item {
		e := &calendar.Entry{ID: id, CalendarID: c, Kind: calendar.KindTask, Title: "Task", Start: fuzzAt, End: fuzzAt,
			Completed: completed, Version: 1, CreatedAt: fuzzAt, UpdatedAt: fuzzAt}
		if completed {
			e.CompletedAt = fuzzAt
		}
		return fuzzItem(t, entryRecords(e, placement{})[0])
	}
}

func fuzzItem(t testing.TB, record any) item {
	t.Helper()
	it, err := marshal(record)
	if err != nil {
		t.Fatal(err)
	}
	return it
}

// fuzzKey returns an item's key in the attributes given.
func fuzzKey(it item, attrs []string) map[string]string {
	key := map[string]string{}
	for _, a := range attrs {
		key[a] = stringAttr(it, a)
	}
	return key
}

// fuzzCursor encodes a JSON text as a cursor.
func fuzzCursor(json string) string { return base64.RawURLEncoding.EncodeToString([]byte(json)) }

// fuzzKeyCursor encodes a key as a cursor.
func fuzzKeyCursor(key map[string]string) string {
	b, _ := json.Marshal(key) // a map of strings always marshals
	return fuzzCursor(string(b))
}

// fuzzForgeries returns key with each attribute in turn taken from another
// key, emptied or dropped, and with an attribute more.
func fuzzForgeries(key map[string]string, others []map[string]string) []map[string]string {
	var out []map[string]string
	with := func(change func(map[string]string)) {
		k := maps.Clone(key)
		change(k)
		out = append(out, k)
	}
	for a := range key {
		for _, o := range others {
			if v, ok := o[a]; ok && v != key[a] {
				with(func(k map[string]string) { k[a] = v })
			}
		}
		with(func(k map[string]string) { k[a] = "" })
		with(func(k map[string]string) { delete(k, a) })
	}
	for _, extra := range []string{attrGSI1PK, attrLSI2SK, "sk"} {
		if _, ok := key[extra]; !ok {
			with(func(k map[string]string) { k[extra] = key[attrSK] })
		}
	}
	return out
}

// fuzzCheckStart fails unless l's query for owner refuses cursor as invalid
// input, or reads from it a start key that l may start at, which holds
// exactly the key attributes of l's index, none empty, and encodes to a
// cursor that reads back the same.
func fuzzCheckStart(t *testing.T, l fuzzListing, owner, cursor string) {
	t.Helper()
	q := l.query(owner)
	start, err := q.decodeCursor(cursor)
	switch {
	case err != nil:
		if got := calendar.ErrorCode(err); got != calendar.CodeInvalid {
			t.Fatalf("%s cursor %q: got code %v (%v), want %v", l.name, cursor, got, err, calendar.CodeInvalid)
		}
		return
	case cursor == "":
		if start != nil {
			t.Fatalf("%s: got start key %v for no cursor, want none", l.name, start)
		}
		return
	}
	if got := slices.Sorted(maps.Keys(start)); !slices.Equal(got, l.attrs) {
		t.Fatalf("%s cursor %q: got attributes %q, want %q", l.name, cursor, got, l.attrs)
	}
	key := map[string]string{}
	for a, v := range start {
		s, ok := v.(*types.AttributeValueMemberS)
		if !ok || s.Value == "" {
			t.Fatalf("%s cursor %q: got %s = %#v, want a non-empty string", l.name, cursor, a, v)
		}
		key[a] = s.Value
	}
	if !l.legit(owner, key) {
		t.Fatalf("%s of %s, cursor %q: got start key %q, which it does not list", l.name, owner, cursor, key)
	}
	if again, err := q.decodeCursor(q.encodeCursor(start)); err != nil || !fuzzSameKey(again, key) {
		t.Fatalf("%s cursor %q: got %v, %v, want key %q again from its encoding", l.name, cursor, again, err, key)
	}
}

// FuzzDecodeCursor checks that every listing refuses a cursor as invalid
// input, or reads a start key it may start at (fuzzCheckStart): a forged
// cursor cannot start a read elsewhere.
func FuzzDecodeCursor(f *testing.F) {
	var keys [][]map[string]string // each listing's keys: its own, then another owner's
	for _, l := range fuzzListings() {
		keys = append(keys, []map[string]string{
			fuzzKey(l.item(f, fuzzOwnerID, fuzzOtherID), l.attrs), fuzzKey(l.item(f, fuzzOtherID, fuzzOwnerID), l.attrs)})
	}
	all := slices.Concat(keys...)
	for i := range keys {
		for _, k := range keys[i] {
			f.Add(fuzzKeyCursor(k))
		}
		for _, forged := range fuzzForgeries(keys[i][0], all) {
			f.Add(fuzzKeyCursor(forged))
		}
	}
	member := `{"PK":"CAL#` + fuzzOwnerID + `","SK":`
	for _, s := range []string{
		fuzzCursor(member + `"MEMBER#a","PK":"CAL#x"}`),                         // a key twice
		fuzzCursor(member + `1}`),                                               // not a string
		fuzzCursor(member + `"MEMBER#\u0000"}`),                                 // a NUL
		fuzzCursor(`{"PK":"CAL#` + fuzzOwnerID + "\xff" + `","SK":"MEMBER#a"}`), // invalid UTF-8
		base64.URLEncoding.EncodeToString([]byte(member + `"MEMBER#a"}`)),       // padded
		fuzzCursor("null"), fuzzCursor("[]"), fuzzCursor("{}"), fuzzCursor(""), "!", "=",
		strings.Repeat("A", maxCursorLength+1),
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, cursor string) {
		for _, l := range fuzzListings() {
			fuzzCheckStart(t, l, fuzzOwnerID, cursor)
		}
	})
}

// FuzzCursorRoundTrip checks that the cursor of any item a listing lists
// reads back as that item's key, that the same listing of another owner
// refuses it, and that it forged with another item's attributes is refused or
// still a start key the listing may start at.
func FuzzCursorRoundTrip(f *testing.F) {
	f.Add([]byte{0x01, 0x90, 0xc7, 0xa4, 0x5b, 0x6e, 0x7c, 0x3d, 0x8e, 0x9f, 0xa0, 0xb1, 0xc2, 0xd3, 0xe4, 0xf5}, []byte{0xff}, []byte{0x7f})
	f.Add([]byte{}, []byte{}, []byte{1})
	f.Fuzz(func(t *testing.T, owner, id, other []byte) {
		ownerID, itemID, otherID := fuzzUUID(owner), fuzzUUID(id), fuzzUUID(other)
		for _, l := range fuzzListings() {
			it := l.item(t, ownerID, itemID)
			key, q := fuzzKey(it, l.attrs), l.query(ownerID)
			cursor := q.encodeCursor(it)
			start, err := q.decodeCursor(cursor)
			if err != nil || !fuzzSameKey(start, key) {
				t.Fatalf("%s of %s: decodeCursor(%q): got %v, %v, want %q", l.name, ownerID, cursor, start, err, key)
			}
			if otherID != ownerID {
				if _, err := l.query(otherID).decodeCursor(cursor); calendar.ErrorCode(err) != calendar.CodeInvalid {
					t.Fatalf("%s of %s: decodeCursor(%q) of %s's: got %v, want code %v", l.name, otherID, cursor, ownerID, err, calendar.CodeInvalid)
				}
			}
			others := []map[string]string{fuzzKey(l.item(t, ownerID, otherID), l.attrs), fuzzKey(l.item(t, otherID, itemID), l.attrs)}
			for _, forged := range fuzzForgeries(key, others) {
				fuzzCheckStart(t, l, ownerID, fuzzKeyCursor(forged))
			}
		}
	})
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
