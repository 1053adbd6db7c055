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
//
// Documents are known inside by small integer handles (reused once freed),
// so that a search scores them in arrays rather than in maps keyed by
// their IDs: hashing the IDs took a quarter of a search's CPU at 50,000
// entries.
type Index struct {
	postings map[string]map[uint32]fieldSet // folded word → document handle → the fields it is in
	handles  map[string]uint32              // document ID → handle
	docs     []doc                          // by handle; a free one has no ID
	free     []uint32
	vocab    []string // the words of postings, sorted when !dirty
	dirty    bool
	bytes    int
}

// doc is an indexed document: its ID and distinct words.
type doc struct {
	id    string
	words []string
}

// Candidate is a document a query may find, with the score Match gives it.
type Candidate struct {
	ID    string
	Score int
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
	return &Index{postings: map[string]map[uint32]fieldSet{}, handles: map[string]uint32{}}
}

// Approximate memory costs, for Bytes: a posting (a handle in a word's
// set), a word of the vocabulary beyond its string's bytes, and a document
// beyond its ID and words.
const (
	postingBytes = 24
	wordBytes    = 96
	docBytes     = 64
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
	h := x.handle(id)
	words := make([]string, 0, len(in))
	for w, fs := range in {
		set := x.postings[w]
		if set == nil {
			set = map[uint32]fieldSet{}
			x.postings[w] = set
			x.vocab = append(x.vocab, w)
			x.dirty = true
			x.bytes += wordBytes + len(w)
		}
		set[h] = fs
		x.bytes += postingBytes
		words = append(words, w)
	}
	x.docs[h].words = words
	x.bytes += docBytes + 2*len(id) + 16*len(words)
}

// handle gives id a handle: a freed one, else a new one.
func (x *Index) handle(id string) uint32 {
	var h uint32
	if n := len(x.free); n > 0 {
		h, x.free = x.free[n-1], x.free[:n-1]
	} else {
		h = uint32(len(x.docs))
		x.docs = append(x.docs, doc{})
	}
	x.docs[h].id = id
	x.handles[id] = h
	return h
}

// Remove drops document id (nothing when it is not indexed).
func (x *Index) Remove(id string) {
	h, ok := x.handles[id]
	if !ok {
		return
	}
	words := x.docs[h].words
	for _, w := range words {
		set := x.postings[w]
		delete(set, h)
		x.bytes -= postingBytes
		if len(set) == 0 {
			delete(x.postings, w) // vocab keeps it until the next sort
			x.dirty = true
			x.bytes -= wordBytes + len(w)
		}
	}
	x.docs[h] = doc{}
	x.free = append(x.free, h)
	delete(x.handles, id)
	x.bytes -= docBytes + 2*len(id) + 16*len(words)
}

// Len is how many documents the index holds.
func (x *Index) Len() int { return len(x.handles) }

// Bytes is about how much memory the index takes.
func (x *Index) Bytes() int { return x.bytes }

// Candidates returns the documents in which every word of q begins a word,
// each with the score Match gives its fields, in no order.
func (x *Index) Candidates(q Query) []Candidate {
	if len(q.Words) == 0 {
		return nil
	}
	x.sortVocab()
	// scores[i][h]: the best score of q.Words[i] in document h (0: none),
	// and hit[i] the documents it has one in.
	scores := make([][]uint8, len(q.Words))
	hit := make([][]uint32, len(q.Words))
	for i, qw := range q.Words {
		scores[i] = make([]uint8, len(x.docs))
		for j := sort.SearchStrings(x.vocab, qw); j < len(x.vocab) && strings.HasPrefix(x.vocab[j], qw); j++ {
			w := x.vocab[j]
			exact := 0
			if w == qw {
				exact = 1
			}
			for h, fs := range x.postings[w] {
				s := uint8(fs.weight() + exact)
				if scores[i][h] == 0 {
					hit[i] = append(hit[i], h)
				}
				scores[i][h] = max(scores[i][h], s)
			}
		}
		if len(hit[i]) == 0 {
			return nil
		}
	}
	fewest := 0
	for i := range hit {
		if len(hit[i]) < len(hit[fewest]) {
			fewest = i
		}
	}
	out := make([]Candidate, 0, len(hit[fewest]))
next:
	for _, h := range hit[fewest] {
		score := 0
		for i := range scores {
			s := scores[i][h]
			if s == 0 {
				continue next
			}
			score += int(s)
		}
		out = append(out, Candidate{ID: x.docs[h].id, Score: score})
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
