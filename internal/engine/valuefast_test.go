package engine

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

// TestScanItemAgreesWithDecode: decodeItem (scanItem's fast path, falling
// back to encoding/json) reads every text exactly as the encoding/json path
// alone does — the same item, or the same error — for generated items
// written canonically (as stored records are), then mangled the ways a
// client's JSON may differ (white space, escapes, nulls, duplicates, sets,
// truncation). And the fast path does take every canonical record without
// a binary set: a fallback there would cost the speed it exists for.
// (Errors are decodeMap's own: the fast path gives up on every fault.)
func TestScanItemAgreesWithDecode(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	fast, slow := 0, 0
	for i := range 8000 {
		it := randomItem(r, 0)
		canonical := appendItem(nil, it)
		if _, ok := scanItem(canonical); ok {
			fast++
		} else if _, err := decodeMap(canonical, 0); err == nil && !hasBinarySet(it) {
			t.Fatalf("item %d: the fast path gave up on a canonical record:\n%s", i, canonical)
		}
		for _, text := range [][]byte{canonical, mangle(r, canonical), mangle(r, mangle(r, canonical))} {
			got, gotErr := decodeItem(text)
			want, wantErr := decodeMap(text, 0)
			// An invalid text's error is decodeMap's own either way (which of
			// two faults it names depends on Go's map order, so only its
			// presence is compared).
			if (gotErr == nil) != (wantErr == nil) || !reflect.DeepEqual(got, want) {
				t.Fatalf("item %d, text %s:\nfast %v %v\nslow %v %v", i, text, dump(got), gotErr, dump(want), wantErr)
			}
			if wantErr != nil {
				slow++
			}
		}
	}
	if fast < 6000 || slow < 1000 {
		t.Fatalf("the generator covers too little: %d fast, %d invalid", fast, slow)
	}
	if testing.Verbose() {
		t.Logf("%d canonical records on the fast path, %d invalid texts", fast, slow)
	}
}

// TestScanNamedAgreesWithDecode: decodeNamed gives a filter exactly the
// attributes it names that the whole item holds (the same values, none
// missing, none added among those names), for generated canonical records
// and a choice of names that may miss, repeat or need escaping; and it
// takes the fast path on every canonical record whose named attributes
// scanItem would take. For mangled texts that both read, they agree too.
func TestScanNamedAgreesWithDecode(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	fast := 0
	for i := range 8000 {
		it := randomItem(r, 0)
		var names []string
		for name := range it {
			if r.IntN(3) == 0 {
				names = append(names, name)
			}
		}
		for range r.IntN(3) {
			names = append(names, randomString(r))
		}
		canonical := appendItem(nil, it)
		texts := [][]byte{canonical, mangle(r, canonical), mangle(r, mangle(r, canonical))}
		for _, text := range texts {
			whole, wholeErr := decodeMap(text, 0)
			got, err := decodeNamed(text, names)
			if wholeErr != nil {
				continue // an invalid item (a number too long, say), or a mangled text
			}
			if err != nil {
				t.Fatalf("item %d, names %q: the whole item decodes, the named attributes fail: %v\n%s", i, names, err, text)
			}
			for _, name := range names {
				if !reflect.DeepEqual(got[name], whole[name]) {
					t.Fatalf("item %d, names %q, text %s:\nattribute %q: named %v, whole %v", i, names, text, name, dump(item{"": got[name]}), dump(item{"": whole[name]}))
				}
			}
		}
		named := item{}
		for _, name := range names {
			if v, ok := it[name]; ok {
				named[name] = v
			}
		}
		_, scannable := scanItem(appendItem(nil, named))
		plain := true // every name written without an escape
		for name := range it {
			plain = plain && !bytes.ContainsRune(appendString(nil, name), '\\')
		}
		if _, ok := scanNamed(canonical, names); ok {
			fast++
		} else if scannable && plain {
			t.Fatalf("item %d, names %q: the fast path gave up on a canonical record:\n%s", i, names, canonical)
		}
	}
	// Names that need an escape (a third of randomString's samples) take
	// the slow path by design; calgraph's own names never do.
	if fast < 3000 {
		t.Fatalf("the fast path took %d of 8000 canonical records, want 3000 at least: the generator covers too little", fast)
	}
}

func dump(it item) string {
	b, _ := json.Marshal(it)
	return string(b)
}

func hasBinarySet(it item) bool {
	for _, v := range it {
		if v.BS != nil || (v.M != nil && hasBinarySet(v.M)) {
			return true
		}
		for _, e := range v.L {
			if hasBinarySet(item{"": e}) {
				return true
			}
		}
	}
	return false
}

var sampleStrings = []string{"", "a", "Café", "日本語", "😀", "quote \" and \\ backslash", "tab\tnew\nline\r", "\x01ctl", "/slash/", "\u2028", "<&>"}

var sampleNumbers = []string{"0", "1", "-1", "3.25", "1E2", "1e-3", "00012", "123456789012345678901234567890123456789", "-0.0"}

