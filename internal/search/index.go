package search

import (
	"slices"
	"sort"
	"strings"
)

// Index is an inverted index of documents by their folded words. It only
// narrows a search: Candidates returns every document that can match a
// query (every query word begins one of its words, in any field), and
// Match on the document's fields decides, scores and highlights. Not safe
// for concurrent use: its owner locks.
type Index struct {
	postings map[string]map[string]struct{} // folded word → document IDs
	docs     map[string][]string            // document ID → its distinct words
	vocab    []string                       // the words of postings, sorted when !dirty
	dirty    bool
	bytes    int
}

// NewIndex returns an empty index.
func NewIndex() *Index {
	return &Index{postings: map[string]map[string]struct{}{}, docs: map[string][]string{}}
}

// Approximate memory costs, for Bytes: a posting (a document ID in a
// word's set) and a word of the vocabulary, beyond their strings' bytes.
const (
	postingBytes = 64
	wordBytes    = 96
)

// Put indexes document id under the words of texts, in place of what it
// held before.
func (x *Index) Put(id string, texts ...string) {
	x.Remove(id)
	var words []string
	for _, t := range texts {
		for _, w := range Words(t) {
			words = append(words, w.Text)
		}
	}
	slices.Sort(words)
	words = slices.Compact(words)
	for _, w := range words {
		set := x.postings[w]
		if set == nil {
			set = map[string]struct{}{}
			x.postings[w] = set
			x.vocab = append(x.vocab, w)
			x.dirty = true
			x.bytes += wordBytes + len(w)
		}
		set[id] = struct{}{}
		x.bytes += postingBytes + len(id)
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

// Candidates returns the IDs of the documents in which every word of q
// begins a word, in no particular order.
func (x *Index) Candidates(q Query) []string {
	if len(q.Words) == 0 {
		return nil
	}
	x.sortVocab()
	var sets [][]map[string]struct{}
	for _, qw := range q.Words {
		var these []map[string]struct{}
		for i := sort.SearchStrings(x.vocab, qw); i < len(x.vocab) && strings.HasPrefix(x.vocab[i], qw); i++ {
			these = append(these, x.postings[x.vocab[i]])
		}
		if len(these) == 0 {
			return nil
		}
		sets = append(sets, these)
	}
	// Start from the query word with the fewest postings.
	size := func(s []map[string]struct{}) (n int) {
		for _, m := range s {
			n += len(m)
		}
		return n
	}
	slices.SortFunc(sets, func(a, b []map[string]struct{}) int { return size(a) - size(b) })
	others := make([]map[string]struct{}, len(sets)-1)
	for i, s := range sets[1:] {
		if len(s) == 1 {
			others[i] = s[0]
			continue
		}
		u := make(map[string]struct{}, size(s))
		for _, m := range s {
			for id := range m {
				u[id] = struct{}{}
			}
		}
		others[i] = u
	}
	seen := map[string]bool{}
	var out []string
	for _, m := range sets[0] {
		for id := range m {
			if seen[id] {
				continue
			}
			seen[id] = true
			if allHave(others, id) {
				out = append(out, id)
			}
		}
	}
	return out
}

func allHave(sets []map[string]struct{}, id string) bool {
	for _, s := range sets {
		if _, ok := s[id]; !ok {
			return false
		}
	}
	return true
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
