package ddbjson

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// readAll reads items from text until Next returns an error.
func readAll(t *testing.T, text string) ([]map[string]types.AttributeValue, error) {
	t.Helper()
	r := NewReader(strings.NewReader(text))
	var items []map[string]types.AttributeValue
	for {
		item, err := r.Next()
		if err != nil {
			if again, err2 := r.Next(); again != nil || err2 != err {
				t.Errorf("got (%v, %v) after error, want (nil, %v)", again, err2, err)
			}
			return items, err
		}
		items = append(items, item)
	}
}

func TestWriterReader(t *testing.T) {
	items := []map[string]types.AttributeValue{
		sampleItem(),
		{"PK": &types.AttributeValueMemberS{Value: "USER#2"}},
		{},
		{"PK": &types.AttributeValueMemberS{Value: strings.Repeat("long ", 100_000)}},
	}
	var buf bytes.Buffer
	w := NewWriter(&buf)
	for _, item := range items {
		if err := w.Write(item); err != nil {
			t.Fatalf("Write: got error %v, want none", err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatalf("Flush: got error %v, want none", err)
	}
	if got, want := w.Count(), len(items); got != want {
		t.Errorf("got Count %d, want %d", got, want)
	}
	if got, want := strings.Count(buf.String(), "\n"), len(items); got != want {
		t.Errorf("got %d lines, want %d", got, want)
	}
	if !strings.HasPrefix(buf.String(), `{"Item":{"PK":{"S":"USER#1"},`) {
		t.Errorf("got output starting %.40q, want it to start with the first item", buf.String())
	}
	got, err := readAll(t, buf.String())
	if !errors.Is(err, io.EOF) {
		t.Fatalf("got error %v, want io.EOF", err)
	}
	if len(got) != len(items) {
		t.Fatalf("got %d items, want %d", len(got), len(items))
	}
	for i := range items {
		checkItem(t, got[i], items[i])
	}
}

func TestWriterInvalidItem(t *testing.T) {
	var buf bytes.Buffer
	w := NewWriter(&buf)
	if err := w.Write(map[string]types.AttributeValue{"a": &types.AttributeValueMemberS{}}); err != nil {
		t.Fatalf("got error %v, want none", err)
	}
	err := w.Write(map[string]types.AttributeValue{"a": &types.AttributeValueMemberSS{}})
	checkErr(t, err, `item 2: attribute "a": SS: empty set`)
	if err := w.Flush(); err != nil {
		t.Fatalf("Flush: got error %v, want none", err)
	}
	if got, want := w.Count(), 1; got != want {
		t.Errorf("got Count %d, want %d", got, want)
	}
	if got, want := buf.String(), "{\"Item\":{\"a\":{\"S\":\"\"}}}\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestWriterWriteError(t *testing.T) {
	w := NewWriter(failingWriter{})
	if err := w.Write(map[string]types.AttributeValue{}); err != nil {
		t.Fatalf("got error %v, want none (buffered)", err)
	}
	checkErr(t, w.Flush(), "flush: disk full")
}

func TestReader(t *testing.T) {
	const ok = `{"Item":{"a":{"S":"x"}}}`
	tests := []struct {
		name, in string
		items    int
		want     string // error text; "" means io.EOF
	}{
		{"empty file", "", 0, ""},
		{"one line", ok + "\n", 1, ""},
		{"three lines", ok + "\n" + ok + "\n" + ok + "\n", 3, ""},
		{"CRLF", ok + "\r\n" + ok + "\r\n", 2, ""},
		{"spaces", "  " + ok + " \n", 1, ""},
		{"truncated", ok + "\n" + ok, 1, "line 2: truncated (no trailing newline)"},
		{"truncated garbage", ok + "\n{\"Ite", 1, "line 2: truncated (no trailing newline)"},
		{"blank line in the middle", ok + "\n\n" + ok + "\n", 1, "line 2: blank line"},
		{"white line", ok + "\n \t\n" + ok + "\n", 1, "line 2: blank line"},
		{"blank first line", "\n" + ok + "\n", 0, "line 1: blank line"},
		{"two newlines at the end", ok + "\n" + ok + "\n\n", 2, "line 3: blank line"},
		{"bad third line", ok + "\n" + ok + "\n" + `{"Item":{"a":{"N":"x"}}}` + "\n", 2,
			`line 3: "Item": attribute "a": N: invalid number "x"`},
		{"Item missing", "{}\n", 0, `line 1: missing "Item"`},
		{"wrong key", `{"Items":{}}` + "\n", 0, `line 1: unexpected key "Items", want "Item"`},
		{"extra top-level key", `{"Item":{},"Other":1}` + "\n", 0, `line 1: unexpected key "Other" after "Item"`},
		{"duplicate Item", `{"Item":{},"Item":{}}` + "\n", 0, `unexpected key "Item" after "Item"`},
		{"Item not an object", `{"Item":[]}` + "\n", 0, `line 1: "Item": want an object, got an array`},
		{"Item null", `{"Item":null}` + "\n", 0, `line 1: "Item": want an object, got null`},
		{"not an object", "[]\n", 0, "line 1: want an object, got an array"},
		{"bare item", `{"a":{"S":"x"}}` + "\n", 0, `line 1: unexpected key "a"`},
		{"trailing garbage", ok + " x\n", 0, "line 1: invalid JSON"},
		{"two objects", ok + ok + "\n", 0, "line 1: invalid JSON"},
		{"invalid UTF-8", "{\"Item\":{\"a\":{\"S\":\"\xff\"}}}\n", 0, "line 1: invalid UTF-8"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			items, err := readAll(t, tt.in)
			if len(items) != tt.items {
				t.Errorf("got %d items, want %d", len(items), tt.items)
			}
			if tt.want == "" {
				if err != io.EOF {
					t.Errorf("got error %v, want io.EOF", err)
				}
				return
			}
			checkErr(t, err, tt.want)
		})
	}
}

// itemLine returns an export line, without newline, of exactly n bytes.
func itemLine(n int) string {
	const head, tail = `{"Item":{"a":{"S":"`, `"}}}`
	return head + strings.Repeat("x", n-len(head)-len(tail)) + tail
}

func TestReaderLongLines(t *testing.T) {
	items, err := readAll(t, itemLine(maxLineBytes)+"\n"+itemLine(100)+"\n")
	if err != io.EOF {
		t.Fatalf("line of %d bytes: got error %v, want io.EOF", maxLineBytes, err)
	}
	if len(items) != 2 {
		t.Fatalf("got %d items, want 2", len(items))
	}
	_, err = readAll(t, itemLine(100)+"\n"+itemLine(maxLineBytes+1)+"\n")
	checkErr(t, err, "line 2: longer than 4194304 bytes")
	_, err = readAll(t, itemLine(maxLineBytes+1))
	checkErr(t, err, "line 1: longer than 4194304 bytes")
	_, err = readAll(t, strings.Repeat("x", 3*maxLineBytes))
	checkErr(t, err, "line 1: longer than 4194304 bytes")
}

func TestReaderReadError(t *testing.T) {
	const ok = `{"Item":{}}` + "\n"
	r := NewReader(io.MultiReader(strings.NewReader(ok), iotest.ErrReader(errors.New("boom"))))
	if _, err := r.Next(); err != nil {
		t.Fatalf("got error %v, want none", err)
	}
	_, err := r.Next()
	checkErr(t, err, "line 2: read: boom")
}

func TestReaderSmallReads(t *testing.T) {
	text := `{"Item":{"a":{"S":"x"}}}` + "\n" + `{"Item":{"b":{"N":"1"}}}` + "\n"
	r := NewReader(iotest.OneByteReader(strings.NewReader(text)))
	for i := range 2 {
		if _, err := r.Next(); err != nil {
			t.Fatalf("item %d: got error %v, want none", i+1, err)
		}
	}
	if _, err := r.Next(); err != io.EOF {
		t.Errorf("got error %v, want io.EOF", err)
	}
}
