package search

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func TestWords(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []Word
	}{
		{"Zahnärzt-Termin", []Word{{"zahnarzt", 0, 8}, {"termin", 9, 6}}},
		{"CAFÉ crème", []Word{{"cafe", 0, 4}, {"creme", 5, 5}}},
		{"Straße", []Word{{"strasse", 0, 6}}},
		{"STRASSE", []Word{{"strasse", 0, 7}}},
		{"e\u0301cole", []Word{{"ecole", 0, 6}}}, // a combining accent: still one word
		{"don't, (really)!", []Word{{"don", 0, 3}, {"t", 4, 1}, {"really", 8, 6}}},
		{"😀 party 🎉", []Word{{"party", 3, 5}}}, // an emoji is two UTF-16 units
		{"東京都 Tokyo", []Word{{"東", 0, 1}, {"京", 1, 1}, {"都", 2, 1}, {"tokyo", 4, 5}}},
		{"ﬁnal ２０２６", []Word{{"final", 0, 4}, {"2026", 5, 4}}},
		{"İstanbul", []Word{{"istanbul", 0, 8}}},
		{"Ωmega ΣΟΦΙΑ", []Word{{"ωmega", 0, 5}, {"σοφια", 6, 5}}},
		{"", nil},
		{"!!! --- ...", nil},
		{"\xff\xfeabc", []Word{{"abc", 2, 3}}}, // invalid bytes: one unit each, never a crash
	} {
		if diff := cmp.Diff(tc.want, Words(tc.in)); diff != "" {
			t.Errorf("Words(%q) (-want +got):\n%s", tc.in, diff)
		}
	}
}

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"Dentist", []string{"dentist"}},
		{"den dentist DENT", []string{"dentist"}},
		{"  café, Paris ", []string{"cafe", "paris"}},
		{"🎉", nil},
		{"", nil},
	} {
		if got := Parse(tc.in).Words; !slices.Equal(got, tc.want) {
			t.Errorf("Parse(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestMatch(t *testing.T) {
	fields := []Field{
		{Kind: FieldTitle, Text: "Dentist appointment"},
		{Kind: FieldLocation, Text: "Rue de l'Église"},
		{Kind: FieldTag, Index: 1, Text: "santé"},
		{Kind: FieldDescription, Text: "Bring the dentist's form"},
		{Kind: FieldAttendeeName, Index: 1, Text: "Dana Scully"},
		{Kind: FieldAttendeeEmail, Index: 1, Text: "dana.scully"},
	}
	for _, tc := range []struct {
		q     string
		ok    bool
		score int
		hl    []Highlight
	}{
		{"dent", true, 8, []Highlight{{FieldTitle, 0, 0, 7}, {FieldDescription, 0, 10, 7}}},
		{"DENTIST", true, 9, []Highlight{{FieldTitle, 0, 0, 7}, {FieldDescription, 0, 10, 7}}},
		{"eglise dent", true, 5 + 8, []Highlight{{FieldTitle, 0, 0, 7}, {FieldLocation, 0, 9, 6}, {FieldDescription, 0, 10, 7}}},
		{"sante form", true, 5 + 3, []Highlight{{FieldTag, 1, 0, 5}, {FieldDescription, 0, 20, 4}}},
		{"scully", true, 2, []Highlight{{FieldAttendeeName, 1, 5, 6}, {FieldAttendeeEmail, 1, 5, 6}}},
		{"dent scu", true, 8 + 1, []Highlight{{FieldTitle, 0, 0, 7}, {FieldDescription, 0, 10, 7}, {FieldAttendeeName, 1, 5, 6}, {FieldAttendeeEmail, 1, 5, 6}}},
		{"dentist lunch", false, 0, nil},
		{"ntist", false, 0, nil}, // only beginnings of words
		{"", false, 0, nil},
	} {
		score, hl, ok := Match(Parse(tc.q), fields)
		if ok != tc.ok || score != tc.score {
			t.Errorf("Match(%q) = %d, %v, want %d, %v", tc.q, score, ok, tc.score, tc.ok)
		}
		if diff := cmp.Diff(tc.hl, hl); diff != "" {
			t.Errorf("Match(%q) highlights (-want +got):\n%s", tc.q, diff)
		}
	}
}

func TestIndex(t *testing.T) {
	x := NewIndex()
	x.Put("a", Field{Kind: FieldTitle, Text: "Dentist"}, Field{Kind: FieldLocation, Text: "Zürich"})
	x.Put("b", Field{Kind: FieldTitle, Text: "Dental check"})
	x.Put("c", Field{Kind: FieldTitle, Text: "Lunch"}, Field{Kind: FieldDescription, Text: "Zurich airport"})
	for _, tc := range []struct {
		q    string
		want map[string]int
	}{
		{"dent", map[string]int{"a": 8, "b": 8}},
		{"zur", map[string]int{"a": 4, "c": 2}},
		{"zurich dent", map[string]int{"a": 5 + 8}},
		{"air lun", map[string]int{"c": 2 + 8}},
		{"nothing", nil},
	} {
		got := candidates(x, tc.q)
		if diff := cmp.Diff(tc.want, got, cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("Candidates(%q) (-want +got):\n%s", tc.q, diff)
		}
	}
	x.Put("a", Field{Kind: FieldTitle, Text: "Lunch"}) // replaces its words
	x.Remove("b")
	if got := candidates(x, "dent"); len(got) != 0 {
		t.Errorf("after the update, Candidates(dent) = %v, want none", got)
	}
	if got := candidates(x, "lunch"); len(got) != 2 {
		t.Errorf("Candidates(lunch) = %v, want a and c", got)
	}
	x.Remove("a")
	x.Remove("c")
	if x.Len() != 0 || x.Bytes() != 0 {
		t.Errorf("emptied index: Len %d, Bytes %d, want 0, 0", x.Len(), x.Bytes())
	}
}

// candidates is x.Candidates of q by ID.
func candidates(x *Index, q string) map[string]int {
	out := map[string]int{}
	for _, c := range x.Candidates(Parse(q)) {
		out[c.ID] = c.Score
	}
	return out
}

// TestIndexScoresAsMatch: for random documents and queries, documents
// replaced and removed between them, the index finds exactly the documents
// Match accepts, with Match's score.
func TestIndexScoresAsMatch(t *testing.T) {
	words := strings.Fields("Café cafe Caféteria Zürich zurich Zug dent Dentist dental Straße strasse a ab abc")
	r := rand.New(rand.NewPCG(1, 2))
	text := func() string {
		var ws []string
		for range r.IntN(4) {
			ws = append(ws, words[r.IntN(len(words))])
		}
		return strings.Join(ws, " ")
	}
	x := NewIndex()
	docs := map[string][]Field{}
	for i := range 200 {
		id := fmt.Sprint(i)
		docs[id] = []Field{{Kind: FieldTitle, Text: text()}, {Kind: FieldLocation, Text: text()},
			{Kind: FieldTag, Index: 0, Text: text()}, {Kind: FieldDescription, Text: text()},
			{Kind: FieldAttendeeName, Index: 0, Text: text()}, {Kind: FieldAttendeeEmail, Index: 0, Text: text()}}
		x.Put(id, docs[id]...)
	}
	for range 300 {
		// Documents come and go, so that handles are freed and reused.
		switch id := fmt.Sprint(r.IntN(250)); r.IntN(3) {
		case 0:
			x.Remove(id)
			delete(docs, id)
		case 1:
			docs[id] = []Field{{Kind: FieldTitle, Text: text()}, {Kind: FieldAttendeeName, Index: 0, Text: text()}}
			x.Put(id, docs[id]...)
		}
		q := Parse(text())
		want := map[string]int{}
		for id, fs := range docs {
			if score, _, ok := Match(q, fs); ok {
				want[id] = score
			}
		}
		got := map[string]int{}
		for _, c := range x.Candidates(q) {
			got[c.ID] = c.Score
		}
		if diff := cmp.Diff(want, got, cmpopts.EquateEmpty()); diff != "" {
			t.Fatalf("query %q (-Match +Index):\n%s", q.Words, diff)
		}
	}
}

// FuzzWords: any text cuts into words without panicking, each word inside
// the text's UTF-16 length, in order, and folding twice changes nothing.
func FuzzWords(f *testing.F) {
	for _, s := range []string{"Zahnärzt-Termin", "東京都 Tokyo", "😀 party 🎉", "\xff\xfeabc", "e\u0301cole", "ﬁnal ２０２６"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n := len(utf16.Encode([]rune(s)))
		end := 0
		for _, w := range Words(s) {
			if w.Start < end || w.Len <= 0 || w.Start+w.Len > n || w.Text == "" {
				t.Fatalf("Words(%q): %+v out of place (text of %d units, last word ended at %d)", s, w, n, end)
			}
			end = w.Start + w.Len
			if Fold(w.Text) != w.Text {
				t.Fatalf("Fold(%q) = %q: folding twice changes the word", w.Text, Fold(w.Text))
			}
		}
		Match(Parse(s), []Field{{Kind: FieldTitle, Text: s}})
	})
}