func randomString(r *rand.Rand) string {
	if r.IntN(3) == 0 {
		return fmt.Sprint("s", r.IntN(50))
	}
	return sampleStrings[r.IntN(len(sampleStrings))]
}

// randomItem makes a valid item whose values nest up to 3 levels.
func randomItem(r *rand.Rand, depth int) item {
	it := item{}
	for range r.IntN(6) + 1 {
		it[randomString(r)] = randomValue(r, depth)
	}
	return it
}

func randomValue(r *rand.Rand, depth int) *av {
	kinds := 9
	if depth >= 3 {
		kinds = 7
	}
	switch r.IntN(kinds) {
	case 0:
		s := randomString(r)
		return &av{S: &s}
	case 1:
		n := sampleNumbers[r.IntN(len(sampleNumbers))]
		return &av{N: &n}
	case 2:
		b := []byte(randomString(r))
		return &av{B: b}
	case 3:
		b := r.IntN(2) == 0
		return &av{BOOL: &b}
	case 4:
		b := true
		return &av{NULL: &b}
	case 5:
		seen := map[string]bool{}
		var set av
		for range r.IntN(3) + 1 {
			s := randomString(r)
			if !seen[s] {
				seen[s] = true
				set.SS = append(set.SS, &s)
			}
		}
		return &set
	case 6:
		if r.IntN(4) == 0 {
			return &av{BS: [][]byte{[]byte("x"), []byte("y")}}
		}
		var set av
		for _, n := range []string{"1", "2.5", "-3"}[:r.IntN(3)+1] {
			set.NS = append(set.NS, &n)
		}
		return &set
	case 7:
		return &av{M: randomItem(r, depth+1)}
	default:
		l := []*av{}
		for range r.IntN(4) {
			l = append(l, randomValue(r, depth+1))
		}
		return &av{L: l}
	}
}

// mangle makes one change to a JSON text that a client's encoder might make,
// or that makes it invalid.
func mangle(r *rand.Rand, b []byte) []byte {
	s := string(b)
	pos := r.IntN(len(s) + 1)
	switch r.IntN(14) {
	case 0:
		return []byte(s[:pos] + " \n\t" + s[pos:]) // white space (inside a string it changes the string)
	case 1:
		return []byte(strings.Replace(s, "/", `\/`, 1))
	case 2:
		return []byte(strings.Replace(s, "é", `\u00e9`, 1))
	case 3:
		return []byte(strings.Replace(s, "😀", `\ud83d\ude00`, 1))
	case 4:
		return []byte(strings.Replace(s, `{"S":"`, `{"S":null,"x":"`, 1))
	case 5:
		return []byte(strings.Replace(s, `{"N":"`, `{"N":"x`, 1))
	case 6:
		return []byte(s[:pos]) // truncated
	case 7:
		return []byte(s + "x") // trailing
	case 8:
		return []byte(strings.Replace(s, `"SS":["`, `"SS":["dup","dup","`, 1))
	case 9:
		return []byte(strings.Replace(s, `{"BOOL":true}`, `{"BOOL":true,"S":"a"}`, 1))
	case 10:
		return []byte(strings.Replace(s, `{"NULL":true}`, `{"NULL":false}`, 1))
	case 11:
		return []byte(strings.Replace(s, `{"`, `{"a":{"S":"1"},"a":{"S":"2"},"`, 1)) // a duplicate name
	case 12:
		return bytes.Replace(b, []byte("Caf"), []byte("Caf\xff"), 1) // invalid UTF-8
	default:
		return []byte(strings.Replace(s, `{"L":[`, `{"L":null,"M":[`, 1))
	}
}

// BenchmarkDecodeItem reads a stored entry record, as a filtered Query does
// for each item it reads.
func BenchmarkDecodeItem(b *testing.B) {
	title, tz, start := "Weekly planning — Café", "Europe/Paris", "2026-03-02T09:00:00Z"
	n, v := "1", "12"
	it := item{"PK": {S: ptr("CAL#01JABCDEFGHJKMNPQRSTVWXYZ")}, "SK": {S: ptr("ENTRY#01JABCDEFGHJKMNPQRSTVWXYZ")},
		"title": {S: &title}, "timeZone": {S: &tz}, "start": {S: &start}, "end": {S: &start}, "version": {N: &n},
		"sequence": {N: &v}, "tags": {SS: []*string{ptr("team"), ptr("weekly")}}, "reminders": {NS: []*string{ptr("10")}},
		"description": {S: ptr(strings.Repeat("Notes for the meeting. ", 10))}, "GSI5PK": {S: ptr("WAKE#3")}, "GSI5SK": {S: ptr("2026-03-02T08:00:00Z#x")}}
	raw := appendItem(nil, it)
	for _, path := range []struct {
		name   string
		decode func(json.RawMessage) (item, error)
	}{{"scan", decodeItem}, {"encoding-json", func(r json.RawMessage) (item, error) { return decodeMap(r, 0) }}} {
		b.Run(path.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := path.decode(raw); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func ptr(s string) *string { return &s }
