package ddbjson

import (
	"bytes"
	"strings"
	"testing"
)

// fuzzItems are seed items for the fuzz tests, valid and invalid.
var fuzzItems = []string{
	`{}`,
	`{"PK":{"S":"USER#1"},"version":{"N":"3"},"tags":{"SS":["a","b"]},"blob":{"B":"aGVsbG8="},` +
		`"flag":{"BOOL":true},"none":{"NULL":true},"m":{"M":{"x":{"L":[{"S":"y"},{"N":"1.5"}]}}}}`,
	`{"n":{"NS":["1","-1.5E+10","0","123456789012345678901234567890"]},"b":{"BS":["AA==",""]}}`,
	`{"e":{"M":{}},"l":{"L":[]},"s":{"S":""},"x":{"B":""}}`,
	`{"u":{"S":"\u00e9\ud83d\ude00\n\"\\"}}`,
	`{"a":{"X":"1"}}`,
	`{"a":{"S":"x","N":"1"}}`,
	`{"a":{"SS":[]}}`,
	`{"a":{"SS":["x","x"]}}`,
	`{"a":{"NS":["1","1.0"]}}`,
	`{"a":{"B":"!!"}}`,
	`{"a":{"N":"1e999"}}`,
	`{"a":{"NULL":false}}`,
	`{"a":{"S":"x"}} x`,
	`{"":{"S":"x"}}`,
	nested(32, false),
	nested(33, true),
}

func FuzzUnmarshalItem(f *testing.F) {
	for _, s := range fuzzItems {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		item, err := UnmarshalItem(data)
		if err != nil {
			if item != nil {
				t.Fatalf("got item %v with error %v, want nil", item, err)
			}
			return
		}
		out, err := MarshalItem(item)
		if err != nil {
			t.Fatalf("MarshalItem of a parsed item: got error %v, want none", err)
		}
		again, err := UnmarshalItem(out)
		if err != nil {
			t.Fatalf("UnmarshalItem(%s): got error %v, want none", out, err)
		}
		checkItem(t, again, item)
		out2, err := MarshalItem(again)
		if err != nil || !bytes.Equal(out2, out) {
			t.Fatalf("second MarshalItem: got (%s, %v), want (%s, nil)", out2, err, out)
		}
	})
}

func FuzzReader(f *testing.F) {
	for _, s := range fuzzItems {
		f.Add([]byte(`{"Item":` + s + "}\n"))
	}
	f.Add([]byte(""))
	f.Add([]byte("\n"))
	f.Add([]byte(`{"Item":{}}` + "\n" + `{"Item":{"a":{"S":"x"}}}`))
	f.Add([]byte(`{"Item":{}}` + "\r\n\n" + `{"Item":{}}` + "\n"))
	f.Add([]byte(`{"Item":{},"Item":{}}` + "\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		r := NewReader(bytes.NewReader(data))
		lines := strings.Count(string(data), "\n")
		var buf bytes.Buffer
		w := NewWriter(&buf)
		for n := 0; ; n++ {
			if n > lines {
				t.Fatalf("got more than %d results from %d lines, want Next to stop", n, lines)
			}
			item, err := r.Next()
			if err != nil {
				break
			}
			if err := w.Write(item); err != nil {
				t.Fatalf("Write of a read item: got error %v, want none", err)
			}
		}
		if err := w.Flush(); err != nil {
			t.Fatalf("Flush: got error %v, want none", err)
		}
		r2 := NewReader(&buf)
		for range w.Count() {
			if _, err := r2.Next(); err != nil {
				t.Fatalf("reading back written items: got error %v, want none", err)
			}
		}
	})
}
