package ddbread

import (
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/valyala/fastjson"
)

// entryAnswer is a Query answer of n items shaped like calgraph's stored
// entries: a score of string and number attributes, a string set and a map.
func entryAnswer(n int) []byte {
	var b strings.Builder
	b.WriteString(`{"Count":` + fmt.Sprint(n) + `,"ScannedCount":` + fmt.Sprint(n) + `,"Items":[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"PK":{"S":"CAL#c1"},"SK":{"S":"ENTRY#e%03d"},"LSI1SK":{"S":"2026-06-1%dT09:00:00Z#e%03d"},"reachEnd":{"S":"2026-06-1%dT10:00:00Z"},`+
			`"entityType":{"S":"ENTRY"},"id":{"S":"e%03d"},"calendarId":{"S":"c1"},"kind":{"S":"TIMED"},"title":{"S":"Stand-up \u00e9 \"%d\""},`+
			`"color":{"S":"#336699"},"start":{"S":"2026-06-15T09:00:00Z"},"end":{"S":"2026-06-15T10:00:00Z"},"timeZone":{"S":"Europe/Paris"},`+
			`"version":{"N":"%d"},"createdAt":{"S":"2026-06-01T08:00:00.123Z"},"updatedAt":{"S":"2026-06-02T08:00:00.5Z"},"createdBy":{"S":"u1"},`+
			`"updatedBy":{"S":"u2"},"tags":{"SS":["a","b"]},"extra":{"M":{"x":{"N":"1"},"y":{"BOOL":true}}},"empty":{"S":""}}`,
			i, i%10, i, i%10, i, i, i+1)
	}
	b.WriteString(`],"LastEvaluatedKey":{"PK":{"S":"CAL#c1"},"SK":{"S":"ENTRY#e999"}}}`)
	return []byte(b.String())
}

// decodeItemOneByOne is the decoder decodeItem replaced: one decodeValue per
// attribute. decodeItem must give the same items.
func decodeItemOneByOne(data []byte) []map[string]types.AttributeValue {
	p := parsers.Get()
	defer parsers.Put(p)
	v, err := p.ParseBytes(data)
	if err != nil {
		panic(err)
	}
	var items []map[string]types.AttributeValue
	for _, v := range v.GetArray("Items") {
		it := map[string]types.AttributeValue{}
		v.GetObject().Visit(func(k []byte, v *fastjson.Value) {
			av, err := decodeValue(v)
			if err != nil {
				panic(err)
			}
			it[string(k)] = av
		})
		items = append(items, it)
	}
	return items
}

func TestDecodeItemMatchesDecodingEachValue(t *testing.T) {
	data := entryAnswer(30)
	out, err := decodeQuery(data)
	if err != nil {
		t.Fatal(err)
	}
	got := out.(*dynamodb.QueryOutput)
	if want := decodeItemOneByOne(data); !reflect.DeepEqual(got.Items, want) {
		t.Fatalf("decodeItem:\n%v\nwant\n%v", got.Items, want)
	}
	if got.Count != 30 || len(got.LastEvaluatedKey) != 2 {
		t.Fatalf("Count %d, LastEvaluatedKey %v", got.Count, got.LastEvaluatedKey)
	}
	for _, bad := range []string{`{"Items":[{"a":{"S":1}}]}`, `{"Items":[{"a":{"S":"x","N":"1"}}]}`, `{"Items":[{"a":{"Q":"x"}}]}`, `{"Items":[{"a":"x"}]}`} {
		if _, err := decodeQuery([]byte(bad)); err == nil {
			t.Errorf("decodeQuery(%s) took a malformed value", bad)
		}
	}
}

// TestDecodeItemAllocatesPerItemNotPerAttribute pins the point of decodeItem:
// a view decodes hundreds of items, and one allocation per attribute name,
// value and string was most of the decoder's cost (71 allocations for an
// item of 21 attributes; 33 with names interned and values in slabs: its 20
// strings, and the set and the map; 21 now that a value the item before had
// for the attribute is shared: 12 of these items' 18 strings repeat).
func TestDecodeItemAllocatesPerItemNotPerAttribute(t *testing.T) {
	data := entryAnswer(100)
	decodeQuery(data) // the names are interned on first use
	allocs := testing.AllocsPerRun(20, func() {
		if _, err := decodeQuery(data); err != nil {
			t.Fatal(err)
		}
	})
	if perItem, most := allocs/100, 22*allocationFactor*poolFactor; perItem > most {
		t.Errorf("decodeQuery: %.1f allocations per item of 21 attributes, want at most %.0f", perItem, most)
	}
}

func BenchmarkDecodeQuery(b *testing.B) {
	data := entryAnswer(100)
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := decodeQuery(data); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDecodeStoredEntries decodes an answer DynamoDB Local gave: a
// calendar's entries of a month (12 items of 21 or 22 attributes, each item's
// attributes in an order of its own).
func BenchmarkDecodeStoredEntries(b *testing.B) {
	data, err := os.ReadFile("testdata/query-entries.json")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := decodeQuery(data); err != nil {
			b.Fatal(err)
		}
	}
}
