// Package search finds words in short texts: it folds text to a form that
// compares without case, accents or compatibility variants, cuts it into
// words, parses a query, and matches and ranks a document's fields against
// it with highlight offsets. It also keeps an inverted index of such
// documents (Index) that narrows a search to the documents that can match.
//
// It knows nothing of calendars, storage or GraphQL: the store feeds it the
// text of entries and asks it which ones a query finds.
package search

import (
	"strings"
	"unicode"
	"unicode/utf16"

	"golang.org/x/text/unicode/norm"
)

// Word is one word of a text: its folded form (Fold) and where it sits in
// the original text, in UTF-16 code units (what JavaScript's String indexes
// count), so a client highlights text.slice(Start, Start+Len).
type Word struct {
	Text       string
	Start, Len int
}

// Words cuts s into words. A word is a run of letters, digits and combining
// marks; every other character (spaces, punctuation, symbols, emoji) ends
// one. A Han, Hiragana or Katakana character is a word of its own, since
// those scripts put no spaces between words: a query for 東京 finds 東京都
// as the two words 東 and 京. Words of no letters left after folding are
// dropped.
func Words(s string) []Word {
	var out []Word
	start, u16, wordU16 := -1, 0, 0
	flush := func(end int) {
		if start >= 0 {
			if f := Fold(s[start:end]); f != "" {
				out = append(out, Word{Text: f, Start: wordU16, Len: u16 - wordU16})
			}
			start = -1
		}
	}
	for i, r := range s {
		switch {
		case ideographic(r):
			flush(i)
			start, wordU16 = i, u16
			u16 += utf16.RuneLen(r)
			flush(i + len(string(r)))
			continue
		case wordRune(r):
			if start < 0 {
				start, wordU16 = i, u16
			}
		default:
			flush(i)
		}
		n := utf16.RuneLen(r)
		if n < 0 { // an invalid byte decodes as U+FFFD, one code unit
			n = 1
		}
		u16 += n
	}
	flush(len(s))
	return out
}

func wordRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r)
}

func ideographic(r rune) bool {
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana)
}

// Fold returns the comparable form of a word: lower case, decomposed
// (NFKD, so ﬁ is fi and ² is 2), without combining marks (é is e, ñ is n),
// and with ß (and ẞ) as ss, as German spells it without the letter.
func Fold(w string) string {
	if ascii(w) { // most words: no decomposition to make
		return strings.ToLower(w)
	}
	d := norm.NFKD.String(strings.ToLower(w))
	var b strings.Builder
	b.Grow(len(d))
	for _, r := range d {
		switch {
		case unicode.IsMark(r):
		case r == 'ß':
			b.WriteString("ss")
		case wordRune(r):
			b.WriteRune(unicode.ToLower(r))
		}
	}
	return b.String()
}

// ascii reports whether w is only ASCII letters and digits.
func ascii(w string) bool {
	for i := 0; i < len(w); i++ {
		if c := w[i]; c >= 0x80 || !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9') {
			return false
		}
	}
	return true
}
