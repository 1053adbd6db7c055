package search

import (
	"slices"
	"strings"
)

// Query is a parsed query: its distinct folded words, each of which must
// begin some word of a document (all words AND, every one a prefix).
type Query struct {
	Words []string
}

// Query bounds.
const (
	// MaxQueryBytes bounds a query's text (UTF-8 bytes).
	MaxQueryBytes = 256
	// MaxQueryWords bounds its words (after folding, duplicates counted once).
	MaxQueryWords = 8
)

// Parse cuts a query into its folded words, in order, each once, dropping
// a word that another begins (when both "den" and "dentist" must begin a
// word, "dentist" must). It returns no words for a query of none (only
// punctuation or emoji, say); the caller refuses it, and one longer than
// MaxQueryBytes or of more than MaxQueryWords words.
func Parse(q string) Query {
	var out []string
	for _, w := range Words(q) {
		if !slices.Contains(out, w.Text) {
			out = append(out, w.Text)
		}
	}
	var kept []string
	for _, w := range out {
		if !slices.ContainsFunc(out, func(o string) bool { return o != w && strings.HasPrefix(o, w) }) {
			kept = append(kept, w)
		}
	}
	return Query{Words: kept}
}

// FieldKind names the field of a document a word is in.
type FieldKind int

// The fields of an entry, from the heaviest. An attendee's name and the
// local part of their email (before the @) weigh least: they say who is
// there, not what the entry is.
const (
	FieldTitle FieldKind = iota
	FieldLocation
	FieldTag
	FieldDescription
	FieldAttendeeName
	FieldAttendeeEmail
	lastField = FieldAttendeeEmail
)

// Weight is how much a query word matched in a field adds to a hit's
// score: a title counts most, then location and tags, then the
// description, then attendees. A word equal to the whole document word (not only its
// beginning) adds one more.
func (k FieldKind) Weight() int {
	switch k {
	case FieldTitle:
		return 8
	case FieldLocation, FieldTag:
		return 4
	case FieldDescription:
		return 2
	default:
		return 1
	}
}

// Field is one text of a document; Index tells tags (and attendees) apart.
type Field struct {
	Kind  FieldKind
	Index int
	Text  string
}

// Highlight is a matched word: in which field, and where in its text, in
// UTF-16 code units. The whole document word is highlighted, not only the
// part the query gave ("dent" highlights "Dentist").
type Highlight struct {
	Kind       FieldKind
	Index      int
	Start, Len int
}

// MaxHighlights bounds the highlights of one hit (a long description may
// repeat a word many times): the first ones, in field order.
const MaxHighlights = 20

// Match reports whether every word of q begins a word of the fields, with
// the hit's score (the sum, over q's words, of the best Weight among the
// fields it matched in) and the words it matched, in field order.
func Match(q Query, fields []Field) (score int, hl []Highlight, ok bool) {
	if len(q.Words) == 0 {
		return 0, nil, false
	}
	best := make([]int, len(q.Words))
	for _, f := range fields {
		for _, w := range Words(f.Text) {
			hit := false
			for i, qw := range q.Words {
				if !strings.HasPrefix(w.Text, qw) {
					continue
				}
				hit = true
				s := f.Kind.Weight()
				if w.Text == qw {
					s++
				}
				best[i] = max(best[i], s)
			}
			if hit && len(hl) < MaxHighlights {
				hl = append(hl, Highlight{Kind: f.Kind, Index: f.Index, Start: w.Start, Len: w.Len})
			}
		}
	}
	for _, s := range best {
		if s == 0 {
			return 0, nil, false
		}
		score += s
	}
	return score, hl, true
}
