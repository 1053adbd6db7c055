package search

import (
	"slices"
	"sort"
	"strings"
)

// Index is an inverted index of documents by their folded words, and the
// fields each word is in. Candidates returns every document in which each
// query word begins a word, with the score Match would give it, so that a
// search ranks without reading the documents again; Match on the
// document's fields makes the highlights of those it shows. Not safe for
// concurrent use: its owner locks.
type Index struct {
	postings map[string]map[string]fieldSet // folded word → document ID → the fields it is in
	docs     map[string][]string            // document ID → its distinct words
	vocab    []string                       // the words of postings, sorted when !dirty
	dirty    bool
	bytes    int
}

// fieldSet is a set of FieldKinds, one bit each.
type fieldSet uint8

// weight is the best Weight among the fields of s.
func (s fieldSet) weight() int {
	best := 0
	for k := FieldTitle; k <= lastField; k++ {
		if s&(1<<k) != 0 {
			best = max(best, k.Weight())
		}
	}
	return best
}

// NewIndex returns an empty index.
func NewIndex() *Index {
	return &Index{postings: map[string]map[string]fieldSet{}, docs: map[string][]string{}}
}

// Approximate memory costs, for Bytes: a posting (a document ID in a
// word's set) and a word of the vocabulary, beyond their strings' bytes.
const (
	postingBytes = 64
	wordBytes    = 96
)

// Put indexes document id under the words of its fields, in place of what
// it held before.
func (x *Index) Put(id string, fields ...Field) {
	x.Remove(id)
	in := map[string]fieldSet{}
	for _, f := range fields {
		for _, w := range Words(f.Text) {
			in[w.Text] |= 1 << f.Kind
		}
	}
	words := make([]string, 0, len(in))
	for w, fs := range in {
		set := x.postings[w]
		if set == nil {
			set = map[string]fieldSet{}
			x.postings[w] = set
			x.vocab = append(x.vocab, w)
			x.dirty = true
			x.bytes += wordBytes + len(w)
		}
		set[id] = fs
		x.bytes += postingBytes + len(id)
		words = append(words, w)
	}
	x.docs[id] = words
	x.bytes += len(id) + 16*len(words)
}

// Remove drops document id (nothing when it is not indexed).
func (x *Index) Remove(id string) {
	words, ok := x.docs[id]
	if !ok {
		return
	}
	for _, w := range words {
		set := x.postings[w]
		delete(set, id)
		x.bytes -= postingBytes + len(id)
		if len(set) == 0 {
			delete(x.postings, w) // vocab keeps it until the next sort
			x.dirty = true
			x.bytes -= wordBytes + len(w)
		}
	}
	delete(x.docs, id)
	x.bytes -= len(id) + 16*len(words)
}

// Len is how many documents the index holds.
func (x *Index) Len() int { return len(x.docs) }

// Bytes is about how much memory the index takes.
func (x *Index) Bytes() int { return x.bytes }

// Candidates returns the documents in which every word of q begins a word,
// by ID, each with the score Match gives its fields.
func (x *Index) Candidates(q Query) map[string]int {
	if len(q.Words) == 0 {
		return nil
	}
	x.sortVocab()
	// best[i][id]: the best score of q.Words[i] in document id.
	best := make([]map[string]int, len(q.Words))
	for i, qw := range q.Words {
		best[i] = map[string]int{}
		for j := sort.SearchStrings(x.vocab, qw); j < len(x.vocab) && strings.HasPrefix(x.vocab[j], qw); j++ {
			w := x.vocab[j]
			exact := 0
			if w == qw {
				exact = 1
			}
			for id, fs := range x.postings[w] {
				best[i][id] = max(best[i][id], fs.weight()+exact)
			}
		}
		if len(best[i]) == 0 {
			return nil
		}
	}
	slices.SortFunc(best, func(a, b map[string]int) int { return len(a) - len(b) })
	out := map[string]int{}
next:
	for id, score := range best[0] {
		for _, b := range best[1:] {
			s, ok := b[id]
			if !ok {
				continue next
			}
			score += s
		}
		out[id] = score
	}
	return out
}

// sortVocab sorts the vocabulary after words came or went.
func (x *Index) sortVocab() {
	if !x.dirty {
		return
	}
	x.vocab = slices.DeleteFunc(x.vocab, func(w string) bool { return x.postings[w] == nil })
	slices.Sort(x.vocab)
	x.vocab = slices.Compact(x.vocab)
	x.dirty = false
}
